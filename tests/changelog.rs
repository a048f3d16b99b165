//! CHANGELOG.md names every change to a model's numbers. Each scenario's recorded metrics
//! (`tests/golden/<id>.json`, seed 7, defaults and every preset) have a fingerprint, and the
//! changelog must quote the current one beside the scenario's id ("`slow-server 1a2b3c4d`"): a
//! change to a scenario's numbers fails here until an entry names the scenario and what moved,
//! with its new fingerprint. Words (`tests/golden/words/`) are not numbers and are not counted.

use std::path::Path;

use resilience_lab::scenarios::ALL;

const CHANGELOG: &str = include_str!("../CHANGELOG.md");

/// FNV-1a (64 bits) of the metrics as compact JSON, so whitespace and line endings do not count;
/// the first 8 hex digits.
fn fingerprint(scenario: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{scenario}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value = serde_json::from_str(&text).expect("golden JSON");
    let hash = json
        .to_string()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    format!("{hash:016x}")[..8].to_string()
}

#[test]
fn every_scenarios_recorded_numbers_are_named_in_the_changelog() {
    let missing: Vec<String> = ALL
        .iter()
        .map(|s| format!("`{} {}`", s.id, fingerprint(s.id)))
        .filter(|quoted| !CHANGELOG.contains(quoted.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "tests/golden changed without CHANGELOG.md saying so: under \"## Unreleased\", name what moved \
         for each scenario and quote its fingerprint: {}",
        missing.join(", ")
    );
}

/// The newest section is either changes not released yet or the crate's version, dated.
#[test]
fn the_changelog_starts_at_the_crates_version() {
    let first = CHANGELOG.lines().find(|l| l.starts_with("## ")).expect("a section per version");
    let released = format!("## {} — ", resilience_lab::VERSION);
    let dated = first
        .strip_prefix(&released)
        .is_some_and(|d| d.len() == 10 && d.chars().all(|c| c.is_ascii_digit() || c == '-'));
    assert!(first == "## Unreleased" || dated, "CHANGELOG.md's first section is '{first}', not '{released}YYYY-MM-DD'");
    assert!(CHANGELOG.contains(&released), "CHANGELOG.md has no section for {}", resilience_lab::VERSION);
}
