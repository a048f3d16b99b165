//! The verdict: what happened in this run, and why.

use super::words::{CLOSE_TO_GIVING_UP, FLAT, all_connections, calls, count, growth_words, seconds, tenths, was};
use crate::format;
use crate::scenarios::cascade::Cascade;
use crate::scenarios::cascade::model::SHARED;
use crate::sim::Micros;

impl Cascade {
    pub(super) fn verdict(&self, now: Micros) -> String {
        if now == 0 {
            return "Nothing has happened yet: press Play, or Skip to end.".into();
        }
        let mut parts = vec![self.cause(now), self.home_sentence(now)];
        parts.extend(self.slow_sentence(now));
        parts.extend(self.pool_sentence());
        parts.push(self.checkout_sentence());
        parts.join(" ")
    }

    /// What recommendations did, and how /home waits for it.
    fn cause(&self, now: Micros) -> String {
        if self.config.home_rate <= 0.0 {
            return "No /home request arrives in this run (0 a second), so nothing calls recommendations.".into();
        }
        let stop = seconds(self.recs_stops_at);
        if self.recs_stops_at >= self.end {
            return format!(
                "Recommendations answers throughout this run: it would stop at {stop}, after the run ends at {}, so no call hangs.",
                seconds(self.end)
            );
        }
        if now <= self.recs_stops_at {
            return format!("Recommendations answers until {stop}; no call hangs yet.");
        }
        if let Some(slow) = self.recs_slow() {
            let took = format!("From {stop} recommendations takes {} to answer each call", format::duration_ms(slow as f64 / 1000.0));
            return match self.recs_timeout_us() {
                Some(t) if t < slow => {
                    format!("{took}; each /home gives up on it after {} and renders without it.", self.timeout_words())
                }
                _ => format!("{took}, and /home waits for it."),
            };
        }
        if self.config.variant.has_timeout() {
            format!(
                "Recommendations stopped answering at {stop}; each /home gives up on it after {} and renders without it.",
                self.timeout_words()
            )
        } else {
            format!("Recommendations stopped answering at {stop}, and /home waits for it without a timeout.")
        }
    }

    /// /home in flight, and why it grew or stayed flat when the reason is clear.
    fn home_sentence(&self, now: Micros) -> String {
        let (n, g) = self.home_now();
        let when = if self.load_ended() {
            format!("when the load stopped at {}", seconds(self.load_end))
        } else {
            format!("at {}", seconds(now))
        };
        let Some(g) = g else {
            return format!("/home in flight {when}: {}.", count(n));
        };
        let mut s = format!("/home in flight {when}: {}, {}.", count(n), growth_words(g));
        let stopped = self.recs_stops_at < now.min(self.load_end);
        if let Some(slow) = self.recs_slow().filter(|_| stopped && g >= FLAT) {
            s.push_str(&format!(
                " Every /home that arrived after {} waits at least {} for recommendations, so the count grows with \
                 the arrivals (Little's law: in flight = arrival rate × time in the system).",
                seconds(self.recs_stops_at),
                format::duration_ms(slow.min(self.recs_timeout_us().unwrap_or(slow)) as f64 / 1000.0)
            ));
        } else if stopped && self.recs_slow().is_none() && !self.config.variant.has_timeout() && g >= FLAT {
            s.push_str(&format!(
                " Every /home that arrived after {} is still waiting, so the count grows with the arrivals \
                 (Little's law with a wait that never ends).",
                seconds(self.recs_stops_at)
            ));
        } else if stopped && self.config.variant.has_timeout() && g.abs() < FLAT && n > 0 {
            s.push_str(&format!(
                " Each /home waits at most about {} for recommendations, so the count stops growing: in flight = \
                 arrival rate × time in the system (Little's law).",
                self.timeout_words()
            ));
        }
        s
    }

    /// Chapter 1, Break 1: a dependency that answers slowly rather than never. What its
    /// latency asks of the pool (Little's law, from the parameters), and when the shared pool
    /// filled in this run.
    fn slow_sentence(&self, now: Micros) -> Option<String> {
        let slow = self.recs_slow()?;
        if now <= self.recs_stops_at || self.config.home_rate <= 0.0 {
            return None;
        }
        let rate = self.config.home_rate;
        let wait_ms = slow.min(self.recs_timeout_us().unwrap_or(slow)) as f64 / 1000.0;
        let usual_ms = self.config.recs_ms.min(self.recs_timeout_us().map_or(f64::MAX, |t| t as f64 / 1000.0));
        let mut s = format!(
            "At {} /home a second and {} a call, Little's law asks for {} recommendations calls in flight at once \
             (arrival rate × wait) instead of about {} at its usual {}.",
            format::number(rate),
            format::duration_ms(wait_ms),
            format::number(libm::round(rate * wait_ms / 1000.0)),
            format::number(libm::round(rate * usual_ms / 1000.0)),
            format::duration_ms(usual_ms)
        );
        if let (Some(full), Some(limit)) = (self.pool_full_at(), self.shared_pool().limit)
            && full >= self.recs_stops_at
        {
            let queued = if self.shared_pool().waiting_max > 0 { ", and calls queued behind it" } else { "" };
            s += &format!(
                " The shared pool of {} filled {} after the slowdown{queued}.",
                count(limit.into()),
                format::us_as_ms(full - self.recs_stops_at)
            );
        }
        Some(s)
    }

