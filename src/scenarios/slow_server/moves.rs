//! The model's recent moves that the figure's picture draws on their way: when each request was
//! sent and to which server, and when each client gave up and on which server, newest last.

use std::collections::VecDeque;

use crate::sim::Micros;

/// The most recent sends and give-ups kept: 3,000 req/s for 300 ms is 900 sends, so at every
/// rate the picture draws every one inside its window.
const MOST_RECENT: usize = 1024;

#[derive(Clone, Debug, Default)]
pub struct Moves {
    sent: VecDeque<(Micros, u8)>,
    timed_out: VecDeque<(Micros, u8)>,
}

impl Moves {
    pub(super) fn send(&mut self, at: Micros, server: u8) {
        keep(&mut self.sent, (at, server));
    }

    pub(super) fn give_up(&mut self, at: Micros, server: u8) {
        keep(&mut self.timed_out, (at, server));
    }

    /// The sends kept, oldest first: (when, to which server).
    pub fn sent(&self) -> &VecDeque<(Micros, u8)> {
        &self.sent
    }

    /// The give-ups kept, oldest first: (when, on which server).
    pub fn timed_out(&self) -> &VecDeque<(Micros, u8)> {
        &self.timed_out
    }
}

fn keep(moves: &mut VecDeque<(Micros, u8)>, item: (Micros, u8)) {
    if moves.len() == MOST_RECENT {
        moves.pop_front();
    }
    moves.push_back(item);
}
