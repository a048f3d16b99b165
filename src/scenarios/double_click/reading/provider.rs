//! The server's, the provider's, the recovery job's and the card's events in words, each from
//! its typed event only: a claim and its pending order committed first, the key each charge
//! call sends the provider, what the provider does with a key it has seen, and the recovery
//! job's settlements.

use super::words::{attempt_name, key_name, money, when};
use crate::format;
use crate::scenarios::double_click::facts::{DoubleClickFacts, RecoverySettled};
use crate::scenarios::double_click::log::{
    AfterOverwrite, Forgotten, Received, RecoveryChargeWhy, ReplayedTo, RolledClaim, WaitEnd,
};
use crate::scenarios::double_click::model::ProviderCallKey;
use crate::sim::Micros;

/// The provider's key window, in whole hours or minutes where it is one ("24 h").
fn window(w: f64) -> String {
    let (hour, minute) = (3_600_000.0, 60_000.0);
    if w >= hour && w % hour == 0.0 {
        format!("{} h", format::number(w / hour))
    } else if w >= minute && w % minute == 0.0 {
        format!("{} min", format::number(w / minute))
    } else {
        format::ms(w)
    }
}

/// "its key charge-k1 charged ch_1 3,000 ms ago, past the provider's 2,000 ms key window, so
/// the provider charges again".
fn forgotten_text(f: Forgotten) -> String {
    format!(
        "its key {} charged ch_{} {} ago, past the provider's {} key window, so the provider charges again",
        f.key.label(),
        f.first_charge,
        when(f.ago),
        window(f.window_ms)
    )
}

/// "the card is charged $49.00", or "… again, 2 charges for one purchase".
fn charged_text(cents: u32, nth: usize) -> String {
    if nth == 1 {
        format!("the card is charged {}", money(cents))
    } else {
        format!("the card is charged {} again, {nth} charges for one purchase", money(cents))
    }
}

/// A key as a server event names it ("?" for a request without one).
pub(super) fn server_key(key: Option<u32>) -> String {
    key.map(key_name).unwrap_or_else(|| "?".to_string())
}

/// A request's claim row, read-then-insert.
pub(super) fn claim_row_text(key: Option<u32>, gap: Micros) -> String {
    format!(
        "The server inserts a claim row for key {}, {} after looking it up; the table has no unique constraint on \
         the key, so nothing stops a second row.",
        server_key(key),
        when(gap)
    )
}

pub(super) fn claim_committed_text(key: Option<u32>, after: Micros) -> String {
    format!(
        "The claim on key {} and its pending order commit, {} after the claim: the server calls the provider.",
        key.map(key_name).unwrap_or_default(),
        when(after)
    )
}

pub(super) fn claim_overwritten_text(key: Option<u32>, then: AfterOverwrite) -> String {
    let what = match then {
        AfterOverwrite::Replays { charge } => format!("replays ch_{charge}"),
        AfterOverwrite::Answers422 => "answers 422".to_string(),
        AfterOverwrite::Answers409 => "answers 409".to_string(),
    };
    format!(
        "An earlier request whose claim on key {} had expired finished first and recorded the key over this claim: \
         when the claim's transaction ends, the server reads the key and {what}.",
        key.map(key_name).unwrap_or_default()
    )
}

pub(super) fn provider_replayed_text(to: ReplayedTo, key: ProviderCallKey, charge: u32, ago: Micros, window_ms: f64) -> String {
    let who = match to {
        ReplayedTo::Attempt(a) => format!("{}'s call", attempt_name(a)),
        ReplayedTo::RecoveryJob => "the recovery job".to_string(),
    };
    format!(
        "The provider has seen key {} (ch_{charge}, {} ago, within its {} key window): it returns ch_{charge} to \
         {who} and takes no money.",
        key.label(),
        when(ago),
        window(window_ms)
    )
}

pub(super) fn derived_key_text(key: ProviderCallKey) -> String {
    format!("The server's call sends the provider key {}, derived from the order's record.", key.label())
}

pub(super) fn recovery_calls_text(key: u32, pending_for: Micros, with: ProviderCallKey) -> String {
    let with = match with {
        ProviderCallKey::Fresh(_) => format!("a fresh key, {}", with.label()),
        k => format!("the order's own key, {}", k.label()),
    };
    format!(
        "The recovery job finds key {}'s order still pending, {} after it committed, and calls the provider with \
         {with}.",
        key_name(key),
        when(pending_for)
    )
}

pub(super) fn recovery_records_text(key: u32, charge: u32) -> String {
    format!(
        "The recovery job records ch_{charge} and marks key {}'s order done: a request with the key now gets \
         ch_{charge} replayed.",
        key_name(key)
    )
}

