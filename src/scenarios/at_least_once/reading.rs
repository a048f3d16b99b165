//! What an at-least-once run means, in words: which guarantee it shows and why, and its row of
//! the chapter's order-of-operations table. Every number is the run's own (the tests check each
//! claim against the metrics over random parameters).
//!
//! Keys: `guarantee` (the guarantee's id, as the `guarantee` metric), `crash_in_the_middle`
//! (this run's cell of the table's middle column), `answer` (why the ledger came out as it did).

use super::chapter::{CHAPTER_TABLE, ChapterRow, RunRow};
use super::guarantee::Guarantee;
use super::model::{AtLeastOnce, Cause, EventRecord, Fates};
use super::spec::{AtLeastOnceConfig, DedupeOn, Order};
use crate::format;
use crate::sim::Explain;
use crate::sim::Micros;

crate::words! {
    /// What an at-least-once run means, in words (the keys above).
    pub struct AtLeastOnceWords {
        pub guarantee: String,
        pub crash_in_the_middle: String,
        pub answer: String,
    }
}

impl Explain for AtLeastOnce {
    type Words = AtLeastOnceWords;

    fn words(&self, now: Micros) -> AtLeastOnceWords {
        self.words_at(now)
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
        RunRow {
            order: self.config.order,
            crash_in_the_middle: self.middle_cell(),
            guarantee: self.guarantee(),
            tested: self.crashes_between > 0,
        }
    }

    pub(super) fn words_at(&self, now: Micros) -> AtLeastOnceWords {
        let mut answer = vec![self.outcome()];
        answer.extend(self.crash_sentence());
        answer.extend(self.untested_sentence());
        answer.extend(self.dead_letter_sentence());
        answer.extend(self.long_job_sentence());
        answer.extend(self.republish_sentence());
        answer.extend(self.late_sentence());
        answer.extend(self.pending_sentence(now));
        answer.extend(self.processed_messages_sentence());
        AtLeastOnceWords {
            guarantee: self.guarantee().id().to_string(),
            crash_in_the_middle: self.middle_cell(),
            answer: answer.join(" "),
        }
    }

    /// The two steps that matter, in order, as the reading names them.
    fn steps_that_matter(&self) -> (&'static str, &'static str) {
        match self.config.order {
            Order::AckThenProcess => ("the ack", "the credit"),
            Order::ProcessThenAck => ("the credit", "the ack"),
            Order::TxnDedupe => ("the commit", "the ack"),
        }
    }

    fn middle_cell(&self) -> String {
        let n = self.crashes_between;
        if n == 0 {
            return "No crash fell in the middle in this run".into();
        }
        let crashes = format::counted(n, "crash", "crashes");
        match self.config.order {
            Order::AckThenProcess => {
                format!("{crashes} after the ack: {} gone, never credited", events(self.lost_after_ack()))
            }
            Order::ProcessThenAck => format!(
                "{crashes} after the credit: the message came back and {} credited again",
                events_were(self.duplicated_among(EventRecord::crashed_in_middle))
            ),
            Order::TxnDedupe => {
                format!("{crashes} after the commit: the message came back, {}", self.middle_consequence())
            }
        }
    }

