//! What a deadline-chain run means, in words. Every sentence is rendered from the run's facts
//! (`facts.rs`), naming at most a setting besides, so it is true of the run on screen whatever
//! the reader changed (`tests/deadline_chain_facts.rs` checks the facts against the metrics
//! over random parameters).
//!
//! Keys:
//! - `verdict`: what the user got, and what C's work was for.
//! - `answer_note`, `b_note`, `c_note`, `told_note`: a few words under the stat cards.
//! - `commit_window`: Chapter 1 Break 3's window, from the first hang-up to the end of C's
//!   work, and what C did in it (empty until someone hangs up while C works).
//! - `moments`: every moment so far, one per line, `"<time>: <what happened>"`.
//! - `table_answer`, `table_b_gives_up`, `table_c_work`, `table_c_told`: the rows of the
//!   chapter's table for the run's mode, each `"<row label>\t<this run>\t<the chapter's>"` (only
//!   the rows the chapter gives a figure for); `table_caption` names the columns' runs, and
//!   `table_claim` says how this run's column compares with the chapter's, from the cells shown.

mod moments;
mod table;
mod verdict;
mod window;
mod words;

use crate::format;
use crate::scenarios::deadline_chain::{DeadlineChain, DeadlineChainConfig, TableRow};
use crate::sim::{Caption, Explain, Micros};
use crate::sim::scenario::Quote;
use super::spec::DeadlineChainMetrics;

crate::words! {
    /// What a deadline-chain run means, in words (the keys above).
    pub struct DeadlineChainWords {
        pub verdict: String,
        pub answer_note: String,
        pub b_note: String,
        pub c_note: String,
        pub told_note: String,
        pub commit_window: String,
        pub moments: String,
        pub table_answer: Option<String>,
        pub table_b_gives_up: Option<String>,
        pub table_c_work: Option<String>,
        pub table_c_told: Option<String>,
        pub table_caption: String,
        pub table_claim: String,
    }
}

impl Explain for DeadlineChain {
    type Facts = super::DeadlineChainFacts;
    type Words = DeadlineChainWords;

    fn facts(&self, now: Micros) -> super::DeadlineChainFacts {
        DeadlineChain::facts(self, now)
    }

    fn words(&self, facts: &super::DeadlineChainFacts) -> DeadlineChainWords {
        self.words_at(facts)
    }

    fn caption(_config: &DeadlineChainConfig, _words: &DeadlineChainWords) -> Caption {
        Caption::of(super::spec::HEADLINE, DeadlineChainWords::verdict.key)
    }

    fn sweep_theory(c: &DeadlineChainConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

impl DeadlineChain {
    fn words_at(&self, facts: &super::DeadlineChainFacts) -> DeadlineChainWords {
        let row = |row: TableRow| {
            facts.table.iter().find(|l| l.row == row).map(|l| table::row_words(l, facts.finished, &self.config))
        };
        DeadlineChainWords {
            verdict: verdict::verdict(facts),
            answer_note: verdict::answer_note(facts),
            b_note: verdict::b_note(facts),
            c_note: verdict::c_note(facts),
            told_note: self.told_note(),
            commit_window: window::window_words(facts, &self.config),
            moments: moments::moments_words(&facts.moments),
            table_answer: row(TableRow::Answer),
            table_b_gives_up: row(TableRow::BGivesUp),
            table_c_work: row(TableRow::CWork),
            table_c_told: row(TableRow::CTold),
            table_caption: table::caption(&self.config),
            table_claim: table::claim(&facts.table_claim, &self.config),
        }
    }
}

/// Why the default sweep's curves (work done for nobody against the user's budget, by mode)
/// look as they do, from the parameters.
pub fn sweep_theory(c: &DeadlineChainConfig, x: &str) -> Option<String> {
    (x == DeadlineChainConfig::user_budget_ms).then(|| {
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

/// Which sentences quote which cards (see [`Quote`]).
/// The verdict quotes the user's answer and C's end; the commit window's sentence, its card.
pub static QUOTES: &[Quote] = &[
    Quote { reading: DeadlineChainWords::verdict.key, metrics: &[DeadlineChainMetrics::user_answer_ms.key(), DeadlineChainMetrics::c_end_ms.key()] },
    Quote { reading: DeadlineChainWords::commit_window.key, metrics: &[DeadlineChainMetrics::commit_window_ms.key()] },
];
