//! The chapter's measured run (Chapter 1, Part 4), per mode, and its table as facts: each
//! cell says what happened around at most one time, so this run's cell and the chapter's
//! compare by what they say and by their times as shown (whole milliseconds).

use super::shown::{after_shown, ms_f};
use super::lane::{Phase, Reason, WorkOutcome};
use super::message::Party;
use super::model::DeadlineChain;
use super::spec::Mode;
use crate::sim::Micros;

/// One cell of the chapter's table. Times in ms as the metrics report them (to 0.1 ms).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum TableCell {
    /// A answered the user with `status`, produced by `origin`.
    Answered { status: u16, origin: Party, at_ms: f64 },
    /// No answer: the browser gave up.
    BrowserGaveUp { at_ms: f64 },
    /// B gave up on C; `after_user_left`: after the user stopped waiting (as shown).
    GaveUpOnC { at_ms: f64, after_user_left: bool },
    /// B's part ended without calling C.
    NeverCalledC,
    /// B did not give up: C answered.
    CAnswered,
    /// C finished and committed; `for_nobody`: after the user stopped waiting (as shown).
    Committed { at_ms: f64, for_nobody: bool },
    /// C stopped its work, for `why`.
    Stopped { at_ms: f64, why: Reason },
    /// C is working (still, once the run has ended).
    Working,
    /// C has not started (and never will, once the run has ended).
    NotStarted,
    /// The budget B told C, in ms.
    Told { ms: f64 },
    /// B called C with no budget header.
    NoHeader,
    /// Nothing yet (nothing by the end, once the run has ended).
    NotYet,
}

impl TableCell {
    /// The time the table shows: whole milliseconds.
    pub fn shown_ms(&self) -> Option<f64> {
        match *self {
            TableCell::Answered { at_ms, .. }
            | TableCell::BrowserGaveUp { at_ms }
            | TableCell::GaveUpOnC { at_ms, .. }
            | TableCell::Committed { at_ms, .. }
            | TableCell::Stopped { at_ms, .. }
            | TableCell::Told { ms: at_ms } => Some(libm::round(at_ms)),
            _ => None,
        }
    }

    /// Says what `other` says, whatever the time.
    pub fn same_but_time(&self, other: &TableCell) -> bool {
        self.without_time() == other.without_time()
    }

    fn without_time(self) -> Self {
        let at_ms = 0.0;
        match self {
            TableCell::Answered { status, origin, .. } => TableCell::Answered { status, origin, at_ms },
            TableCell::BrowserGaveUp { .. } => TableCell::BrowserGaveUp { at_ms },
            TableCell::GaveUpOnC { after_user_left, .. } => TableCell::GaveUpOnC { at_ms, after_user_left },
            TableCell::Committed { for_nobody, .. } => TableCell::Committed { at_ms, for_nobody },
            TableCell::Stopped { why, .. } => TableCell::Stopped { at_ms, why },
            TableCell::Told { .. } => TableCell::Told { ms: at_ms },
            other => other,
        }
    }
}

/// The rows of the chapter's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum TableRow {
    /// A answers the user.
    Answer,
    /// B gives up on C.
    BGivesUp,
    /// C's work.
    CWork,
    /// C was told (the chapter gives it for a propagated budget only).
    CTold,
}

/// One row: this run's cell beside the chapter's.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct TableLine {
    pub row: TableRow,
    pub this: TableCell,
    pub chapter: TableCell,
}

/// How this run's column compares with the chapter's.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum TableClaim {
    /// Every row says what the chapter's says; `most_apart_ms`: the largest difference between
    /// two times shown side by side (None when no row shows a time).
    Same { most_apart_ms: Option<f64> },
    /// Some row says something else, and the run is still going.
    FillingIn,
    /// The finished run's `rows` say something else; `most_apart_ms` as for `Same`, over the
    /// other rows.
    Differs { rows: Vec<TableRow>, most_apart_ms: Option<f64> },
}

/// The chapter's measured run (Chapter 1, Part 4), per mode: A answers the user, B gives up
/// on C, C's 3 s of work, and what C was told (the text: "C was told it had 1,448 ms").
pub struct ChapterRun {
    pub answer: TableCell,
    pub b_gives_up: TableCell,
    pub c_work: TableCell,
    pub c_told: Option<TableCell>,
}

pub const CHAPTER_FIXED: ChapterRun = ChapterRun {
    answer: TableCell::Answered { status: 504, origin: Party::Hop(0), at_ms: 2004.0 },
    b_gives_up: TableCell::GaveUpOnC { at_ms: 2509.0, after_user_left: true },
    c_work: TableCell::Committed { at_ms: 3510.0, for_nobody: true },
    c_told: None,
};

