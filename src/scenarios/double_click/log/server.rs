//! The server's, the provider's, the recovery job's and the card's events.

use super::{
    AfterOverwrite, Forgotten, Place, Push, Received, RecoveryChargeWhy, ReplayedTo, RolledClaim, UnreadAnswer, WaitEnd, What,
};
use crate::scenarios::double_click::model::{AttemptOutcome, DoubleClick, LedgerCharge, ProviderCallKey, ServerResult};
use crate::scenarios::double_click::spec::{AMOUNT_CENTS, Claim, ProviderKey};
use crate::sim::Micros;

impl DoubleClick {
    /// When the server's answer to request `s` reaches the browser (None while it has not
    /// answered).
    fn reply_at(&self, s: usize) -> Option<Micros> {
        self.server[s].end.map(|e| e + self.network)
    }

    /// What request `s` did on arrival.
    fn received(&self, s: usize) -> Received {
        let s = &self.server[s];
        let at = &self.attempts[s.attempt];
        let charging = matches!(s.result, ServerResult::Running | ServerResult::Charged { .. });
        match (s.result, at.key.is_some()) {
            (ServerResult::Waiting, _) => Received::WaitsForClaim,
            _ if s.waited_until.is_some() => Received::WaitsForClaim,
            (_, true) if charging && self.config.claim == Claim::ReadThenInsert => Received::FindsNothing,
            _ if s.claim_held => Received::ClaimsPending { hold: self.claim_hold },
            (_, true) if charging && self.claim_hold > 0 && !self.claim_commits_first() => {
                Received::ClaimsAndChargesHeld { hold: self.claim_hold }
            }
            (_, true) if charging => Received::ClaimsAndCharges,
            (_, false) if charging => Received::Charges,
            (ServerResult::Replayed { charge }, _) => Received::KeyDone { charge },
            (ServerResult::Rejected, _) => Received::OtherAmount { first_cents: self.first_cents(s.attempt), cents: at.amount_cents },
            _ => Received::KeyProcessing,
        }
    }

    /// The amount the first attempt with attempt `a`'s key paid.
    fn first_cents(&self, a: usize) -> u32 {
        let key = self.attempts[a].key;
        self.attempts.iter().find(|x| x.key == key).map_or(AMOUNT_CENTS, |x| x.amount_cents)
    }

    pub(super) fn server_happenings(&self, push: &mut Push) {
        let read_then_insert = self.config.claim == Claim::ReadThenInsert;
        for (i, s) in self.server.iter().enumerate() {
            let a = s.attempt;
            let at = &self.attempts[a];
            let attempt = self.attempt_ref(a);
            push(s.arrived, (3, a * 8 + 1), Place::Server, What::Received { attempt, key: at.key, how: self.received(i) });
            if let Some(w) = s.waited_until {
                let how = match s.result {
                    ServerResult::Replayed { charge } => WaitEnd::Replayed { charge },
                    ServerResult::Rejected => WaitEnd::OtherAmount { first_cents: self.first_cents(a), cents: at.amount_cents },
                    ServerResult::Conflict if !s.lock_timed_out => WaitEnd::OrderProcessing,
                    ServerResult::Running | ServerResult::Charged { .. } => WaitEnd::ClaimFreed,
                    _ => WaitEnd::LockTimeout,
                };
                push(w, (3, a * 8 + 2), Place::Server, What::WaitEnded { attempt, key: at.key, waited: w - s.arrived, how });
            }
            if read_then_insert
                && at.key.is_some()
                && matches!(s.result, ServerResult::Running | ServerResult::Charged { .. })
            {
                let what = What::ClaimRowInserted { key: at.key, gap: self.claim_gap };
                push(s.arrived + self.claim_gap, (3, a * 8 + 2), Place::Server, what);
            }
            // An answer that reaches a page no longer waiting for it.
            if let (Some(r), AttemptOutcome::Timeout | AttemptOutcome::Aborted, Some(gave_up_at)) =
                (self.reply_at(i), at.outcome, at.end)
            {
                let answer = match s.result {
                    ServerResult::Charged { .. } if s.crashed => UnreadAnswer::Reset,
                    ServerResult::Charged { .. } if s.rolled_back => UnreadAnswer::ServerError,
                    ServerResult::Charged { charge } => UnreadAnswer::Charged { charge },
                    ServerResult::Replayed { charge } => UnreadAnswer::Replayed { charge },
                    ServerResult::Conflict => UnreadAnswer::Conflict,
                    ServerResult::Rejected => UnreadAnswer::Rejected,
                    ServerResult::Running | ServerResult::Waiting => continue,
                };
                push(r, (3, a * 8 + 4), Place::Helper, What::AnswerUnread { attempt, answer, gave_up_at });
            }
        }
    }

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

