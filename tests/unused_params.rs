//! A control the page disables as "not used" really does nothing: for every parameter a
//! declaration marks `only_with`, at the defaults and at every preset, with its condition set
//! to each value that leaves it unused, moving it to its ends changes no metric and not the
//! run's length. (Sentences may: a run with any parameter off the chapter's is not told as the
//! chapter's run.)

use resilience_lab::scenarios::ALL;
use resilience_lab::sim::{ParamKind, ParamSpec, Params, ScenarioSpec};

/// Every value a parameter can hold, as the model reads it.
fn every_value(spec: &ParamSpec) -> Vec<f64> {
    match spec.kind {
        ParamKind::Choice(options) => (0..options.len()).map(|i| i as f64).collect(),
        ParamKind::Toggle => vec![0.0, 1.0],
        ParamKind::Number => vec![spec.min, spec.default, spec.max],
    }
}

fn run(spec: &ScenarioSpec, params: &Params) -> String {
    let duration = spec.duration_for(params);
    let mut sim = spec.start(params, 1, duration);
    sim.run_to_end();
    format!("{duration} ms\n{:?}", sim.metrics())
}

#[test]
fn a_parameter_marked_unused_changes_nothing() {
    let mut checked = 0;
    for spec in ALL {
        let bases = std::iter::once(spec.defaults()).chain(spec.presets.iter().map(|preset| {
            let mut p = spec.defaults();
            p.apply_preset(preset).unwrap();
            p
        }));
        for base in bases {
            for (i, param) in spec.params.iter().enumerate() {
                let Some(when) = param.only_with else { continue };
                let j = base.index_of(when.param).unwrap();
                for condition in every_value(&spec.params[j]) {
                    let mut p = base.clone();
                    p.set_at(j, condition);
                    if p.unused_because(i).is_none() {
                        continue;
                    }
                    let runs: Vec<String> = every_value(param)
                        .into_iter()
                        .map(|v| {
                            let mut q = p.clone();
                            q.set_at(i, v);
                            run(spec, &q)
                        })
                        .collect();
                    for other in &runs[1..] {
                        assert_eq!(
                            &runs[0],
                            other,
                            "{}: {} moved while {}",
                            spec.id,
                            param.id,
                            p.unused_because(i).unwrap()
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 500, "{checked} checked");
}

/// Each condition names a choice or a toggle of the same declaration and only its values, and
/// no chain of conditions comes back to where it started.
#[test]
fn conditions_name_declared_values() {
    for spec in ALL {
        for param in spec.params {
            let Some(when) = param.only_with else { continue };
            let on = spec.param(when.param).unwrap_or_else(|| panic!("{}.{}: no {}", spec.id, param.id, when.param));
            let allowed: Vec<String> = every_value(on).iter().map(|&v| on.format(v)).collect();
            assert!(!matches!(on.kind, ParamKind::Number), "{}.{}: a number as condition", spec.id, param.id);
            for v in when.values {
                assert!(allowed.iter().any(|a| a == v), "{}.{}: {} has no value {v}", spec.id, param.id, on.id);
            }
            assert!(!when.why.is_empty() && !when.why.ends_with('.'), "{}.{}: why", spec.id, param.id);
            let mut seen = vec![param.id];
            let mut next = Some(when);
            while let Some(w) = next {
                assert!(!seen.contains(&w.param), "{}.{}: conditions in a circle", spec.id, param.id);
                seen.push(w.param);
                next = spec.param(w.param).and_then(|p| p.only_with);
            }
        }
    }
}
