//! retry-storm's random parameters, shared by its test files.

use proptest::prelude::*;
use resilience_lab::scenarios::retry_storm::SPEC;
use resilience_lab::sim::{ParamKind, Params};

/// Any parameters from the declared ranges, with long times kept short enough to matter in a
/// short run.
pub fn any_params() -> impl Strategy<Value = Params> {
    let specs = SPEC.params;
    proptest::collection::vec(0.0f64..=1.0, specs.len()).prop_map(move |fractions| {
        let mut p = SPEC.defaults();
        for (spec, f) in specs.iter().zip(fractions) {
            let v = match spec.kind {
                ParamKind::Number if spec.id.ends_with("_ms") && spec.max > 10_000.0 => {
                    spec.min + (spec.max.min(5_000.0) - spec.min) * f
                }
                ParamKind::Number if spec.id == "clients" => spec.min + 60.0 * f,
                _ => spec.at_fraction(f),
            };
            p.set(spec.id, v);
        }
        p
    })
}
