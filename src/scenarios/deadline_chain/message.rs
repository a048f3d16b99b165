//! The messages between the user and the hops: requests, answers and connection closes.

use crate::sim::Micros;

/// Who sends or receives a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Party {
    User,
    Hop(usize),
}

impl Party {
    pub fn name(self) -> &'static str {
        match self {
            Party::User => "user",
            Party::Hop(h) => ["A", "B", "C"][h],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsgKind {
    /// A call, with the budget header in propagated mode.
    Request { header_ms: Option<i64> },
    /// An answer; `origin` is the hop that produced it (a relay keeps it).
    Response { status: u16, origin: Party },
    /// The caller hung up (aborted the call or closed the browser tab).
    Close,
}

/// One message, as the page draws it: an arrow between two lanes.
#[derive(Clone, Copy, Debug)]
pub struct Message {
    pub from: Party,
    pub to: Party,
    pub kind: MsgKind,
    pub sent: Micros,
    pub delivered: Micros,
    /// For an answer: whether anyone was still waiting for it (known once delivered).
    pub heard: Option<bool>,
}
