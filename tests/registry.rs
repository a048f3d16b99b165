//! The registry (`simulations!` in `src/scenarios/mod.rs`) is the one list of simulations: the
//! scenarios and the app's pages are both generated from it, so a registered simulation without
//! a page does not compile. These tests check the other direction: every model and page file on
//! disk is registered, so nothing is left out of the app by forgetting the registry line.

use std::collections::BTreeSet;
use std::path::Path;

use resilience_lab::scenarios::{ALL, REGISTRY};

/// The module names under `dir` (`name.rs` or `name/mod.rs`), without those in `skip`.
fn modules(dir: &str, skip: &[&str]) -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter_map(|path| {
            if path.is_dir() {
                path.join("mod.rs").exists().then(|| path.file_name()?.to_str().map(str::to_string)).flatten()
            } else if path.extension().is_some_and(|e| e == "rs") {
                path.file_stem()?.to_str().map(str::to_string)
            } else {
                None
            }
        })
        .filter(|name| !skip.contains(&name.as_str()))
        .collect()
}

fn registered() -> BTreeSet<String> {
    REGISTRY.iter().map(|(m, _)| m.to_string()).collect()
}

#[test]
fn every_model_file_is_registered() {
    assert_eq!(modules("src/scenarios", &["mod"]), registered());
}

#[test]
fn every_page_file_is_registered() {
    assert_eq!(modules("src/ui/pages", &["mod", "bench"]), registered());
}

#[test]
fn ids_modules_and_features_line_up() {
    assert_eq!(ALL.len(), REGISTRY.len(), "the tests build every simulation");
    for (spec, (module, feature)) in ALL.iter().zip(REGISTRY) {
        assert_eq!(spec.id.replace('-', "_"), *module, "the registry lists {module} where {} stands", spec.id);
        assert_eq!(spec.id, *feature, "{module}'s feature is its id");
    }
}

/// The browser build makes one module per simulation with that simulation's feature alone, and
/// the CLI and the tests build `all-simulations`: Cargo.toml declares exactly the registry's.
#[test]
fn cargo_declares_one_feature_per_simulation() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).expect("Cargo.toml");
    let features = manifest.split("[features]").nth(1).expect("a [features] table").split("\n[").next().unwrap_or("");
    let all = features.lines().find_map(|l| l.strip_prefix("all-simulations = ")).expect("an all-simulations feature");
    let listed: Vec<&str> = all.trim_matches(['[', ']']).split(',').map(|f| f.trim().trim_matches('"')).collect();
    let registered: Vec<&str> = REGISTRY.iter().map(|(_, f)| *f).collect();
    assert_eq!(listed, registered, "all-simulations lists the registry, in its order");
    for feature in registered {
        assert!(features.lines().any(|l| l == format!("{feature} = []")), "Cargo.toml declares `{feature} = []`");
    }
}

/// The sliders that set when something happens reach ten minutes; a run follows them instead of
/// ending before the moment they set (issue: "B slows down at 600 s" in a 20 s run did nothing).
/// An explicit `duration_ms` still wins (the CLI and URL tests).
#[test]
fn a_run_covers_the_moments_its_sliders_set() {
    let moments = [("slow-server", "slow_at_ms"), ("cascade", "load_ms"), ("retry-storm", "down_until_ms")];
    for (id, param) in moments {
        let spec = ALL.iter().find(|s| s.id == id).expect("registered");
        let max = spec.param(param).expect("declared").max;
        let mut params = spec.defaults();
        params.set(param, max);
        let length = spec.duration_for(&params);
        assert!(length as f64 >= max + 500.0, "{id}: {param} = {max} ms, run {length} ms");
        assert!(length < 2 * spec.duration_for(&spec.defaults()) + max as u64, "{id}: bounded: {length} ms");
    }
}
