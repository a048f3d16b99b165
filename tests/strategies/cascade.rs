//! cascade's random parameters, shared by its test files.

use proptest::prelude::*;
use resilience_lab::scenarios::cascade::SPEC;
use resilience_lab::sim::{ParamKind, Params};

/// Any parameter value within its declared range, drawn per parameter.
pub fn any_params() -> impl Strategy<Value = Params> {
    let specs = SPEC.params;
    proptest::collection::vec(0.0f64..=1.0, specs.len()).prop_map(move |fractions| {
        let mut p = SPEC.defaults();
        for (spec, f) in specs.iter().zip(fractions) {
            let v = match spec.kind {
                ParamKind::Number if spec.id.ends_with("_ms") && spec.max > 20_000.0 => {
                    // Keep long times inside short test runs often enough to matter.
                    spec.min + (spec.max.min(5_000.0) - spec.min) * f
                }
                _ => spec.at_fraction(f),
            };
            p.set(spec.id, v);
        }
        p
    })
}
