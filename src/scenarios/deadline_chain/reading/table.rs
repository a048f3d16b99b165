//! The chapter's table for the run's mode: this run's cells beside the chapter's, and how
//! they compare.

use crate::scenarios::deadline_chain::facts::{after_shown, ms_f};
use crate::format;
use crate::scenarios::deadline_chain::{CHAPTER_FIXED, CHAPTER_PROPAGATED, Cell, ChapterRun, DeadlineChain, Mode, Party, Phase, Row, WorkOutcome};
use crate::sim::Micros;

impl DeadlineChain {
    /// The chapter's measured run for this run's mode.
    pub fn chapter_run(&self) -> &'static ChapterRun {
        match self.config.mode {
            Mode::Fixed => &CHAPTER_FIXED,
            Mode::Propagated => &CHAPTER_PROPAGATED,
        }
    }

    /// The chapter's table for this run's mode: this run's cells as of `now` beside the
    /// chapter's.
    pub fn table(&self, now: Micros) -> Vec<Row> {
        let chapter = self.chapter_run();
        let user = self.user();
        let [_, b, c] = self.lanes();
        let stop = self.stopped(now);
        let not_yet = || Cell::text(if self.finished(now) { "none by the end" } else { "not yet" });
        let answer = match (user.answer, user.gave_up) {
            (Some(a), _) => {
                let from =
                    if a.origin != Party::Hop(0) { format!(", from {}", a.origin.name()) } else { String::new() };
                Cell::at(&format!("{} at", a.status), ms_f(a.answered_at), &from)
            }
            (None, Some(g)) => Cell::at("none: the browser gave up at", ms_f(g), ""),
            _ => not_yet(),
        };
        let b_gives_up = match b.gave_up {
            Some((t, _)) => {
                let late = if stop.is_some_and(|s| after_shown(s, t)) { ", after the user already left" } else { "" };
                Cell::at("", ms_f(t), late)
            }
            None if b.call_sent.is_none() && (self.finished(now) || b.phase == Phase::Done) => {
                Cell::text("never called C")
            }
            None if b.phase == Phase::Done => Cell::text("doesn't: C answered"),
            None => not_yet(),
        };
        let c_work = match (c.work_outcome, c.work_end) {
            (Some(WorkOutcome::Finished), Some(t)) => {
                let nobody = if stop.is_some_and(|s| after_shown(s, t)) { ", for nobody" } else { "" };
                Cell::at("Finished and committed at", ms_f(t), nobody)
            }
            (Some(WorkOutcome::Stopped(why)), Some(t)) => {
                Cell::at("Stopped at", ms_f(t), &format!(" (\u{201c}{}\u{201d})", why.label()))
            }
            _ if c.work_start.is_some() => {
                Cell::text(if self.finished(now) { "Still working at the end" } else { "Working" })
            }
            _ if self.finished(now) => Cell::text("Never started"),
            _ => Cell::text("Not started yet"),
        };
        let mut rows = vec![
            Row {
                key: "table_answer",
                label: "A answers the user".into(),
                this: answer,
                chapter: Cell::at("504 at", chapter.answer.0, chapter.answer.1),
            },
            Row {
                key: "table_b_gives_up",
                label: "B gives up on C".into(),
                this: b_gives_up,
                chapter: Cell::at("", chapter.b_gives_up.0, chapter.b_gives_up.1),
            },
            Row {
                key: "table_c_work",
                label: format!("C's {} of work", format::duration_ms(self.config.c_work_ms)),
                this: c_work,
                chapter: Cell::at(chapter.c_work.0, chapter.c_work.1, chapter.c_work.2),
            },
        ];
        if let Some(told) = chapter.c_told_ms {
            let this = match b.call_header_ms {
                Some(v) => Cell::at("", v as f64, ""),
                None if b.call_sent.is_some() => Cell::text("no header"),
                None => not_yet(),
            };
            rows.push(Row { key: "table_c_told", label: "C was told".into(), this, chapter: Cell::at("", told, "") });
        }
        rows
    }

    /// The caption naming the two columns' runs, and how this run's column compares with the
    /// chapter's, from the cells as shown.
    pub(super) fn table_claim(&self, now: Micros, rows: &[Row]) -> (String, String) {
        let mode = match self.config.mode {
            Mode::Fixed => "fixed timeouts",
            Mode::Propagated => "a propagated budget",
        };
        let caption = format!("The chapter's measured run with {mode}, beside this run so far");
        let (same, differ): (Vec<&Row>, Vec<&Row>) = rows.iter().partition(|r| r.this.same_words(&r.chapter));
        // The largest difference between a time shown in this run's column and the chapter's,
        // over the rows that say the same thing.
        let most = same
            .iter()
            .filter_map(|r| Some((r.this.shown_ms()? - r.chapter.shown_ms()?).abs()))
            .fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.max(d))));
        let agree = most.map(|d| {
            if d == 0.0 {
                "matches the chapter's figure to the millisecond".to_string()
            } else {
                format!("is within {} of the chapter's figure", format::ms(d))
            }
        });
        let claim = if differ.is_empty() {
            match agree {
                Some(a) => format!("Every row reads as the chapter's, and every time {a}."),
                None => "Every row reads as the chapter's.".to_string(),
            }
        } else if !self.finished(now) {
            "This run's column fills in as the run plays; the chapter's is its finished run.".to_string()
        } else {
            let labels: Vec<&str> = differ.iter().map(|r| r.label.as_str()).collect();
            let rest = agree.map(|a| format!("; every other time {a}")).unwrap_or_default();
            format!("This run differs from the chapter's in: {}{rest}.", labels.join("; "))
        };
        (caption, claim)
    }
}
