//! What a deadline-chain run means, in words. Every sentence is computed from the run's
//! configuration and its state at the moment it is read, so it is true of the run on screen
//! whatever the reader changed (`tests/deadline_chain.rs` checks the claims against the metrics
//! over random parameters).
//!
//! Keys:
//! - `verdict`: what the user got, and what C's work was for.
//! - `answer_note`, `b_note`, `c_note`, `told_note`: a few words under the stat cards.
//! - `moments`: every moment so far, one per line, `"<time>: <what happened>"`.
//! - `table_answer`, `table_b_gives_up`, `table_c_work`, `table_c_told`: the rows of the
//!   chapter's table for the run's mode, each `"<row label>\t<this run>\t<the chapter's>"` (only
//!   the rows the chapter gives a figure for); `table_caption` names the columns' runs, and
//!   `table_claim` says how this run's column compares with the chapter's, from the cells shown.

use super::{C, DeadlineChain, HOPS, Lane, MarkKind, Mode, MsgKind, Party, Phase, Reason, StoppedWaiting, WorkOutcome};
use crate::format;
use crate::sim::base::sort_short;
use crate::sim::{MS, Micros, Reading};
use crate::sim::Explain;

impl Explain for DeadlineChain {
    fn reading(&self, now: Micros) -> Reading {
        self.reading_at(now)
    }

    fn sweep_theory(c: &super::DeadlineChainConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

/// A time as the metrics report it (to 0.1 ms), so a sentence quotes the card's figure.
fn when(t: Micros) -> String {
    format::ms(ms_f(t))
}

fn hop(h: usize) -> &'static str {
    Party::Hop(h).name()
}

/// One cell of the chapter's table: words around at most one time, so two cells compare by
/// their words and the difference of their times as shown (whole milliseconds).
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub before: String,
    pub ms: Option<f64>,
    pub after: String,
}

impl Cell {
    fn text(s: &str) -> Self {
        Self { before: s.to_string(), ms: None, after: String::new() }
    }

