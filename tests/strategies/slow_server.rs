//! slow-server's random parameters, shared by its test files.

use proptest::prelude::*;
use resilience_lab::scenarios::slow_server::SPEC;
use resilience_lab::sim::Params;

/// Any parameters from the declared ranges, with the moments and the load kept where a
/// run of a few seconds shows them.
pub fn any_params() -> impl Strategy<Value = Params> {
    let specs = SPEC.params;
    proptest::collection::vec(0.0f64..=1.0, specs.len()).prop_map(move |fractions| {
        let mut p = SPEC.defaults();
        for (spec, f) in specs.iter().zip(fractions) {
            let v = match spec.id {
                "slow_at_ms" | "eject_after_ms" => 3_000.0 * f,
                "rate" => 1.0 + 400.0 * f,
                "timeout_ms" if f < 0.4 => 0.0,
                "timeout_ms" => 2_000.0 * f,
                "backlog" if f < 0.7 => 10_000.0,
                _ => spec.at_fraction(f),
            };
            p.set(spec.id, v);
        }
        p
    })
}