    /// When charge `id`, made with `key` at `at`, reused a key the provider had charged with
    /// before, past its window: the latest charge before it with the same key.
    fn forgotten(&self, id: u32, key: ProviderCallKey, at: Micros) -> Option<Forgotten> {
        let first = self.ledger.iter().rev().find(|c| c.id < id && self.charge_key(c.id) == Some(key))?;
        Some(Forgotten { key, first_charge: first.id, ago: at - first.at, window_ms: self.config.provider_key_window_ms })
    }

    /// The provider returned `charge` for a call with `key` at `at`, within its window.
    fn replayed(&self, to: ReplayedTo, key: ProviderCallKey, charge: u32, at: Micros) -> What {
        let ago = self.ledger.get(charge as usize - 1).map_or(0, |c| at - c.at);
        What::ProviderReplayed { to, key, charge, ago, window_ms: self.config.provider_key_window_ms }
    }

    pub(super) fn provider_happenings(&self, push: &mut Push) {
        let derived = self.config.provider_key == ProviderKey::Derived;
        for s in &self.server {
            let a = s.attempt;
            let key = self.attempts[a].key;
            if let Some(c) = s.claim_committed {
                push(c, (3, a * 8 + 2), Place::Server, What::ClaimCommitted { key, after: c - s.arrived });
            }
            if let (true, None, Some(end)) = (s.claim_held, s.claim_committed, s.end) {
                let then = match s.result {
                    ServerResult::Replayed { charge } => AfterOverwrite::Replays { charge },
                    ServerResult::Rejected => AfterOverwrite::Answers422,
                    _ => AfterOverwrite::Answers409,
                };
                push(end, (3, a * 8 + 2), Place::Server, What::ClaimOverwritten { key, then });
            }
            let (Some(pk), Some(end), ServerResult::Charged { charge }) = (s.provider_key, s.end, s.result) else {
                continue;
            };
            if s.provider_replayed {
                let what = self.replayed(ReplayedTo::Attempt(self.attempt_ref(a)), pk, charge, end);
                push(end, (3, a * 8 + 2), Place::Provider, what);
            } else if derived {
                push(end, (3, a * 8 + 1), Place::Provider, What::DerivedKeySent { key: pk });
            }
        }
        for r in &self.recoveries {
            let s = self.ledger.iter().find(|c| Some(c.id) == r.charge).map_or(0, |c| c.server);
            let order = (3, self.server.get(s).map_or(0, |x| x.attempt) * 8 + 5);
            let calls = What::RecoveryCalls { key: r.key, pending_for: r.start - r.pending_since, with: r.provider_key };
            push(r.start, order, Place::Recovery, calls);
            let (Some(end), Some(charge)) = (r.end, r.charge) else { continue };
            if !r.new_charge {
                push(end, order, Place::Provider, self.replayed(ReplayedTo::RecoveryJob, r.provider_key, charge, end));
            }
            push(end, (3, order.1 + 2), Place::Recovery, What::RecoveryRecords { key: r.key, charge });
        }
    }

    pub(super) fn charge_happenings(&self, push: &mut Push) {
        for (n, c) in self.ledger.iter().enumerate() {
            let s = &self.server[c.server];
            let what = if c.by_recovery {
                What::RecoveryCharged { charge: c.id, cents: c.amount_cents, nth: n + 1, why: self.recovery_charge_why(c) }
            } else if s.rolled_back {
                let kept = self.claim_commits_first();
                let claim = self.attempts[s.attempt].key.map(|k| if kept { RolledClaim::Kept(k) } else { RolledClaim::Lost(k) });
                What::ChargedThenRolledBack { charge: c.id, cents: c.amount_cents, nth: n + 1, claim }
            } else {
                let forgotten = self.charge_key(c.id).and_then(|k| self.forgotten(c.id, k, c.at));
                What::Charged { charge: c.id, cents: c.amount_cents, nth: n + 1, forgotten, worker_dies: s.crashed }
            };
            let order = if c.by_recovery { (3, s.attempt * 8 + 6) } else { (3, s.attempt * 8 + 2) };
            push(c.at, order, Place::Card, what);
        }
    }

    /// Why the provider charged anew for the recovery job's call that made charge `c`.
    fn recovery_charge_why(&self, c: &LedgerCharge) -> Option<RecoveryChargeWhy> {
        let key = self.charge_key(c.id)?;
        Some(match (key, self.forgotten(c.id, key, c.at)) {
            (_, Some(forgotten)) => RecoveryChargeWhy::Forgotten(forgotten),
            (ProviderCallKey::Fresh(_), _) => RecoveryChargeWhy::FreshKey(key),
            _ => RecoveryChargeWhy::Key(key),
        })
    }
}
