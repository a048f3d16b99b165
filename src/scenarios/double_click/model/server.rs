//! The server's handlers for POST /charges: the key's claim (atomic, or read then insert),
//! waits on a held claim and their lock timeout, replays, and the charge's commit.

use super::super::spec::{Claim, KeyClaim, KeyStore};
use super::{AttemptOutcome, DoubleClick, Event, KeyEntry, KeyState, ProviderCallKey, ServerRecord, ServerResult};
use crate::sim::rng::ms_to_us;
use crate::sim::{EventQueue, Micros};

impl DoubleClick {
    pub(super) fn arrive(&mut self, q: &mut EventQueue<Event>, now: Micros, attempt: usize) {
        let a = &self.attempts[attempt];
        let (key, amount) = (a.key, a.amount_cents);
        let index = self.server.len();
        self.server.push(ServerRecord {
            attempt,
            arrived: now,
            end: None,
            result: ServerResult::Running,
            crashed: false,
            rolled_back: false,
            waited_until: None,
            lock_timed_out: false,
            claim_held: false,
            claim_committed: None,
            provider_key: None,
            provider_replayed: false,
        });
        let Some(key) = key else {
            self.start_run(q, index);
            return;
        };
        match self.config.claim {
            Claim::Atomic => self.insert_on_conflict(q, now, index, key, amount),
            Claim::ReadThenInsert => self.read_then_insert(q, now, index, key),
        }
    }

    /// Whether a new claim is visible to others at once: committed on its own, or in a
    /// separate store (Redis has no transaction to wait for).
    pub(in crate::scenarios::double_click) fn claim_commits_first(&self) -> bool {
        self.config.key_store == KeyStore::Separate || self.config.key_claim == KeyClaim::CommittedFirst
    }

    /// The key's row, if any; a "processing" claim older than its expiry is dropped first
    /// (Redis deletes a key when its PX runs out).
    pub(super) fn live_entry(&mut self, key: u32, now: Micros) -> Option<KeyEntry> {
        let p = self.keys.iter().position(|e| e.key == key)?;
        let e = self.keys[p];
        let expired = self.claim_ttl > 0
            && e.committed
            && e.state == KeyState::Running
            && now >= e.claimed_at + self.claim_ttl;
        if expired {
            self.keys.swap_remove(p);
            return None;
        }
        Some(e)
    }

    /// Whether the claim's own transaction is held open before it commits: a claim committed
    /// first in the database, with `claim_hold_ms` (a separate store has no transaction).
    fn claim_held_first(&self) -> bool {
        self.claim_hold > 0
            && self.config.claim == Claim::Atomic
            && self.config.key_claim == KeyClaim::CommittedFirst
            && self.config.key_store == KeyStore::SameTransaction
    }

    /// Takes the key: visible at once when it commits first (unless its transaction is held),
    /// else at the charge's commit. A claim visible as "processing" is a pending order the
    /// recovery job will look at.
    fn claim_key(&mut self, q: &mut EventQueue<Event>, holder: usize, key: u32, amount: u32, now: Micros) {
        let committed = self.claim_commits_first() && !self.claim_held_first();
        self.keys.push(KeyEntry { key, amount, state: KeyState::Running, committed, claimed_at: now, holder });
        if committed {
            self.schedule_recovery(q, key, now);
        }
    }

    /// INSERT … ON CONFLICT DO NOTHING against the key's unique index: a row nobody has
    /// committed yet makes the insert wait for its transaction.
    fn insert_on_conflict(&mut self, q: &mut EventQueue<Event>, now: Micros, index: usize, key: u32, amount: u32) {
        match self.live_entry(key, now) {
            None if self.claim_held_first() => {
                self.server[index].claim_held = true;
                self.claim_key(q, index, key, amount, now);
                q.schedule_in(self.claim_hold, Event::ClaimCommitted(index));
            }
            None => {
                self.claim_key(q, index, key, amount, now);
                self.start_run(q, index);
            }
            Some(e) if !e.committed => {
                self.server[index].result = ServerResult::Waiting;
                self.waiting.push(index);
                if self.lock_timeout > 0 {
                    q.schedule_in(self.lock_timeout, Event::LockTimeout(index));
                }
            }
            Some(e) => self.answer_from_key(q, now, index, e),
        }
    }

