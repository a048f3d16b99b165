//! Linux's schedule for an unanswered SYN, shared by the scenarios that open connections.
//!
//! From `net/ipv4/tcp_timer.c`: the first SYN waits `TCP_TIMEOUT_INIT` (1 s); on each expiry
//! `tcp_retransmit_timer` resends it and doubles the wait, `min(icsk_rto << 1, TCP_RTO_MAX)`,
//! so no wait passes 120 s. `tcp_write_timeout` gives up at the expiry after the last allowed
//! retransmission (`icsk_retransmits >= tcp_syn_retries`): SYNs at 0, 1, 3, 7, 15, 31, 63 s and
//! the give-up at 127 s with `tcp_syn_retries` = 6.

use super::{Micros, SEC};

/// `TCP_TIMEOUT_INIT`: the first SYN's wait.
const INITIAL_RTO: Micros = SEC;
/// `TCP_RTO_MAX`: no retransmission waits longer.
pub const RTO_MAX: Micros = 120 * SEC;

/// The wait after send `k` (0: the first SYN).
fn wait_after(k: u32) -> Micros {
    // 2^7 s already passes the cap, and the shift stays in range.
    (INITIAL_RTO << k.min(7)).min(RTO_MAX)
}

/// When send `k` goes out (0: the first SYN), counted from the first.
pub fn send_at(k: u32) -> Micros {
    (0..k).map(wait_after).sum()
}

/// When the kernel gives up on the connect after `syn_retries` retransmissions, counted from
/// the first SYN.
pub fn give_up(syn_retries: u32) -> Micros {
    send_at(syn_retries + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_waits_double_from_one_second() {
        let sends: Vec<Micros> = (0..7).map(|k| send_at(k) / SEC).collect();
        assert_eq!(sends, [0, 1, 3, 7, 15, 31, 63]);
        assert_eq!(give_up(6), 127 * SEC);
    }

    /// `tcp_syn_retries` goes to 12 on the pages: each wait stops at TCP_RTO_MAX (120 s), so 7
    /// retries give up at 127 + 120 = 247 s, 8 at 367 s and 12 at 847 s, the bound
    /// `tcp_model_timeout` in net/ipv4/tcp_timer.c computes too, not 2^13 − 1 = 8,191 s.
    #[test]
    fn no_wait_passes_tcp_rto_max_at_the_end_of_the_range() {
        assert_eq!([give_up(7), give_up(8), give_up(12)].map(|t| t / SEC), [247, 367, 847]);
        assert!((0..=12).all(|k| wait_after(k) <= RTO_MAX));
    }
}