    /// Which guarantee, in numbers.
    fn outcome(&self) -> String {
        let Fates { lost, duplicated, once, dead_lettered, .. } = self.fates();
        let settled = self.settled_at.is_some();
        let so_far = if settled { "" } else { " so far" };
        let ledger = self.ledger_phrase();
        match self.guarantee() {
            Guarantee::EffectivelyOnce if settled => format!(
                "Effectively once: all {} were credited exactly once, and {ledger}.",
                events(self.config.messages as u64)
            ),
            Guarantee::EffectivelyOnce => {
                format!("Effectively once so far: {} credited exactly once, none lost, none twice.", events(once))
            }
            Guarantee::Parked => format!(
                "Nothing lost, nothing credited twice{so_far}, but {} never credited: {} in the dead-letter queue; \
                 {ledger}.",
                events_were(dead_lettered),
                if dead_lettered == 1 { "it waits" } else { "they wait" }
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
        let difference = self.ledger - self.expected;
        match difference {
            0 => format!("the ledger matches ({})", dollars(self.ledger)),
            d if d > 0 => format!("the ledger is {} over", dollars(d)),
            d => format!("the ledger is {} short", dollars(-d)),
        }
    }

    /// Where the crashes fell, and what that did in this order.
    /// A result better than the chapter's for this order, with no crash in the middle to test it.
    fn untested_sentence(&self) -> Option<String> {
        if self.run_row().judged() {
            return None;
        }
        let (first, second) = self.steps_that_matter();
        let chapter = self.chapter_row().guarantee.label();
        let so_far = if self.settled_at.is_some() { "" } else { " so far" };
        Some(format!(
            "No crash fell between {first} and {second}{so_far}, so nothing tested this order; the chapter's table \
             gives it: {chapter}."
        ))
    }

    fn crash_sentence(&self) -> Option<String> {
        let all = self.crashes;
        if all == 0 {
            return None;
        }
        let between = self.crashes_between;
        let before = all - between;
        let (first, second) = self.steps_that_matter();
        let lease = format::duration_ms(self.config.visibility_timeout_ms);
        // The count is of crashes, not consumers: a consumer restarts and may crash again.
        let head = format!(
            "Consumers crashed {} mid-message: {} before {first}, {} after it and before {second}.",
            format::counted(all, "time", "times"),
            format::count(before),
            format::count(between)
        );
        let middle = match self.config.order {
            Order::AckThenProcess => format!(
                " A crash after the ack leaves nothing to redeliver: the broker had deleted the message, so {} never credited.",
                events_were(self.lost_after_ack())
            ),
            Order::ProcessThenAck => format!(
                " A crash after the credit leaves the message unacked: the broker redelivered it, and {} credited again.",
                events_were(self.duplicated_among(EventRecord::crashed_in_middle))
            ),
            Order::TxnDedupe => format!(
                " A crash after the commit leaves the message unacked: it came back and the dedupe store looked up its ID: {}.",
                self.middle_consequence()
            ),
        };
        // Before the first step that matters a crash credits nothing; with a dead-letter queue
        // it still uses up one of the message's allowed deliveries.
        let early = if self.totals.dead_lettered > 0 {
            format!(
                " A crash before {first} credited nothing: the message came back after the {lease} visibility timeout, \
                 and each crash used up one of its allowed deliveries."
            )
        } else {
            format!(" A crash before {first} changed nothing: the message came back after the {lease} visibility timeout.")
        };
        Some(head + if between > 0 { middle.as_str() } else { "" } + if before > 0 { early.as_str() } else { "" })
    }

    fn dead_letter_sentence(&self) -> Option<String> {
        let dead = self.totals.dead_lettered;
        (dead > 0).then(|| {
            let head = format!(
                "{} delivered {} without an ack went to the dead-letter queue, parked to be looked at, not lost.",
                format::counted(dead, "message", "messages"),
                format::counted(self.config.max_deliveries as u64, "time", "times")
            );
            let parked = self.fates().dead_lettered;
            let waiting = if parked > 0 {
                format!(" {} never credited, and {} there.", events_were(parked), format::plural(parked, "waits", "wait"))
            } else {
                String::new()
            };
            let redriven = if self.redriven > 0 {
                let consequence = self.consequence(EventRecord::redriven, Cause::Redriven, "they ran");
                format!(
                    " {} re-driven {} later as new messages, with new delivery IDs, and {consequence}.",
                    format::counted(self.redriven, "message was", "messages were"),
                    format::span_ms(self.config.redrive_after_ms)
                )
            } else {
                String::new()
            };
            head + &redriven + &waiting
        })
    }

    /// Leases that ran out under running jobs, or the renewals that kept them.
    fn long_job_sentence(&self) -> Option<String> {
        let lease = format::duration_ms(self.config.visibility_timeout_ms);
        let outlived = self.leases_outlived;
        if outlived == 0 {
            return (self.lease_renewals > 0).then(|| {
                format!(
                    "Consumers renewed their leases {} while working, so no lease ran out under a running job.",
                    format::counted(self.lease_renewals, "time", "times")
                )
            });
        }
        let consequence = self.consequence(
            EventRecord::lease_outlived,
            Cause::LeaseOutlived,
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
            let why = match (self.config.order, self.config.dedupe_on) {
                (Order::TxnDedupe, DedupeOn::EventId) => "the dedupe store keys on the event ID, which they share",
                (Order::TxnDedupe, DedupeOn::DeliveryId) => {
                    "the dedupe store keys on the broker's delivery ID, which is new for each"
                }
                _ => "nothing dedupes in this order",
            };
            let consequence = self.consequence(EventRecord::republished, Cause::Republished, "the copies ran");
            format!("The outbox republished {} under new delivery IDs; {why}, and {consequence}.", events(n))
        })
    }

    fn late_sentence(&self) -> Option<String> {
        let n = self.late_redeliveries;
        (n > 0).then(|| {
            let after = format::span_ms(self.config.redelivery_after_ms);
            let why = if self.config.order == Order::TxnDedupe {
                let window = format::span_ms(self.config.dedupe_window_ms);
                if self.config.dedupe_window_ms > self.config.redelivery_after_ms {
                    format!("the dedupe window ({window}) outlasts that")
                } else {
                    format!("the dedupe store keeps IDs for {window} only")
                }
            } else {
                "nothing dedupes in this order".to_string()
            };
            let consequence = self.late_consequence(n);
            format!(
                "The broker delivered {} again {after} after {}; {why}, and {consequence}.",
                format::counted(n, "message", "messages"),
                if n == 1 { "its ack" } else { "their acks" }
            )
        })
    }

    /// What the late copies did, told by event: a late copy whose consumer crashed before the
    /// commit is skipped when it comes back, under the crash, so a count of deliveries skipped
    /// as late would come up short of the copies.
    fn late_consequence(&self, copies: u64) -> String {
        match self.duplicated_among(EventRecord::redelivered_late) {
            0 if copies == 1 => "its event was not credited twice".to_string(),
            0 => "no event of theirs was credited twice".to_string(),
            d => format!("{} credited more than once", events_were(d)),
        }
    }

    /// What the extra copies did: the events `pick` selects credited more than once, and the
    /// deliveries that arrived for `cause` skipped by the dedupe store.
    fn consequence(&self, pick: fn(&EventRecord) -> bool, cause: Cause, otherwise: &str) -> String {
        let duplicated = self.duplicated_among(pick);
        let skipped = self.skipped.get(cause);
        match (duplicated, skipped) {
            (0, 0) => otherwise.to_string(),
            (_, 0) => format!("{} credited more than once", events_were(duplicated)),
            (0, _) => format!("{} skipped", deliveries_were(skipped)),
            _ => {
                format!("{} skipped, but {} credited more than once", deliveries_were(skipped), events_were(duplicated))
            }
        }
    }

    /// What the messages that came back after a crash in the middle did (with a dedupe store),
    /// and why any got through: the store had forgotten the ID by then.
    fn middle_consequence(&self) -> String {
        let what =
            self.consequence(EventRecord::crashed_in_middle, Cause::AfterMiddleCrash, "none came back within the run");
        if self.duplicated_among(EventRecord::crashed_in_middle) == 0 {
            return what;
        }
        // A redelivery after the crash is credited again only once the store forgot its ID;
        // otherwise the second credit came through another copy (republished, late, redriven).
        if self.extra_credits_by_cause().get(Cause::AfterMiddleCrash) > 0 {
            format!("{what} (the store keeps IDs for {} only)", format::span_ms(self.config.dedupe_window_ms))
        } else {
            format!("{what}, through another copy of the event, not the redelivery")
        }
    }

    /// Chapter 2, Break 3's answer, when this run shows it: the event ID recorded in the
    /// ledger's own transaction, the ack after the commit, and every copy that came back
    /// skipped (none lost, none credited twice).
    fn processed_messages_sentence(&self) -> Option<String> {
        let skipped = self.skipped.total();
        let Fates { lost, duplicated, .. } = self.fates();
        let shows = self.config.order == Order::TxnDedupe
            && self.config.dedupe_on == DedupeOn::EventId
            && skipped > 0
            && lost == 0
            && duplicated == 0;
        shows.then(|| {
            format!(
                "The consumer recorded each event ID in processed_messages in the same transaction as the ledger \
                 insert and acked only after the commit: {} the queue delivered again found the ID and did nothing, \
                 so no event was credited twice, and none was lost.",
                format::counted(skipped, "copy", "copies")
            )
        })
    }

    fn pending_sentence(&self, now: Micros) -> Option<String> {
        let pending = self.fates().pending;
        (pending > 0).then(|| {
            let when = if now >= self.end { "when the run ended" } else { "yet" };
            format!(
                "{} not settled {when}: not published, or a copy still in the broker, the outbox or a consumer.",
                events_were(pending)
            )
        })
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