    /// A plain lookup sees only committed rows; the insert comes a round trip later and,
    /// with no unique constraint, never conflicts.
    fn read_then_insert(&mut self, q: &mut EventQueue<Event>, now: Micros, index: usize, key: u32) {
        match self.live_entry(key, now).filter(|e| e.committed) {
            None => {
                q.schedule_in(self.claim_gap, Event::Insert(index));
                self.start_run(q, index);
            }
            Some(e) => self.answer_from_key(q, now, index, e),
        }
    }

    /// The answer a repeat gets from a key's visible row: 422 for another amount, 409 while it
    /// is processing, else the stored response replayed.
    pub(super) fn answer_from_key(&mut self, q: &mut EventQueue<Event>, now: Micros, index: usize, entry: KeyEntry) {
        let attempt = self.server[index].attempt;
        let answer = match entry {
            e if e.amount != self.attempts[attempt].amount_cents => {
                self.rejected += 1;
                (ServerResult::Rejected, AttemptOutcome::Rejected)
            }
            KeyEntry { state: KeyState::Running, .. } => {
                self.conflicts += 1;
                (ServerResult::Conflict, AttemptOutcome::Conflict)
            }
            KeyEntry { state: KeyState::Done { charge }, .. } => {
                self.replays += 1;
                (ServerResult::Replayed { charge }, AttemptOutcome::Ok { charge, replayed: true })
            }
        };
        self.answer(q, now, index, answer);
    }

    fn answer(&mut self, q: &mut EventQueue<Event>, now: Micros, index: usize, (result, outcome): (ServerResult, AttemptOutcome)) {
        let s = &mut self.server[index];
        s.result = result;
        s.end = Some(now);
        q.schedule_in(self.network, Event::Reply { attempt: s.attempt, outcome });
    }

    /// Ends a request's wait on a held claim.
    fn stop_waiting(&mut self, now: Micros, index: usize) {
        self.waiting.retain(|&w| w != index);
        let s = &mut self.server[index];
        s.waited_until = Some(now);
        self.longest_claim_wait = self.longest_claim_wait.max(now - s.arrived);
    }

    /// Postgres cancels the waiting statement (SQLSTATE 55P03); the server answers 409.
    pub(super) fn lock_timeout_fires(&mut self, q: &mut EventQueue<Event>, now: Micros, index: usize) {
        if self.server[index].result != ServerResult::Waiting {
            return; // the holder committed first
        }
        self.stop_waiting(now, index);
        self.server[index].lock_timed_out = true;
        self.conflicts += 1;
        self.answer(q, now, index, (ServerResult::Conflict, AttemptOutcome::Conflict));
    }

    /// The holder committed: every insert waiting on the key gets no row, and reads it.
    pub(super) fn wake_waiters(&mut self, q: &mut EventQueue<Event>, now: Micros, key: u32) {
        let Some(entry) = self.keys.iter().find(|e| e.key == key).copied() else { return };
        let woken: Vec<usize> =
            self.waiting.iter().copied().filter(|&w| self.attempts[self.server[w].attempt].key == Some(key)).collect();
        for index in woken {
            self.stop_waiting(now, index);
            self.answer_from_key(q, now, index, entry);
        }
    }

    /// The handler's run, from its claim (or from its claim's commit, when that is held) to the
    /// charge's commit. With the claim in the charge's transaction, the transaction is held at
    /// least `claim_hold_ms`.
    pub(super) fn start_run(&mut self, q: &mut EventQueue<Event>, request: usize) {
        self.handler_runs += 1;
        let spread = ms_to_us(self.config.handler_spread_ms * self.handler_rng.uniform());
        let keyed = self.attempts[self.server[request].attempt].key.is_some();
        let hold = if keyed && !self.claim_commits_first() { self.claim_hold } else { 0 };
        q.schedule_in((self.handler + spread).max(hold), Event::Commit(request));
    }

