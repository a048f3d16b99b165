//! What an at-least-once run means, in words: which guarantee it shows and why, and its row of
//! the chapter's order-of-operations table. The sentences are rendered from the run's facts
//! ([`AtLeastOnceFacts`]) only, so each restates what the tests check against the metrics.
//!
//! Keys: `guarantee` (the guarantee's id, as the `guarantee` metric), `crash_in_the_middle`
//! (this run's cell of the table's middle column), `answer` (why the ledger came out as it did).

use super::chapter::{CHAPTER_TABLE, ChapterRow, RunRow};
use super::facts::{AtLeastOnceFacts, Copies};
use super::guarantee::Guarantee;
use super::model::AtLeastOnce;
use super::spec::{AtLeastOnceConfig, DedupeOn, Order};
use crate::format;
use crate::sim::{Caption, Explain};
use crate::sim::Micros;
use crate::sim::scenario::Quote;
use super::spec::AtLeastOnceMetrics;

crate::words! {
    /// What an at-least-once run means, in words (the keys above).
    pub struct AtLeastOnceWords {
        pub guarantee: String,
        pub crash_in_the_middle: String,
        pub answer: String,
    }
}

impl Explain for AtLeastOnce {
    type Facts = super::AtLeastOnceFacts;
    type Words = AtLeastOnceWords;

    fn facts(&self, now: Micros) -> super::AtLeastOnceFacts {
        AtLeastOnce::facts(self, now)
    }

    fn words(&self, facts: &super::AtLeastOnceFacts) -> AtLeastOnceWords {
        self.words_at(facts)
    }

    fn caption(_config: &AtLeastOnceConfig, _words: &AtLeastOnceWords) -> Caption {
        Caption::of(super::spec::HEADLINE, AtLeastOnceWords::answer.key)
    }

