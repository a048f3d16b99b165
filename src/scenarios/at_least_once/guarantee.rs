//! The guarantee a run shows, named as the chapter's table names it: the `guarantee` metric
//! and the table's last column.

/// What a run showed, named as the chapter's table names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Guarantee {
    /// Nothing lost, nothing credited twice.
    EffectivelyOnce,
    /// Nothing lost or credited twice, but events wait uncredited in the dead-letter queue.
    Parked,
    /// Events lost, none credited twice.
    AtMostOnce,
    /// Events credited twice, none lost.
    AtLeastOnce,
    /// Both lost and credited twice.
    Neither,
}

impl Guarantee {
    pub fn id(self) -> &'static str {
        match self {
            Guarantee::EffectivelyOnce => "effectively-once",
            Guarantee::Parked => "parked",
            Guarantee::AtMostOnce => "at-most-once",
            Guarantee::AtLeastOnce => "at-least-once",
            Guarantee::Neither => "neither",
        }
    }

    /// As the table's last column says it.
    pub fn label(self) -> &'static str {
        match self {
            Guarantee::EffectivelyOnce => "Effectively once",
            Guarantee::Parked => "Parked: none lost or twice, some waiting in the dead-letter queue",
            Guarantee::AtMostOnce => "At-most-once: loses work",
            Guarantee::AtLeastOnce => "At-least-once: duplicates work",
            Guarantee::Neither => "Neither: loses and duplicates work",
        }
    }

    /// Dead-lettered events are parked, not lost: a person looks at them and re-drives them.
    pub(super) fn of(lost: u64, duplicated: u64, parked: u64) -> Self {
        match (lost > 0, duplicated > 0) {
            (false, false) if parked > 0 => Guarantee::Parked,
            (false, false) => Guarantee::EffectivelyOnce,
            (true, false) => Guarantee::AtMostOnce,
            (false, true) => Guarantee::AtLeastOnce,
            (true, true) => Guarantee::Neither,
        }
    }
}