    fn at(before: &str, ms: f64, after: &str) -> Self {
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
    fn same_words(&self, other: &Cell) -> bool {
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

impl DeadlineChain {
    pub(super) fn reading_at(&self, now: Micros) -> Reading {
        let mut reading = vec![
            ("verdict", self.verdict(now)),
            ("answer_note", self.answer_note()),
            ("b_note", self.b_note(now)),
            ("c_note", self.c_note(now)),
            ("told_note", self.told_note()),
            (
                "moments",
                self.moments(now).into_iter().map(|(t, s)| format!("{}: {s}", when(t))).collect::<Vec<_>>().join("\n"),
            ),
        ];
        let rows = self.table(now);
        let (caption, claim) = self.table_claim(now, &rows);
        for row in &rows {
            reading.push((row.key, format!("{}\t{}\t{}", row.label, row.this.render(), row.chapter.render())));
        }
        reading.push(("table_caption", caption));
        reading.push(("table_claim", claim));
        reading
    }

    fn finished(&self, now: Micros) -> bool {
        now >= self.end
    }

    /// When the user stopped waiting, as of `now`.
    fn stopped(&self, now: Micros) -> Option<Micros> {
        self.user_stopped_waiting(now).map(|s| s.0)
    }

    fn wasted_ms(&self, now: Micros) -> f64 {
        // As the metric reports it (rounded to 0.1 ms).
        crate::sim::Value::num(super::total_ms(&self.wasted_intervals(now))).as_f64().unwrap_or(0.0)
    }

    fn verdict(&self, now: Micros) -> String {
        let user = self.user();
        let budget = when(ms_of(self.user_budget_ms()));
        let budget_end = ms_of(self.user_budget_ms());
        let mut out = match (user.answer, user.gave_up) {
            (Some(a), _) => {
                let from =
                    if a.origin != Party::Hop(0) { format!(" (from {})", a.origin.name()) } else { String::new() };
                let timing = if self.in_budget(a) {
                    format!("within the user's {budget}")
                } else {
                    format!(
                        "{} after the user's {budget} had run out: too late to be of use",
                        when(a.answered_at.saturating_sub(budget_end))
                    )
                };
                format!("A answered the user with a {}{from} at {}, {timing}.", a.status, when(a.answered_at))
            }
            (None, Some(g)) => format!("The browser gave up at {} with no answer.", when(g)),
            _ if now == 0 => "Press play or step: the user's request is on its way to A.".to_string(),
            _ if now >= budget_end => {
                format!("The user's {budget} ran out with no answer: whatever comes now comes too late.")
            }
            _ => format!("The user is waiting; they will wait {budget}."),
        };
        let Some(stop) = self.stopped(now) else { return out };
        let c = &self.lanes()[C];
        match (c.work_outcome, c.work_end, c.work_start) {
            (Some(WorkOutcome::Finished), Some(t), _) if after_shown(stop, t) => {
                out += &format!(
                    " C committed at {}, {} after the user stopped waiting: for nobody.",
                    when(t),
                    when(t - stop)
                );
            }
            (Some(WorkOutcome::Finished), Some(t), _) => out += &format!(" C committed at {}.", when(t)),
            (Some(WorkOutcome::Stopped(why)), Some(t), _) => {
                out += &format!(" C stopped at {} ({}).", when(t), why.label());
            }
            (None, _, Some(_)) => out += " C is still working, for nobody.",
            _ if self.finished(now) || self.lanes()[1].phase == Phase::Done => out += " C was never called.",
            _ => out += " C has not been called yet.",
        }
        let so_far = if self.finished(now) { "" } else { " so far" };
        out + &format!(" Work done for nobody{so_far}: {}.", format::ms(self.wasted_ms(now)))
    }

    fn answer_note(&self) -> String {
        let user = self.user();
        match (user.answer, user.gave_up) {
            (Some(a), _) => format!("{} from {}", a.status, a.origin.name()),
            (None, Some(g)) => format!("none: browser gave up at {}", when(g)),
            _ => "the user is waiting".to_string(),
        }
    }

    fn b_note(&self, now: Micros) -> String {
        let b = &self.lanes()[1];
        match (b.gave_up, self.stopped(now)) {
            (Some((t, why)), Some(s)) if after_shown(s, t) => format!("{}, after the user left", why.label()),
            (Some((_, why)), _) => why.label().to_string(),
            _ => String::new(),
        }
    }

    fn c_note(&self, now: Micros) -> String {
        let c = &self.lanes()[C];
        match (c.work_outcome, c.work_end, self.stopped(now)) {
            (Some(WorkOutcome::Finished), Some(t), Some(s)) if after_shown(s, t) => "committed, for nobody".to_string(),
            (Some(WorkOutcome::Finished), _, _) => "committed".to_string(),
            (Some(WorkOutcome::Stopped(why)), _, _) => format!("stopped ({})", why.label()),
            _ if c.work_start.is_some() => "working".to_string(),
            _ => "not called yet".to_string(),
        }
    }

    fn told_note(&self) -> String {
        if self.propagated() {
            "in x-request-timeout-ms".to_string()
        } else {
            "fixed timeouts send no budget".to_string()
        }
    }

    /// Every moment so far, in words: the text equivalent of the timeline.
    pub fn moments(&self, now: Micros) -> Vec<(Micros, String)> {
        let lanes = self.lanes();
        let mut out: Vec<(Micros, String)> = Vec::with_capacity(48);
        out.push((
            0,
            format!(
                "The user's request leaves the browser; the user will wait {}.",
                when(ms_of(self.user_budget_ms()))
            ),
        ));
        for (h, lane) in lanes.iter().enumerate() {
            for m in lane.marks() {
                out.push((m.t, self.moment(h, lane, m.kind)));
            }
        }
        for m in self.messages() {
            if let (MsgKind::Close, Party::Hop(h), Party::Hop(to)) = (m.kind, m.from, m.to) {
                out.push((m.sent, format!("{} hangs up on {}: the connection closes.", hop(h), hop(to))));
            }
        }
        let user = self.user();
        if let Some(a) = user.answer {
            let from = if a.origin != Party::Hop(0) { format!(" from {}", a.origin.name()) } else { String::new() };
            out.push((a.received, format!("The user gets {}{from}.", a.status)));
        }
        if let Some(g) = user.gave_up {
            out.push((g, "The browser gives up and closes the connection to A.".to_string()));
        }
        if let Some((t, StoppedWaiting::BudgetRanOut)) = self.user_stopped_waiting(now) {
            out.push((t, format!("The user's {} run out: an answer from now on comes too late.", when(t))));
        }
        // In time order; what happened at the same moment keeps the order it was listed in.
        sort_short(&mut out, |m| m.0);
        out
    }

    fn moment(&self, h: usize, lane: &Lane, kind: MarkKind) -> String {
        let name = hop(h);
        let next = if h + 1 < HOPS { hop(h + 1) } else { "" };
        match kind {
            MarkKind::Received => match (self.propagated(), lane.budget_told_ms, lane.deadline_ms) {
                (true, Some(b), Some(d)) if h == 0 => format!(
                    "A receives the request. The browser sends no header, so A starts from the user's {}: its deadline is {}{}.",
                    format::ms(b as f64),
                    format::ms(d as f64),
                    if self.config.edge_reserve {
                        format!(" (less its {} reserve)", format::ms(self.config.reserve_ms))
                    } else {
                        String::new()
                    }
                ),
                (true, Some(b), Some(d)) => format!(
                    "{name} receives the request with x-request-timeout-ms: {b}. Its deadline: arrival + {b} − {} reserve = {}.",
                    format::ms(self.config.reserve_ms),
                    format::ms(d as f64)
                ),
                _ => format!("{name} receives the request and starts its work."),
            },
            MarkKind::WorkFinished if h == C => "C finishes its work and commits.".to_string(),
            MarkKind::WorkFinished => format!("{name} finishes its work."),
            MarkKind::WorkStopped => match lane.work_outcome {
                Some(WorkOutcome::Stopped(why)) => format!("{name} stops its work ({}).", why.label()),
                _ => format!("{name} stops its work."),
            },
            MarkKind::CallSent => {
                let wait = lane
                    .call_timeout
                    .map_or("with no timeout".to_string(), |t| format!("and will wait at most {}", when(t)));
                match lane.call_header_ms {
                    Some(v) => format!("{name} calls {next} with x-request-timeout-ms: {v} {wait}."),
                    None => format!("{name} calls {next} {wait}."),
                }
            }
            MarkKind::CallAnswered => match self.lanes().get(h + 1).and_then(|l| l.answered) {
                Some(a) => format!("{name} gets {next}'s {}.", a.status),
                None => format!("{name} gets {next}'s answer."),
            },
            MarkKind::DeadlinePassed if kept_working_past_deadline(lane) => {
                format!("{name}'s deadline passes, but its work does not listen to the deadline: it keeps working.")
            }
            MarkKind::DeadlinePassed => format!("{name}'s deadline passes."),
            MarkKind::GaveUp => match lane.gave_up {
                Some((_, why)) => format!("{name} gives up on {next} ({}).", why.label()),
                None => format!("{name} gives up on {next}."),
            },
            MarkKind::FailedFast => format!("{name} has no budget left: it answers 504 without calling {next}."),
            MarkKind::CallerLeft if self.listens_for_close() => format!("{name} sees its caller hang up."),
            MarkKind::CallerLeft => format!("{name} sees its caller hang up, but nothing listens: it carries on."),
            MarkKind::Answered => match lane.answered {
                Some(a) => {
                    let caller = if h == 0 { "the user".to_string() } else { hop(h - 1).to_string() };
                    let from =
                        if a.origin != Party::Hop(h) { format!(" (from {})", a.origin.name()) } else { String::new() };
                    let nobody = if a.heard == Some(false) {
                        format!(", for nobody: {caller} had stopped waiting")
                    } else {
                        String::new()
                    };
                    format!("{name} answers {}{from} to {caller}{nobody}.", a.status)
                }
                None => format!("{name} answers."),
            },
            MarkKind::LateAnswer => format!("{name} gets {next}'s answer after it stopped waiting."),
        }
    }

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
    fn table_claim(&self, now: Micros, rows: &[Row]) -> (String, String) {
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

/// Whether the hop's work carried on past its deadline (rather than stopping because of it).
pub fn kept_working_past_deadline(lane: &Lane) -> bool {
    match (lane.deadline_passed, lane.work_start, lane.work_outcome) {
        (_, _, Some(WorkOutcome::Stopped(Reason::Deadline))) => false,
        (Some(d), Some(s), _) => s <= d && lane.work_end.is_none_or(|e| e > d),
        _ => false,
    }
}

/// Whether `t` comes after `stop` as the metrics show them (to 0.1 ms), so that a sentence
/// never calls work "for nobody" that the metrics count as none.
pub fn after_shown(stop: Micros, t: Micros) -> bool {
    ms_f(t) > ms_f(stop)
}

fn ms_of(ms: i64) -> Micros {
    ms.max(0) as Micros * MS
}

/// A time in ms as the metrics report it (to 0.1 ms).
fn ms_f(t: Micros) -> f64 {
    crate::sim::Value::num(t as f64 / 1000.0).as_f64().unwrap_or(0.0)
}

/// Why the default sweep's curves (work done for nobody against the user's budget, by mode)
/// look as they do, from the parameters.
pub fn sweep_theory(c: &super::DeadlineChainConfig, x: &str) -> Option<String> {
    (x == "user_budget_ms").then(|| {
        let timeouts = format!("A→B {}, B→C {}", format::ms(c.a_to_b_timeout_ms), format::ms(c.b_to_c_timeout_ms));
        let abort = format!("{} to abort a call", format::ms(c.abort_ms));
        let fixed = if c.listen_for_close {
            format!(
                "With fixed timeouts ({timeouts}) and every hop stopping when its caller leaves, each closed \
                 connection stops the hop below it, so the work done for nobody is the moments it takes to notice \
                 and stop ({abort})."
            )
        } else {
            let header = if c.budget_header {
                " The budget header alone shortens the waits but stops no work."
            } else {
                ""
            };
            format!(
                "With fixed timeouts ({timeouts}) every hop keeps working after its caller has left, so C's {} of \
                 work runs to its end whatever the user's budget: the work done for nobody is what runs after the \
                 user stops waiting, and it shrinks as the budget grows, until A's own timeout answers the user \
                 first.{header}",
                format::ms(c.c_work_ms)
            )
        };
        format!(
            "{fixed} With a propagated budget each hop makes the time left its deadline and stops when its caller \
             leaves, so only the moments it takes to notice and stop remain ({abort})."
        )
    })
}
