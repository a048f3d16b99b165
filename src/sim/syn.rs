//! Linux's schedule for an unanswered SYN, shared by the scenarios that open connections.
//!
//! From `net/ipv4/tcp_timer.c`: the first SYN waits `TCP_TIMEOUT_INIT` (1 s); on each expiry
//! `tcp_retransmit_timer` resends it and doubles the wait, `min(icsk_rto << 1, TCP_RTO_MAX)`,
//! so no wait passes 120 s. `tcp_write_timeout` gives up at the expiry after the last allowed
//! retransmission (`icsk_retransmits >= tcp_syn_retries`). Since Linux 6.5 the first
//! `tcp_syn_linear_timeouts` (default 4) retransmissions do not double the wait, and the same
//! number is added to the retransmissions allowed: SYNs at 0, 1, 2, 3, 4, 5, 7, 11, 19, 35,
//! 67 s and the give-up at 131 s with `tcp_syn_retries` = 6, where older kernels send at 0, 1,
//! 3, 7, 15, 31, 63 s and give up at 127 s.

use super::{Micros, SEC};

/// `TCP_TIMEOUT_INIT`: the first SYN's wait.
const INITIAL_RTO: Micros = SEC;
/// `TCP_RTO_MAX`: no retransmission waits longer.
pub const RTO_MAX: Micros = 120 * SEC;
/// `tcp_syn_linear_timeouts`' default on Linux 6.5 and later.
pub const LINEAR_TIMEOUTS: u32 = 4;

crate::choice! {
    /// Which Linux kernel retransmits the SYN.
    pub enum SynSchedule {
        Exponential = ("exponential", "Linux before 6.5",
            "Each wait doubles from 1 s (SYNs at 0, 1, 3, 7, 15 … s), none longer than 120 s: 127 s to give up \
             with tcp_syn_retries 6."),
        LinearStart = ("linear-start", "Linux 6.5 and later",
            "Four more retransmissions 1 s apart before the waits double (SYNs at 0, 1, 2, 3, 4, 5, 7, 11, 19, 35, \
             67 s): 131 s to give up with tcp_syn_retries 6."),
    }
}

impl SynSchedule {
    /// How many times the kernel resends the SYN before it gives up.
    pub fn retransmits(self, syn_retries: u32) -> u32 {
        match self {
            Self::Exponential => syn_retries,
            Self::LinearStart => syn_retries + LINEAR_TIMEOUTS,
        }
    }

    /// The wait after send `k` (0: the first SYN).
    fn wait_after(self, k: u32) -> Micros {
        let doublings = match self {
            Self::Exponential => k,
            Self::LinearStart => k.saturating_sub(LINEAR_TIMEOUTS),
        };
        // 2^7 s already passes the cap, and the shift stays in range.
        (INITIAL_RTO << doublings.min(7)).min(RTO_MAX)
    }

    /// When send `k` goes out (0: the first SYN), counted from the first.
    pub fn send_at(self, k: u32) -> Micros {
        (0..k).map(|i| self.wait_after(i)).sum()
    }

    /// When the kernel gives up on the connect, counted from the first SYN.
    pub fn give_up(self, syn_retries: u32) -> Micros {
        self.send_at(self.retransmits(syn_retries) + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seconds(s: SynSchedule, sends: u32) -> Vec<Micros> {
        (0..sends).map(|k| s.send_at(k) / SEC).collect()
    }

    #[test]
    fn before_6_5_the_waits_double_from_one_second() {
        assert_eq!(seconds(SynSchedule::Exponential, 7), [0, 1, 3, 7, 15, 31, 63]);
        assert_eq!(SynSchedule::Exponential.give_up(6), 127 * SEC);
    }

    #[test]
    fn from_6_5_four_more_retransmissions_come_a_second_apart() {
        assert_eq!(seconds(SynSchedule::LinearStart, 11), [0, 1, 2, 3, 4, 5, 7, 11, 19, 35, 67]);
        assert_eq!(SynSchedule::LinearStart.give_up(6), 131 * SEC);
    }

    /// `tcp_syn_retries` goes to 12 on the pages: each wait stops at TCP_RTO_MAX (120 s), so 7
    /// retries give up at 127 + 120 = 247 s, 8 at 367 s and 12 at 847 s, as `tcp_model_timeout`
    /// in net/ipv4/tcp_timer.c computes the same bound, not 2^13 − 1 = 8,191 s.
    #[test]
    fn no_wait_passes_tcp_rto_max_at_the_end_of_the_range() {
        let give_up = |r| SynSchedule::Exponential.give_up(r) / SEC;
        assert_eq!([give_up(7), give_up(8), give_up(12)], [247, 367, 847]);
        assert_eq!(SynSchedule::LinearStart.give_up(12), (5 + 126 + 6 * 120) * SEC);
        for s in SynSchedule::ALL {
            assert!((0..=s.retransmits(12)).all(|k| s.wait_after(k) <= RTO_MAX));
        }
    }
}