pub const CHAPTER_PROPAGATED: ChapterRun = ChapterRun {
    answer: TableCell::Answered { status: 504, origin: Party::Hop(1), at_ms: 1966.0 },
    b_gives_up: TableCell::GaveUpOnC { at_ms: 1963.0, after_user_left: false },
    c_work: TableCell::Stopped { at_ms: 1966.0, why: Reason::CallerLeft },
    c_told: Some(TableCell::Told { ms: 1448.0 }),
};

impl DeadlineChain {
    /// The chapter's measured run for this run's mode.
    pub fn chapter_run(&self) -> &'static ChapterRun {
        match self.config.mode {
            Mode::Fixed => &CHAPTER_FIXED,
            Mode::Propagated => &CHAPTER_PROPAGATED,
        }
    }

    /// The chapter's table for this run's mode: this run's cells as of `now` beside the
    /// chapter's (the "C was told" row only where the chapter gives it).
    pub(super) fn table(&self, now: Micros) -> Vec<TableLine> {
        let chapter = self.chapter_run();
        let line = |row, this, chapter| TableLine { row, this, chapter };
        let mut rows = vec![
            line(TableRow::Answer, self.answer_cell(), chapter.answer),
            line(TableRow::BGivesUp, self.b_gives_up_cell(now), chapter.b_gives_up),
            line(TableRow::CWork, self.c_work_cell(now), chapter.c_work),
        ];
        if let Some(told) = chapter.c_told {
            rows.push(line(TableRow::CTold, self.c_told_cell(), told));
        }
        rows
    }

    fn answer_cell(&self) -> TableCell {
        let user = self.user();
        match (user.answer, user.gave_up) {
            (Some(a), _) => TableCell::Answered { status: a.status, origin: a.origin, at_ms: ms_f(a.answered_at) },
            (None, Some(g)) => TableCell::BrowserGaveUp { at_ms: ms_f(g) },
            _ => TableCell::NotYet,
        }
    }

    fn b_gives_up_cell(&self, now: Micros) -> TableCell {
        let b = &self.lanes()[1];
        let over = self.finished(now) || b.phase == Phase::Done;
        match b.gave_up {
            Some((t, _)) => TableCell::GaveUpOnC { at_ms: ms_f(t), after_user_left: self.after_user_left(now, t) },
            None if b.call_sent.is_none() && over => TableCell::NeverCalledC,
            None if b.phase == Phase::Done => TableCell::CAnswered,
            None => TableCell::NotYet,
        }
    }

    fn c_work_cell(&self, now: Micros) -> TableCell {
        let c = &self.lanes()[2];
        match (c.work_outcome, c.work_end) {
            (Some(WorkOutcome::Finished), Some(t)) => {
                TableCell::Committed { at_ms: ms_f(t), for_nobody: self.after_user_left(now, t) }
            }
            (Some(WorkOutcome::Stopped(why)), Some(t)) => TableCell::Stopped { at_ms: ms_f(t), why },
            _ if c.work_start.is_some() => TableCell::Working,
            _ => TableCell::NotStarted,
        }
    }

    fn c_told_cell(&self) -> TableCell {
        let b = &self.lanes()[1];
        match b.call_header_ms {
            Some(v) => TableCell::Told { ms: v as f64 },
            None if b.call_sent.is_some() => TableCell::NoHeader,
            None => TableCell::NotYet,
        }
    }

    /// Whether `t` came after the user stopped waiting, as the metrics show them.
    fn after_user_left(&self, now: Micros, t: Micros) -> bool {
        self.stopped(now).is_some_and(|s| after_shown(s, t))
    }
}

/// How this run's column compares with the chapter's, from the cells.
pub(super) fn table_claim(rows: &[TableLine], finished: bool) -> TableClaim {
    let (same, differ): (Vec<&TableLine>, Vec<&TableLine>) = rows.iter().partition(|r| r.this.same_but_time(&r.chapter));
    let most_apart_ms = same
        .iter()
        .filter_map(|r| Some((r.this.shown_ms()? - r.chapter.shown_ms()?).abs()))
        .fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.max(d))));
    if differ.is_empty() {
        TableClaim::Same { most_apart_ms }
    } else if !finished {
        TableClaim::FillingIn
    } else {
        TableClaim::Differs { rows: differ.iter().map(|r| r.row).collect(), most_apart_ms }
    }
}
