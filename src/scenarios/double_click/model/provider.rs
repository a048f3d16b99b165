//! The card provider and the recovery job (Chapter 2, Part 4, "When the side effect is someone
//! else's API"): the provider charges once per key it has not seen within its key window; a
//! claim committed first leaves a pending order until its result is recorded, and the recovery
//! job settles an order still pending `recovery_after_ms` after its claim committed by calling
//! the provider with the order's key.

use super::super::spec::ProviderKey;
use super::{DoubleClick, Event, KeyEntry, KeyState, LedgerCharge, ProviderCallKey, RecoveryRecord};
use crate::sim::{EventQueue, Micros};

impl DoubleClick {
    /// The key a charge call sends: derived from the order's record, or fresh for this call.
    pub(super) fn provider_key_for(&mut self, derived: ProviderCallKey) -> ProviderCallKey {
        match self.config.provider_key {
            ProviderKey::Derived => derived,
            ProviderKey::PerAttempt => {
                let n = self.next_fresh_key;
                self.next_fresh_key += 1;
                ProviderCallKey::Fresh(n)
            }
        }
    }

    /// The provider takes a charge call with `key` at `now`: a key it charged with less than
    /// its window ago gets that charge back and takes no money; any other charges the card.
    /// Returns the charge and whether it is new.
    pub(super) fn provider_charge(
        &mut self,
        key: ProviderCallKey,
        now: Micros,
        amount: u32,
        server: usize,
        by_recovery: bool,
    ) -> (u32, bool) {
        let known = self.provider_keys.iter().position(|(k, _, _)| *k == key);
        if let Some(p) = known {
            let (_, charge, first) = self.provider_keys[p];
            if now - first < self.provider_window {
                return (charge, false);
            }
        }
        let charge = self.ledger.len() as u32 + 1;
        self.ledger.push(LedgerCharge { id: charge, at: now, amount_cents: amount, server, by_recovery });
        // Past the window the key is forgotten: this call is its first use again.
        match known {
            Some(p) => self.provider_keys[p] = (key, charge, now),
            None => self.provider_keys.push((key, charge, now)),
        }
        (charge, true)
    }

    /// A claim became visible as "processing" (a pending order): the recovery job will look at
    /// it once it has been pending `recovery_after_ms`.
    pub(super) fn schedule_recovery(&mut self, q: &mut EventQueue<Event>, key: u32, since: Micros) {
        if self.recovery_after > 0 {
            q.schedule_in(self.recovery_after, Event::Recover { key, since });
        }
    }

    /// A claim committed first and held: it commits now with its pending record; requests
    /// waiting on it read "processing" (409), and the request's charge starts.
    pub(super) fn claim_committed(&mut self, q: &mut EventQueue<Event>, now: Micros, request: usize) {
        let Some(key) = self.attempts[self.server[request].attempt].key else { return };
        let Some(p) = self.keys.iter().position(|e| e.key == key && e.holder == request && !e.committed) else {
            // An earlier holder whose claim had expired finished first and recorded the key
            // done over this claim: the request reads the key as any repeat does.
            match self.live_entry(key, now) {
                Some(e) => self.answer_from_key(q, now, request, e),
                None => self.start_run(q, request),
            }
            return;
        };
        self.keys[p] = KeyEntry { committed: true, claimed_at: now, ..self.keys[p] };
        self.server[request].claim_committed = Some(now);
        self.schedule_recovery(q, key, now);
        self.wake_waiters(q, now, key);
        self.start_run(q, request);
    }

    /// The order's claim, if it is the one committed at `since` and still pending.
    fn pending_order(&self, key: u32, since: Micros) -> Option<usize> {
        self.keys
            .iter()
            .position(|e| e.key == key && e.committed && e.claimed_at == since && e.state == KeyState::Running)
    }

    /// The recovery job finds an order still pending: it calls the provider with the order's key.
    pub(super) fn recover(&mut self, q: &mut EventQueue<Event>, now: Micros, key: u32, since: Micros) {
        if self.pending_order(key, since).is_none() {
            return; // settled by its worker, or taken over after its claim expired
        }
        let provider_key = self.provider_key_for(ProviderCallKey::Order(key));
        let index = self.recoveries.len();
        self.recoveries.push(RecoveryRecord {
            key,
            pending_since: since,
            start: now,
            provider_key,
            end: None,
            charge: None,
            new_charge: false,
        });
        q.schedule_in(self.handler, Event::RecoveryDone(index));
    }

    /// The provider answers the recovery job; the job records the charge, and the order is done:
    /// a later request with its key gets it replayed.
    pub(super) fn recovery_done(&mut self, now: Micros, index: usize) {
        let r = &self.recoveries[index];
        let (key, since, provider_key) = (r.key, r.pending_since, r.provider_key);
        let p = self.keys.iter().position(|e| e.key == key && e.claimed_at == since);
        let amount = p.map_or(0, |p| self.keys[p].amount);
        let server = p.map_or(0, |p| self.keys[p].holder);
        let (charge, new) = self.provider_charge(provider_key, now, amount, server, true);
        if new {
            self.recovery_charges += 1;
        }
        let r = &mut self.recoveries[index];
        r.end = Some(now);
        r.charge = Some(charge);
        r.new_charge = new;
        // A worker that finished meanwhile recorded its charge first: that answer stands.
        if let Some(p) = p.filter(|&p| self.keys[p].state == KeyState::Running) {
            self.keys[p].state = KeyState::Done { charge };
        }
    }

    /// Orders the recovery job will still settle: its calls in flight, and pending orders it
    /// has not reached yet.
    pub fn recoveries_due(&self, now: Micros) -> usize {
        let calling = self.recoveries.iter().filter(|r| r.end.is_none()).count();
        let waiting = if self.recovery_after == 0 {
            0
        } else {
            let looked_at = |e: &KeyEntry| self.recoveries.iter().any(|r| r.key == e.key && r.pending_since == e.claimed_at);
            self.keys
                .iter()
                .filter(|e| e.committed && e.state == KeyState::Running && !looked_at(e))
                .filter(|e| now < e.claimed_at + self.recovery_after)
                .count()
        };
        calling + waiting
    }
}
