//! The chapter's measured run (Chapter 1, Part 4), per mode, and the cells of its table.

use crate::format;

/// One cell of the chapter's table: words around at most one time, so two cells compare by
/// their words and the difference of their times as shown (whole milliseconds).
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub before: String,
    pub ms: Option<f64>,
    pub after: String,
}

impl Cell {
    pub(super) fn text(s: &str) -> Self {
        Self { before: s.to_string(), ms: None, after: String::new() }
    }

    pub(super) fn at(before: &str, ms: f64, after: &str) -> Self {
        Self { before: before.to_string(), ms: Some(ms), after: after.to_string() }
    }

    /// The time as the table shows it: whole milliseconds.
    pub fn shown_ms(&self) -> Option<f64> {
        self.ms.map(libm::round)
    }

    pub fn render(&self) -> String {
        match self.shown_ms() {
            Some(ms) if self.before.is_empty() => format!("{}{}", format::ms(ms), self.after),
            Some(ms) => format!("{} {}{}", self.before, format::ms(ms), self.after),
            None => format!("{}{}", self.before, self.after),
        }
    }

    /// Says the same thing as `other`, whatever the time.
    pub(super) fn same_words(&self, other: &Cell) -> bool {
        self.before == other.before && self.after == other.after && self.ms.is_some() == other.ms.is_some()
    }
}

/// The chapter's measured run (Chapter 1, Part 4), per mode: A answers the user, B gives up
/// on C, C's 3 s of work, and what C was told (the text: "C was told it had 1,448 ms").
pub struct ChapterRun {
    pub answer: (f64, &'static str),
    pub b_gives_up: (f64, &'static str),
    pub c_work: (&'static str, f64, &'static str),
    pub c_told_ms: Option<f64>,
}

pub const CHAPTER_FIXED: ChapterRun = ChapterRun {
    answer: (2004.0, ""),
    b_gives_up: (2509.0, ", after the user already left"),
    c_work: ("Finished and committed at", 3510.0, ", for nobody"),
    c_told_ms: None,
};

pub const CHAPTER_PROPAGATED: ChapterRun = ChapterRun {
    answer: (1966.0, ", from B"),
    b_gives_up: (1963.0, ""),
    c_work: ("Stopped at", 1966.0, " (\u{201c}caller left\u{201d})"),
    c_told_ms: Some(1448.0),
};

/// One row of the table: its key, its label, this run's cell and the chapter's.
pub struct Row {
    pub key: &'static str,
    pub label: String,
    pub this: Cell,
    pub chapter: Cell,
}
