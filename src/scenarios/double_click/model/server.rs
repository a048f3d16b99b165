//! The server's handlers for POST /charges: the key's claim (atomic, or read then insert),
//! waits on a held claim and their lock timeout, replays, and the charge's commit.

use super::super::spec::{Claim, KeyClaim, KeyStore};
use super::{AttemptOutcome, DoubleClick, Event, KeyEntry, KeyState, LedgerCharge, ServerRecord, ServerResult};
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
            waited_until: None,
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
    fn claim_commits_first(&self) -> bool {
        self.config.key_store == KeyStore::Separate || self.config.key_claim == KeyClaim::CommittedFirst
    }

    /// The key's row, if any; a "processing" claim older than its expiry is dropped first
    /// (Redis deletes a key when its PX runs out).
    fn live_entry(&mut self, key: u32, now: Micros) -> Option<KeyEntry> {
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

    fn claim_key(&mut self, key: u32, amount: u32, now: Micros) {
        let committed = self.claim_commits_first();
        self.keys.push(KeyEntry { key, amount, state: KeyState::Running, committed, claimed_at: now });
    }

    /// INSERT … ON CONFLICT DO NOTHING against the key's unique index: a row nobody has
    /// committed yet makes the insert wait for its transaction.
    fn insert_on_conflict(&mut self, q: &mut EventQueue<Event>, now: Micros, index: usize, key: u32, amount: u32) {
        match self.live_entry(key, now) {
            None => {
                self.claim_key(key, amount, now);
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
    fn answer_from_key(&mut self, q: &mut EventQueue<Event>, now: Micros, index: usize, entry: KeyEntry) {
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
        self.conflicts += 1;
        self.answer(q, now, index, (ServerResult::Conflict, AttemptOutcome::Conflict));
    }

    /// The holder committed: every insert waiting on the key gets no row, and reads it.
    fn wake_waiters(&mut self, q: &mut EventQueue<Event>, now: Micros, key: u32) {
        let Some(entry) = self.keys.iter().find(|e| e.key == key).copied() else { return };
        let woken: Vec<usize> =
            self.waiting.iter().copied().filter(|&w| self.attempts[self.server[w].attempt].key == Some(key)).collect();
        for index in woken {
            self.stop_waiting(now, index);
            self.answer_from_key(q, now, index, entry);
        }
    }

    fn start_run(&mut self, q: &mut EventQueue<Event>, request: usize) {
        self.handler_runs += 1;
        let spread = ms_to_us(self.config.handler_spread_ms * self.handler_rng.uniform());
        q.schedule_in(self.handler + spread, Event::Commit(request));
    }

    /// Read-then-insert: the key appears only now; whoever looked in between saw nothing.
    pub(super) fn late_insert(&mut self, now: Micros, request: usize) {
        let a = &self.attempts[self.server[request].attempt];
        let (Some(key), amount) = (a.key, a.amount_cents) else { return };
        if !self.keys.iter().any(|e| e.key == key) {
            self.claim_key(key, amount, now);
        }
    }

    pub(super) fn commit(&mut self, q: &mut EventQueue<Event>, now: Micros, request: usize) {
        let attempt = self.server[request].attempt;
        let a = &self.attempts[attempt];
        let (key, amount) = (a.key, a.amount_cents);
        let charge = self.ledger.len() as u32 + 1;
        self.ledger.push(LedgerCharge { id: charge, at: now, amount_cents: amount, server: request });
        let crashed = std::mem::take(&mut self.crash_pending);
        let s = &mut self.server[request];
        s.result = ServerResult::Charged { charge };
        s.end = Some(now);
        s.crashed = crashed;
        if let Some(key) = key {
            let position = self.keys.iter().position(|e| e.key == key);
            // A separate store is marked done after the charge commits: a worker that died
            // in between leaves the claim "processing". In the charge's transaction the
            // stored response committed with the charge.
            let stuck = crashed && self.config.key_store == KeyStore::Separate;
            if !stuck {
                let done = KeyEntry { key, amount, state: KeyState::Done { charge }, committed: true, claimed_at: now };
                match position {
                    Some(p) => self.keys[p] = KeyEntry { claimed_at: self.keys[p].claimed_at, ..done },
                    None => self.keys.push(done),
                }
            }
            self.wake_waiters(q, now, key);
        }
        let outcome = if crashed { AttemptOutcome::Reset } else { AttemptOutcome::Ok { charge, replayed: false } };
        q.schedule_in(self.network, Event::Reply { attempt, outcome });
    }
}
