//! The chapter's order-of-operations table, and the shape of a run's own row of it.

use super::guarantee::Guarantee;
use super::spec::Order;

/// One row of the chapter's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChapterRow {
    pub order: Order,
    /// The chapter's words for the order.
    pub order_text: &'static str,
    pub crash_in_the_middle: &'static str,
    pub guarantee: Guarantee,
}

/// The chapter's order-of-operations table, as printed.
pub const CHAPTER_TABLE: [ChapterRow; 3] = [
    ChapterRow {
        order: Order::AckThenProcess,
        order_text: "Ack, then process",
        crash_in_the_middle: "The message is gone and the work never happened",
        guarantee: Guarantee::AtMostOnce,
    },
    ChapterRow {
        order: Order::ProcessThenAck,
        order_text: "Process, then ack",
        crash_in_the_middle: "The message comes back and the work runs again",
        guarantee: Guarantee::AtLeastOnce,
    },
    ChapterRow {
        order: Order::TxnDedupe,
        order_text: "Process + record the message ID in one transaction, then ack",
        crash_in_the_middle: "The message comes back, the ID is found, it is skipped",
        guarantee: Guarantee::EffectivelyOnce,
    },
];

/// This run's row of the table, rendered from its facts (`AtLeastOnceFacts::run_row`): the
/// order, what its crashes in the middle did, and the guarantee the ledger shows (which faults
/// other than crashes can change).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunRow {
    pub order: Order,
    pub crash_in_the_middle: String,
    pub guarantee: Guarantee,
    /// The result cell: the guarantee, marked untested where no crash in the middle could have
    /// shown the order's weakness.
    pub result: String,
    /// Whether the row may be marked as agreeing or disagreeing with the chapter's: not when it
    /// shows better than the chapter's result without a crash in the middle to test the order.
    pub judged: bool,
    /// Whether it shows the chapter's guarantee for its order.
    pub agrees: bool,
}

/// Whether a run of `order` showing `guarantee` may be set against the chapter's row.
pub(super) fn judged(order: Order, guarantee: Guarantee, tested: bool) -> bool {
    let chapter = CHAPTER_TABLE[order as usize].guarantee;
    tested || guarantee != Guarantee::EffectivelyOnce || chapter == Guarantee::EffectivelyOnce
}