    /// Read-then-insert: the key appears only now; whoever looked in between saw nothing.
    pub(super) fn late_insert(&mut self, q: &mut EventQueue<Event>, now: Micros, request: usize) {
        let a = &self.attempts[self.server[request].attempt];
        let (Some(key), amount) = (a.key, a.amount_cents) else { return };
        if !self.keys.iter().any(|e| e.key == key) {
            self.claim_key(q, request, key, amount, now);
        }
    }

    pub(super) fn commit(&mut self, q: &mut EventQueue<Event>, now: Micros, request: usize) {
        let attempt = self.server[request].attempt;
        let a = &self.attempts[attempt];
        let (key, amount) = (a.key, a.amount_cents);
        let provider_key = self.provider_key_for(key.map_or(ProviderCallKey::Request(request), ProviderCallKey::Order));
        let (charge, new) = self.provider_charge(provider_key, now, amount, request, false);
        // An error after the provider call rolls the run back before any commit.
        let rolled_back = std::mem::take(&mut self.rollback_pending);
        let crashed = !rolled_back && std::mem::take(&mut self.crash_pending);
        let s = &mut self.server[request];
        s.result = ServerResult::Charged { charge };
        s.end = Some(now);
        s.crashed = crashed;
        s.rolled_back = rolled_back;
        s.provider_key = Some(provider_key);
        s.provider_replayed = !new;
        match key {
            Some(key) if rolled_back => self.roll_back_claim(q, now, request, key),
            Some(key) => self.record_done(q, now, request, key, charge),
            None => {}
        }
        let outcome = match (rolled_back, crashed) {
            (true, _) => AttemptOutcome::ServerError,
            (false, true) => AttemptOutcome::Reset,
            (false, false) => AttemptOutcome::Ok { charge, replayed: false },
        };
        q.schedule_in(self.network, Event::Reply { attempt, outcome });
    }

    /// The charge's transaction commits the key done, and wakes the requests waiting on it.
    fn record_done(&mut self, q: &mut EventQueue<Event>, now: Micros, request: usize, key: u32, charge: u32) {
        let (amount, crashed) = (self.attempts[self.server[request].attempt].amount_cents, self.server[request].crashed);
        let position = self.keys.iter().position(|e| e.key == key);
        // A claim committed first (the pending record) or kept in a separate store is
        // marked done after the charge: a worker that died in between leaves it
        // "processing". In the charge's transaction the stored response committed with
        // the charge.
        let stuck = crashed && self.claim_commits_first();
        // The recovery job may have settled the order already: its answer stands.
        let recovered = self.recoveries.iter().any(|r| r.key == key && r.end.is_some());
        let settled = recovered && position.is_some_and(|p| matches!(self.keys[p].state, KeyState::Done { .. }));
        if !stuck && !settled {
            let done = KeyEntry { key, amount, state: KeyState::Done { charge }, committed: true, claimed_at: now, holder: request };
            match position {
                Some(p) => self.keys[p] = KeyEntry { claimed_at: self.keys[p].claimed_at, ..done },
                None => self.keys.push(done),
            }
        }
        self.wake_waiters(q, now, key);
    }

    /// The run's transaction rolled back: a claim made in it goes (one committed first stays
    /// "processing", a pending order), and the first insert waiting on the key gets the row,
    /// claims it and runs; the others now wait on that one.
    fn roll_back_claim(&mut self, q: &mut EventQueue<Event>, now: Micros, request: usize, key: u32) {
        self.keys.retain(|e| e.key != key || e.holder != request || e.committed);
        let Some(next) = self.waiting.iter().copied().find(|&w| self.attempts[self.server[w].attempt].key == Some(key))
        else {
            return;
        };
        self.stop_waiting(now, next);
        self.server[next].result = ServerResult::Running;
        let amount = self.attempts[self.server[next].attempt].amount_cents;
        self.insert_on_conflict(q, now, next, key, amount);
    }
}