    /// Who held the connections, and who waited for them.
    fn pool_sentence(&self) -> Option<String> {
        let shared = &self.pools[SHARED];
        if self.config.unbounded_pool {
            let max = self.downstream_open_max;
            return (max > 0).then(|| {
                format!(
                    "With no connection limit no call ever waits for a connection, but every call in progress holds \
                     one open on the downstream host: {} at most.",
                    count(max.into())
                )
            });
        }
        let limit = count(shared.limit.unwrap_or(0).into());
        let all = all_connections(shared.limit.unwrap_or(0));
        let waited = if shared.waiting_max > 0 {
            format!(", and up to {} waited for one at once", calls(shared.waiting_max.into()))
        } else {
            String::new()
        };
        if let Some(recs) = self.recs_pool() {
            let recs_limit = count(recs.limit.unwrap_or(0).into());
            let recs_all = all_connections(recs.limit.unwrap_or(0));
            let recs_words = match recs.full_of_hung_at {
                Some(t) if self.config.variant.has_timeout() => format!(
                    "From {}, calls that will never be answered took {recs_all} of recommendations' own pool, each \
                     holding its connection until its {} timeout fired",
                    seconds(t),
                    self.timeout_words()
                ),
                Some(t) => format!(
                    "From {}, {recs_all} of recommendations' own pool {} held by calls that will never return",
                    seconds(t),
                    was(recs.limit)
                ),
                None => format!(
                    "Recommendations' own pool had at most {} of {recs_limit} connections in use",
                    count(recs.in_use_max.into())
                ),
            };
            return Some(format!(
                "{recs_words}, while price calls kept the shared pool to themselves: at most {} of {limit} in use{waited}.",
                count(shared.in_use_max.into())
            ));
        }
        let held = match (shared.full_of_hung_at, self.pool_exhausted_at) {
            (Some(t), _) if !self.config.variant.has_timeout() => format!(
                "From {}, {all} of the shared pool {} held by recommendations calls that will never return",
                seconds(t),
                was(shared.limit)
            ),
            (Some(t), _) => format!(
                "From {}, recommendations calls that will never be answered took {all} of the shared pool, each \
                 holding its connection until its {} timeout fired",
                seconds(t),
                self.timeout_words()
            ),
            (_, Some(t)) if self.config.variant.has_timeout() => format!(
                "From {}, recommendations calls took {all} of the shared pool, each holding its connection until \
                 it was answered or its {} timeout fired",
                seconds(t),
                self.timeout_words()
            ),
            (_, Some(t)) => {
                format!("From {}, recommendations calls held {all} of the shared pool", seconds(t))
            }
            (_, None) => format!(
                "Recommendations calls never held the whole shared pool: at most {} of {limit} connections were in use at once",
                count(shared.in_use_max.into())
            ),
        };
        Some(format!("{held}{waited}."))
    }

    /// What /checkout's clients got.
    fn checkout_sentence(&self) -> String {
        let c = self.counts();
        let (arrived, ok, failed) = (c.checkout_arrived, c.checkout_ok, c.checkout_failed);
        if arrived == 0 {
            return if self.config.checkout_rate > 0.0 {
                "No /checkout has been sent yet.".into()
            } else {
                "The load sends no /checkout.".into()
            };
        }
        let of = |n: u64| format!("{} of {}", count(n), count(arrived));
        let still = if c.checkout_in_flight > 0 {
            format!(" {} still waiting.", count(c.checkout_in_flight))
        } else {
            String::new()
        };
        let give_up = self.checkout_timeout_words();
        if failed > 0 {
            let head = if self.checkout_failed_queued > 0 {
                let failed = if self.recs_stops_at < self.end {
                    format!("/checkout never calls recommendations, yet {} failed", of(failed))
                } else {
                    format!("{} checkouts failed", of(failed))
                };
                format!(
                    "{failed}: each client gave up after {give_up}, and {} of them were still waiting for a \
                     connection, without ever leaving the process.",
                    count(self.checkout_failed_queued)
                )
            } else {
                format!("{} checkouts failed: each client gave up after {give_up}.", of(failed))
            };
            // A timeout no shorter than the time a checkout waits frees no connection in time for it.
            let longer = if self.config.variant.has_timeout()
                && self.config.recs_timeout_ms > self.config.checkout_timeout_ms
                && self.checkout_failed_queued > 0
            {
                format!(
                    " Recommendations' {} timeout is longer than the {give_up} /checkout's clients wait.",
                    self.timeout_words()
                )
            } else {
                String::new()
            };
            let succeeded = match (ok, self.successes_came_first()) {
                (0, _) => " None succeeded.".to_string(),
                (_, Some(t)) => format!(" {} succeeded, those sent in the first {}.", count(ok), tenths(t)),
                _ => format!(" {} succeeded.", count(ok)),
            };
            return format!("{head}{longer}{succeeded}{still}");
        }
        if ok == 0 {
            return format!("No /checkout has finished yet;{still}");
        }
        let p99 = self.p99().map(|p| format!(", p99 {}", format::ms(p))).unwrap_or_default();
        let close = match self.p99() {
            Some(p) if p >= CLOSE_TO_GIVING_UP * self.config.checkout_timeout_ms => {
                format!(", close to the {give_up} after which the client gives up")
            }
            _ => String::new(),
        };
        let queued = if self.checkout_queued > 0 {
            format!(" {} had to wait for a connection first.", of(self.checkout_queued))
        } else {
            String::new()
        };
        format!("{} checkouts succeeded{p99}{close}.{queued}{still}", of(ok))
    }
}
