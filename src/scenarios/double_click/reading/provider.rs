//! The external-provider pattern in words: a claim and its pending order committed first, the
//! key each charge call sends the provider, what the provider does with a key it has seen, and
//! the recovery job's settlements. Each sentence is said only when its record shows it.

use super::words::{key_name, money, when};
use crate::format;
use crate::scenarios::double_click::facts::{DoubleClickFacts, RecoverySettled};
use crate::scenarios::double_click::model::{DoubleClick, LedgerCharge, ProviderCallKey, ServerResult};
use crate::scenarios::double_click::spec::ProviderKey;
use crate::sim::Micros;

impl DoubleClick {
    /// The provider key of the call that made charge `id`.
    fn charge_key(&self, id: u32) -> Option<ProviderCallKey> {
        let by_request = self.server.iter().find_map(|s| match s.result {
            ServerResult::Charged { charge } if charge == id && !s.provider_replayed => s.provider_key,
            _ => None,
        });
        by_request.or_else(|| {
            self.recoveries.iter().find(|r| r.charge == Some(id) && r.new_charge).map(|r| r.provider_key)
        })
    }

    /// The latest charge before charge `id` made with the same provider key: the key's earlier
    /// use, which the provider had forgotten when it charged `id`.
    fn earlier_use(&self, id: u32, key: ProviderCallKey) -> Option<&LedgerCharge> {
        self.ledger.iter().rev().find(|c| c.id < id && self.charge_key(c.id) == Some(key))
    }

    /// The provider's key window, in whole hours or minutes where it is one ("24 h").
    fn window(&self) -> String {
        let w = self.config.provider_key_window_ms;
        let (hour, minute) = (3_600_000.0, 60_000.0);
        if w >= hour && w % hour == 0.0 {
            format!("{} h", format::number(w / hour))
        } else if w >= minute && w % minute == 0.0 {
            format!("{} min", format::number(w / minute))
        } else {
            format::ms(w)
        }
    }

    /// Why the provider charged anew for a call with `key` that made charge `id`.
    fn why_charged(&self, id: u32, key: ProviderCallKey, at: Micros) -> String {
        match (key, self.forgotten(id, key, at)) {
            (_, Some(forgotten)) => format!(": {forgotten}"),
            (ProviderCallKey::Fresh(_), _) => {
                format!(" with a fresh key, {}, that the provider has never seen", key.label())
            }
            _ => format!(" with key {}", key.label()),
        }
    }

    /// When charge `id` reused a key the provider had charged with before, past its window.
    fn forgotten(&self, id: u32, key: ProviderCallKey, at: Micros) -> Option<String> {
        self.earlier_use(id, key).map(|first| {
            format!(
                "its key {} charged ch_{} {} ago, past the provider's {} key window, so the provider charges again",
                key.label(),
                first.id,
                when(at - first.at),
                self.window()
            )
        })
    }

    /// For a request's charge: the provider charged again for a key past its window.
    pub(super) fn forgotten_key_text(&self, c: &LedgerCharge) -> Option<String> {
        let key = self.charge_key(c.id)?;
        self.forgotten(c.id, key, c.at).map(|f| {
            let mut f = f;
            if let Some(first) = f.get_mut(0..1) {
                first.make_ascii_uppercase();
            }
            format!(" {f}.")
        })
    }

    /// A charge the recovery job's call made.
    pub(super) fn recovery_charge_text(&self, n: usize, c: &LedgerCharge) -> String {
        let why = self.charge_key(c.id).map_or(String::new(), |k| self.why_charged(c.id, k, c.at));
        let again = if n == 0 {
            format!("the card is charged {}", money(c.amount_cents))
        } else {
            format!("the card is charged {} again, {} charges for one purchase", money(c.amount_cents), n + 1)
        };
        format!("The provider charges ch_{} for the recovery job's call{why}: {again}.", c.id)
    }

    /// What the provider answers a call whose key it has seen within its window.
    fn provider_replay_text(&self, who: &str, key: ProviderCallKey, charge: u32, at: Micros) -> String {
        let ago = self.ledger.get(charge as usize - 1).map_or(0, |c| at - c.at);
        format!(
            "The provider has seen key {} (ch_{charge}, {} ago, within its {} key window): it returns ch_{charge} \
             to {who} and takes no money.",
            key.label(),
            when(ago),
            self.window()
        )
    }

    pub(super) fn provider_happenings(&self, push: &mut impl FnMut(Micros, (u8, usize), &'static str, String)) {
        let derived = self.config.provider_key == ProviderKey::Derived;
        for s in &self.server {
            let a = s.attempt;
            let key = self.attempts[a].key.map(key_name).unwrap_or_default();
            if let Some(c) = s.claim_committed {
                push(
                    c,
                    (3, a * 8 + 2),
                    "Server",
                    format!(
                        "The claim on key {key} and its pending order commit, {} after the claim: the server calls \
                         the provider.",
                        when(c - s.arrived)
                    ),
                );
            }
            if let (true, None, Some(end)) = (s.claim_held, s.claim_committed, s.end) {
                let what = match s.result {
                    ServerResult::Replayed { charge } => format!("replays ch_{charge}"),
                    ServerResult::Rejected => "answers 422".to_string(),
                    _ => "answers 409".to_string(),
                };
                push(
                    end,
                    (3, a * 8 + 2),
                    "Server",
                    format!(
                        "An earlier request whose claim on key {key} had expired finished first and recorded the key \
                         over this claim: when the claim's transaction ends, the server reads the key and {what}."
                    ),
                );
            }
            let (Some(pk), Some(end), ServerResult::Charged { charge }) = (s.provider_key, s.end, s.result) else {
                continue;
            };
            if s.provider_replayed {
                let who = format!("{}'s call", self.attempt_name(a));
                push(end, (3, a * 8 + 2), "Provider", self.provider_replay_text(&who, pk, charge, end));
            } else if derived {
                push(
                    end,
                    (3, a * 8 + 1),
                    "Provider",
                    format!("The server's call sends the provider key {}, derived from the order's record.", pk.label()),
                );
            }
        }
        for r in &self.recoveries {
            let s = self.ledger.iter().find(|c| Some(c.id) == r.charge).map_or(0, |c| c.server);
            let order = (3, self.server.get(s).map_or(0, |x| x.attempt) * 8 + 5);
            let with = match r.provider_key {
                ProviderCallKey::Fresh(_) => format!("a fresh key, {}", r.provider_key.label()),
                k => format!("the order's own key, {}", k.label()),
            };
            push(
                r.start,
                order,
                "Recovery",
                format!(
                    "The recovery job finds key {}'s order still pending, {} after it committed, and calls the \
                     provider with {with}.",
                    key_name(r.key),
                    when(r.start - r.pending_since)
                ),
            );
            let (Some(end), Some(charge)) = (r.end, r.charge) else { continue };
            if !r.new_charge {
                push(end, order, "Provider", self.provider_replay_text("the recovery job", r.provider_key, charge, end));
            }
            push(
                end,
                (3, order.1 + 2),
                "Recovery",
                format!(
                    "The recovery job records ch_{charge} and marks key {}'s order done: a request with the key now \
                     gets ch_{charge} replayed.",
                    key_name(r.key)
                ),
            );
        }
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