pub(super) fn charged_by_request_text(charge: u32, cents: u32, nth: usize, forgotten: Option<Forgotten>, worker_dies: bool) -> String {
    let mut text = format!("The server commits ch_{charge}: {}.", charged_text(cents, nth));
    if let Some(f) = forgotten {
        let mut f = forgotten_text(f);
        if let Some(first) = f.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        text.push_str(&format!(" {f}."));
    }
    if worker_dies {
        text.push_str(" Its worker dies before it can answer.");
    }
    text
}

pub(super) fn rolled_back_text(charge: u32, cents: u32, nth: usize, claim: Option<RolledClaim>) -> String {
    let claim = match claim {
        Some(RolledClaim::Lost(k)) => format!(", and key {}'s claim goes with it", key_name(k)),
        Some(RolledClaim::Kept(k)) => format!(" (key {}'s claim, committed before, stays 'processing')", key_name(k)),
        None => String::new(),
    };
    format!(
        "The provider charges ch_{charge}: {}. Then an error rolls the server's transaction back{claim}; the money \
         stays taken. The server answers 500.",
        charged_text(cents, nth)
    )
}

pub(super) fn charged_by_recovery_text(charge: u32, cents: u32, nth: usize, why: Option<RecoveryChargeWhy>) -> String {
    let why = match why {
        None => String::new(),
        Some(RecoveryChargeWhy::Forgotten(f)) => format!(": {}", forgotten_text(f)),
        Some(RecoveryChargeWhy::FreshKey(k)) => format!(" with a fresh key, {}, that the provider has never seen", k.label()),
        Some(RecoveryChargeWhy::Key(k)) => format!(" with key {}", k.label()),
    };
    format!("The provider charges ch_{charge} for the recovery job's call{why}: {}.", charged_text(cents, nth))
}

pub(super) fn received_text(name: &str, key: &str, how: Received) -> String {
    match how {
        Received::WaitsForClaim => format!(
            "The server receives {name}: its INSERT … ON CONFLICT on key {key} meets the claim of a transaction that \
             has not committed, and waits for it."
        ),
        Received::FindsNothing => {
            format!("The server receives {name}, looks up key {key}, finds nothing, and starts charging the card.")
        }
        Received::ClaimsPending { hold } => format!(
            "The server receives {name}, claims key {key} and records the order pending, in a transaction it holds \
             open {} before committing.",
            when(hold)
        ),
        Received::ClaimsAndChargesHeld { hold } => format!(
            "The server receives {name}, claims key {key}, and starts charging the card; its transaction, with the \
             claim, stays open at least {}.",
            when(hold)
        ),
        Received::ClaimsAndCharges => {
            format!("The server receives {name}, claims key {key}, and starts charging the card.")
        }
        Received::Charges => format!("The server receives {name} and starts charging the card."),
        Received::KeyProcessing => {
            format!("The server receives {name}: key {key} is marked processing (claimed, not done). It answers 409.")
        }
        Received::KeyDone { charge } => format!(
            "The server receives {name}: key {key} is done. It replays the stored answer, 200 with ch_{charge}, and \
             charges nothing."
        ),
        Received::OtherAmount { first_cents, cents } => format!(
            "The server receives {name}: key {key} was first used for {}, this request says {}. It answers 422.",
            money(first_cents),
            money(cents)
        ),
    }
}

pub(super) fn wait_ended_text(name: &str, key: &str, waited: &str, how: WaitEnd) -> String {
    match how {
        WaitEnd::Replayed { charge } => format!(
            "The transaction holding key {key} commits: {name}'s insert, after waiting {waited}, gets no row, reads \
             the key done, and replays the stored answer, 200 with ch_{charge}."
        ),
        WaitEnd::OtherAmount { first_cents, cents } => format!(
            "The transaction holding key {key} commits: {name}, after waiting {waited}, reads that the key was used \
             for {}, not {}. It answers 422.",
            money(first_cents),
            money(cents)
        ),
        WaitEnd::OrderProcessing => format!(
            "The claim on key {key} commits with its pending order: {name}'s insert, after waiting {waited}, gets no \
             row and reads the order processing. The server answers 409."
        ),
        WaitEnd::ClaimFreed => format!(
            "The transaction holding key {key} rolls back: {name}'s insert, after waiting {waited}, gets the row. It \
             claims the key and starts charging the card."
        ),
        WaitEnd::LockTimeout => format!(
            "{name} has waited {waited} for key {key}: the lock timeout cancels its insert (SQLSTATE 55P03), and the \
             server answers 409."
        ),
    }
}

impl DoubleClickFacts {
    /// The recovery job's settlements, in a sentence (None while it has settled nothing).
    pub fn recovery(&self) -> Option<String> {
        let RecoverySettled { orders, charged_again } = self.recovery?;
        let how = if charged_again == 0 {
            "the provider recognised the order's key and charged nothing more".to_string()
        } else {
            format!("its calls charged the card {}", format::counted(charged_again, "time", "times"))
        };
        Some(format!("The recovery job settled {} still pending: {how}.", format::counted(orders, "order", "orders")))
    }
}