    fn sweep_theory(c: &AtLeastOnceConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

impl AtLeastOnce {
    /// The chapter's row for this run's order.
    pub fn chapter_row(&self) -> ChapterRow {
        CHAPTER_TABLE[self.config.order as usize]
    }

    pub fn run_row(&self) -> RunRow {
        // The row is the same at any time past the last event; `now` only decides `ended`.
        self.facts(self.end).run_row()
    }

    pub(super) fn words_at(&self, facts: &super::AtLeastOnceFacts) -> AtLeastOnceWords {
        AtLeastOnceWords {
            guarantee: facts.guarantee.id().to_string(),
            crash_in_the_middle: facts.middle_cell(),
            answer: facts.answer(),
        }
    }
}

impl AtLeastOnceFacts {
    /// Why the ledger came out as it did: the outcome, then each fault that happened.
    pub fn answer(&self) -> String {
        let mut answer = vec![self.outcome()];
        answer.extend(self.crash_sentence());
        answer.extend(self.untested_sentence());
        answer.extend(self.dead_letter_sentence());
        answer.extend(self.long_job_sentence());
        answer.extend(self.republish_sentence());
        answer.extend(self.late_sentence());
        answer.extend(self.pending_sentence());
        answer.extend(self.processed_messages_sentence());
        answer.join(" ")
    }

    /// The two steps that matter, in order, as the reading names them.
    fn steps_that_matter(&self) -> (&'static str, &'static str) {
        match self.order {
            Order::AckThenProcess => ("the ack", "the credit"),
            Order::ProcessThenAck => ("the credit", "the ack"),
            Order::TxnDedupe => ("the commit", "the ack"),
        }
    }

    /// This run's row of the chapter's table.
    pub fn run_row(&self) -> RunRow {
        RunRow {
            order: self.order,
            crash_in_the_middle: self.middle_cell(),
            guarantee: self.guarantee,
            result: self.result_cell(),
            judged: self.judged,
            agrees: self.guarantee == self.chapter_guarantee,
        }
    }

    /// The row's result cell: the guarantee, marked untested where the row is not judged.
    fn result_cell(&self) -> String {
        if self.judged {
            return self.guarantee.label().to_string();
        }
        format!("{}, untested: no crash in the middle", self.guarantee.label())
    }

    /// This run's cell of the table's middle column.
    pub fn middle_cell(&self) -> String {
        let n = self.crashes_between;
        if n == 0 {
            return "No crash fell in the middle in this run".into();
        }
        let crashes = format::counted(n, "crash", "crashes");
        match self.order {
            Order::AckThenProcess => format!("{crashes} after the ack: {} gone, never credited", events(self.lost_after_ack)),
            Order::ProcessThenAck if self.settled => format!(
                "{crashes} after the credit: the message came back and {} credited again",
                events_were(self.after_middle_crash.duplicated)
            ),
            Order::ProcessThenAck => format!(
                "{crashes} after the credit, each leaving its message unacked; so far {} credited again",
                events_were(self.after_middle_crash.duplicated)
            ),
            Order::TxnDedupe => format!("{crashes} after the commit: the message came back, {}", self.middle_consequence()),
        }
    }

    fn so_far(&self) -> &'static str {
        if self.settled { "" } else { " so far" }
    }

    /// Which guarantee, in numbers.
    pub fn outcome(&self) -> String {
        let so_far = self.so_far();
        let ledger = self.ledger_phrase();
        let (lost, duplicated, parked) = (self.lost, self.duplicated, self.parked);
        match self.guarantee {
            Guarantee::EffectivelyOnce if self.settled => format!(
                "Effectively once: all {} were credited exactly once, and {ledger}.",
                events(self.messages)
            ),
            // Mid-run, "none twice" is of now: an event credited and not acked may be credited again.
            Guarantee::EffectivelyOnce => match self.credited_unacked {
                0 => format!("Effectively once so far: {} credited exactly once, none lost, none twice.", events(self.once)),
                n => format!(
                    "Effectively once so far: {} credited exactly once, none lost, none twice yet. {} more {} credited \
                     once, and a crash between the credit and the ack left {} unacked; this order credits every copy \
                     it processes.",
                    events(self.once),
                    format::count(n),
                    format::plural(n, "event was", "events were"),
                    format::plural(n, "its message", "their messages")
                ),
            },
            // Parked is not lost, and neither is its money: say where it is.
            Guarantee::Parked => format!(
                "Nothing lost or credited twice{so_far}, but {} never credited: {}.",
                events_were(parked),
                self.parked_shortfall()
            ),
            Guarantee::AtMostOnce => {
                format!("At-most-once{so_far}: {} lost, none credited twice; {ledger}.", events(lost))
            }
            Guarantee::AtLeastOnce => {
                format!("At-least-once{so_far}: {} credited more than once, none lost; {ledger}.", events(duplicated))
            }
            Guarantee::Neither => format!(
                "Neither guarantee{so_far}: {} lost and {} credited more than once; {ledger}.",
                events(lost),
                events(duplicated)
            ),
        }
    }

    /// The ledger against the balance every event published so far should give (mid-run,
    /// events not yet credited count as short).
    fn ledger_phrase(&self) -> String {
        match self.ledger_difference {
            0 => format!("the ledger matches ({})", dollars(self.ledger)),
            d if d > 0 => format!("the ledger is {} over", dollars(d)),
            d => format!("the ledger is {} short", dollars(-d)),
        }
    }

    /// What the ledger is short with events parked and none lost or credited twice: the parked
    /// events' amounts, which wait in the dead-letter queue, and mid-run those of the events not
    /// credited yet.
    fn parked_shortfall(&self) -> String {
        let short = dollars(-self.ledger_difference);
        let amounts = format::plural(self.parked, "its amount", "their amounts");
        match self.uncredited_usd {
            0 => format!("the ledger is {short} short, {amounts}, parked in the dead-letter queue"),
            q => format!(
                "the ledger is {short} short: {} parked in the dead-letter queue and {} not credited yet",
                dollars(self.parked_usd),
                dollars(q)
            ),
        }
    }

    /// A result better than the chapter's for this order, with no crash in the middle to test it.
    fn untested_sentence(&self) -> Option<String> {
        if self.judged {
            return None;
        }
        let (first, second) = self.steps_that_matter();
        let chapter = self.chapter_guarantee.label();
        let so_far = self.so_far();
        Some(format!(
            "No crash fell between {first} and {second}{so_far}, so nothing tested this order; the chapter's table \
             gives it: {chapter}."
        ))
    }

    /// Where the crashes fell, and what that did in this order.
    fn crash_sentence(&self) -> Option<String> {
        let all = self.crashes;
        if all == 0 {
            return None;
        }
        let between = self.crashes_between;
        let before = all - between;
        let (first, second) = self.steps_that_matter();
        let lease = format::duration_ms(self.visibility_timeout_ms);
        // The count is of crashes, not consumers: a consumer restarts and may crash again.
        let head = format!(
            "Consumers crashed {} mid-message: {} before {first}, {} after it and before {second}.",
            format::counted(all, "time", "times"),
            format::count(before),
            format::count(between)
        );
        let middle = match self.order {
            Order::AckThenProcess => format!(
                " A crash after the ack leaves nothing to redeliver: the broker had deleted the message, so {} never credited.",
                events_were(self.lost_after_ack)
            ),
            Order::ProcessThenAck if self.settled => format!(
                " A crash after the credit leaves the message unacked: the broker redelivered it, and {} credited again.",
                events_were(self.after_middle_crash.duplicated)
            ),
            // Mid-run some of those messages have not come back yet.
            Order::ProcessThenAck => format!(
                " A crash after the credit leaves the message unacked, for the broker to deliver again: so far {} \
                 credited again.",
                events_were(self.after_middle_crash.duplicated)
            ),
            Order::TxnDedupe => format!(
                " A crash after the commit leaves the message unacked: it came back and the dedupe store looked up its ID: {}.",
                self.middle_consequence()
            ),
        };
        // Before the first step that matters a crash credits nothing; with a dead-letter queue
        // it still uses up one of the message's allowed deliveries.
        let early = if self.dead_lettered > 0 {
            format!(
                " A crash before {first} credited nothing: the message came back after the {lease} visibility timeout, \
                 and each crash used up one of its allowed deliveries."
            )
        } else {
            format!(
                " A crash before {first} changed nothing: the message {} back after the {lease} visibility timeout.",
                if self.settled { "came" } else { "comes" }
            )
        };
        Some(head + if between > 0 { middle.as_str() } else { "" } + if before > 0 { early.as_str() } else { "" })
    }

    fn dead_letter_sentence(&self) -> Option<String> {
        let dead = self.dead_lettered;
        (dead > 0).then(|| {
            let head = format!(
                "{} delivered {} without an ack went to the dead-letter queue, parked to be looked at, not lost.",
                format::counted(dead, "message", "messages"),
                format::counted(self.max_deliveries, "time", "times")
            );
            let parked = self.parked;
            let waiting = if parked > 0 {
                format!(
                    " {} never credited, and {} there with {} {}.",
                    events_were(parked),
                    format::plural(parked, "waits", "wait"),
                    format::plural(parked, "its", "their"),
                    dollars(self.parked_usd)
                )
            } else {
                String::new()
            };
            let redriven = if self.redriven > 0 {
                format!(
                    " {} re-driven {} later as new messages, with new delivery IDs, and {}.",
                    format::counted(self.redriven, "message was", "messages were"),
                    format::span_ms(self.redrive_after_ms),
                    consequence(self.redriven_copies, "they ran")
                )
            } else {
                String::new()
            };
            head + &redriven + &waiting
        })
    }

    /// Leases that ran out under running jobs, or the renewals that kept them.
    fn long_job_sentence(&self) -> Option<String> {
        let lease = format::duration_ms(self.visibility_timeout_ms);
        let outlived = self.leases_outlived;
        if outlived == 0 {
            return (self.lease_renewals > 0).then(|| {
                format!(
                    "Consumers renewed their leases {} while working, so no lease ran out under a running job.",
                    format::counted(self.lease_renewals, "time", "times")
                )
            });
        }
        let consequence = consequence(
            self.outlived_copies,
            "each time the first copy's ack deleted it before a consumer took it",
        );
        Some(format!(
            "{} ran out while the job was still running (a {lease} visibility timeout): with no crash at all the \
             broker made the message visible again, and {consequence}.",
            format::counted(outlived, "lease", "leases")
        ))
    }

    fn republish_sentence(&self) -> Option<String> {
        let n = self.republished;
        (n > 0).then(|| {
            let why = match self.dedupe {
                Some(DedupeOn::EventId) => "the dedupe store keys on the event ID, which they share",
                Some(DedupeOn::DeliveryId) => "the dedupe store keys on the broker's delivery ID, which is new for each",
                None => "nothing dedupes in this order",
            };
            let consequence = consequence(self.republished_copies, "the copies ran");
            format!("The outbox republished {} under new delivery IDs; {why}, and {consequence}.", events(n))
        })
    }

    fn late_sentence(&self) -> Option<String> {
        let n = self.late_redeliveries;
        (n > 0).then(|| {
            let after = format::span_ms(self.redelivery_after_ms);
            let window = format::span_ms(self.dedupe_window_ms);
            let why = match (self.dedupe, self.window_outlasts_redelivery) {
                (None, _) => "nothing dedupes in this order".to_string(),
                (Some(_), true) => format!("the dedupe window ({window}) outlasts that"),
                (Some(_), false) => format!("the dedupe store keeps IDs for {window} only"),
            };
            format!(
                "The broker delivered {} again {after} after {}; {why}, and {}.",
                format::counted(n, "message", "messages"),
                if n == 1 { "its ack" } else { "their acks" },
                self.late_consequence()
            )
        })
    }

    /// What the late copies did, told by event: a late copy whose consumer crashed before the
    /// commit is skipped when it comes back, under the crash, so a count of deliveries skipped
    /// as late would come up short of the copies.
    fn late_consequence(&self) -> String {
        match self.late_copies.duplicated {
            0 if self.late_redeliveries == 1 => "its event was not credited twice".to_string(),
            0 => "no event of theirs was credited twice".to_string(),
            d => format!("{} credited more than once", events_were(d)),
        }
    }

    /// What the messages that came back after a crash in the middle did (with a dedupe store),
    /// and why any got through: the store had forgotten the ID by then.
    fn middle_consequence(&self) -> String {
        let what = consequence(self.after_middle_crash, "none came back within the run");
        if self.after_middle_crash.duplicated == 0 {
            return what;
        }
        // A redelivery after the crash is credited again only once the store forgot its ID;
        // otherwise the second credit came through another copy (republished, late, redriven).
        if self.middle_recredits > 0 {
            format!("{what} (the store keeps IDs for {} only)", format::span_ms(self.dedupe_window_ms))
        } else {
            format!("{what}, through another copy of the event, not the redelivery")
        }
    }

    /// Chapter 2, Break 3's answer, when this run shows it: the event ID recorded in the
    /// ledger's own transaction, the ack after the commit, and every copy that came back
    /// skipped (none lost, none credited twice).
    pub fn shows_break_3(&self) -> bool {
        self.dedupe == Some(DedupeOn::EventId) && self.skipped > 0 && self.lost == 0 && self.duplicated == 0
    }

    fn processed_messages_sentence(&self) -> Option<String> {
        self.shows_break_3().then(|| {
            format!(
                "The consumer recorded each event ID in processed_messages in the same transaction as the ledger \
                 insert and acked only after the commit: {} the queue delivered again found the ID and did nothing, \
                 so no event was credited twice, and none was lost.",
                format::counted(self.skipped, "copy", "copies")
            )
        })
    }

    fn pending_sentence(&self) -> Option<String> {
        let pending = self.pending;
        (pending > 0).then(|| {
            let when = if self.ended { "when the run ended" } else { "yet" };
            format!(
                "{} not settled {when}: not published, or a copy still in the broker, the outbox or a consumer.",
                events_were(pending)
            )
        })
    }
}

/// What the extra copies did: their events credited more than once, and their deliveries
/// skipped by the dedupe store.
fn consequence(copies: Copies, otherwise: &str) -> String {
    match (copies.duplicated, copies.skipped) {
        (0, 0) => otherwise.to_string(),
        (d, 0) => format!("{} credited more than once", events_were(d)),
        (0, s) => format!("{} skipped", deliveries_were(s)),
        (d, s) => format!("{} skipped, but {} credited more than once", deliveries_were(s), events_were(d)),
    }
}

fn events(n: u64) -> String {
    format::counted(n, "event", "events")
}

fn events_were(n: u64) -> String {
    format!("{} {}", events(n), format::plural(n, "was", "were"))
}

fn deliveries(n: u64) -> String {
    format::counted(n, "delivery", "deliveries")
}

fn deliveries_were(n: u64) -> String {
    format!("{} {}", deliveries(n), format::plural(n, "was", "were"))
}

fn dollars(amount: i64) -> String {
    format!("${}", format::group(amount))
}

/// Why the default sweep's curves (events processed exactly once against the crash rate, by
/// order of operations) look as they do, from the parameters.
pub fn sweep_theory(c: &AtLeastOnceConfig, x: &str) -> Option<String> {
    if x != AtLeastOnceConfig::crash_rate {
        return None;
    }
    let dedupe = match c.dedupe_on {
        DedupeOn::EventId => format!(
            "the producer's event ID is stored in the same transaction as the work, so a redelivered event is found \
             and skipped for as long as its record is kept ({}), and a crash costs no event",
            format::slider_value(c.dedupe_window_ms, "ms")
        ),
        DedupeOn::DeliveryId => "the ID stored is the broker's delivery ID, which is new on every redelivery, so \
                                 redeliveries are not recognised and are processed again"
            .to_string(),
    };
    Some(format!(
        "A consumer that crashes between its steps leaves an event half handled. Ack first: the ack went out and the \
         work did not, so the event is lost. Process first: the work was done and the ack was not, so the broker \
         delivers it again once the {} visibility timeout runs out, and it is processed twice. Process and record the \
         ID: {dedupe}.",
        format::slider_value(c.visibility_timeout_ms, "ms")
    ))
}

/// Which sentences quote which cards (see [`Quote`]).
/// The answer counts the events credited once, twice and never.
pub static QUOTES: &[Quote] = &[
    Quote { reading: AtLeastOnceWords::answer.key, metrics: &[AtLeastOnceMetrics::effectively_once.key(), AtLeastOnceMetrics::duplicated.key(), AtLeastOnceMetrics::lost.key()] },
];
