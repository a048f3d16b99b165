//! The README's commands, run exactly as written, so that a renamed metric, flag or preset
//! breaks this test and not an author: every `sh` block's lines, and every row of the table
//! of the chapters' numbers, whose value must be what the command prints.

use std::process::Command;

use serde_json::Value as Json;

const README: &str = include_str!("../README.md");
/// How the README runs the CLI; the test runs the binary cargo built with the same arguments.
const CARGO_RUN: &str = "cargo run --release --bin resilience-lab -- ";

/// Commands the README shows that other tests run: `scripts/test.sh` is what CI runs (so this
/// very test) and it runs `scripts/test.sh --quick` as its first step, `scripts/serve.sh` is
/// started by `tests/browser/serve.test.mjs` and `scripts/dev.sh` by
/// `tests/browser/dev_server.test.mjs`, and the golden update is the command
/// `tests/golden.rs` names when it fails.
const RUN_ELSEWHERE: &[&str] = &[
    "scripts/serve.sh",
    "scripts/dev.sh",
    "scripts/test.sh",
    "scripts/test.sh --quick",
    "UPDATE_GOLDEN=1 cargo test --release --test golden",
];

/// Splits a command line as a POSIX shell does for the README's commands: words, and
/// single-quoted words.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut started) = (false, false);
    for c in line.chars() {
        match c {
            '\'' => (quoted, started) = (!quoted, true),
            ' ' if !quoted => {
                if started {
                    out.push(std::mem::take(&mut word));
                }
                started = false;
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    assert!(!quoted, "unbalanced quote in {line}");
    if started {
        out.push(word);
    }
    out
}

/// Runs the CLI with `args`: status 0, no notice, something printed.
fn run(args: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_resilience-lab")).args(args).output().expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "README command {args:?} failed: {stderr}");
    assert!(stderr.is_empty(), "README command {args:?} wrote to stderr: {stderr}");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(!stdout.trim().is_empty(), "README command {args:?} printed nothing");
    stdout
}

/// The lines of every ```sh block, comments dropped.
fn sh_lines() -> Vec<&'static str> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in README.lines() {
        match line.trim() {
            "```sh" => inside = true,
            "```" => inside = false,
            l if inside && !l.is_empty() => lines.push(l.split(" #").next().unwrap_or(l).trim()),
            _ => {}
        }
    }
    lines
}

#[test]
fn every_command_in_the_readme_runs_as_written() {
    let lines = sh_lines();
    assert!(lines.len() >= 8, "found only {lines:?}");
    let mut ran = 0;
    for line in lines {
        if let Some(args) = line.strip_prefix(CARGO_RUN) {
            run(&words(args));
            ran += 1;
        } else {
            assert!(RUN_ELSEWHERE.contains(&line), "the README shows '{line}', which no test runs");
        }
    }
    assert!(ran >= 6, "ran {ran} CLI commands");
}

/// The rows of the table "The chapters' numbers": (command, metric key, value).
fn chapter_rows() -> Vec<(String, String, Json)> {
    let start = README.find("| chapter figure |").expect("the README has the chapters' numbers table");
    README[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let code = |cell: &str| cell.split('`').nth(1).unwrap_or_else(|| panic!("no `code` in {cell}")).to_string();
            let command = code(cells[3]);
            let (key, value) = cells[4].split_once(" = ").unwrap_or_else(|| panic!("value cell of {row}"));
            let value = serde_json::from_str(value.trim()).unwrap_or_else(|_| Json::String(value.trim().to_string()));
            (command, key.trim_matches('`').to_string(), value)
        })
        .collect()
}

/// The table is `resilience-lab numbers --markdown`, made from the one list of the chapters'
/// numbers in the code (`resilience_lab::numbers::ROWS`): a changed row or value is pasted from it.
#[test]
fn the_chapters_numbers_table_is_what_numbers_prints() {
    let start = README.find("| chapter figure |").expect("the README has the chapters' numbers table");
    let table = &README[start..start + README[start..].find("\n\n").expect("a blank line ends the table") + 1];
    let printed = run(&words("numbers --markdown"));
    if table != printed {
        panic!(
            "the README's table of the chapters' numbers is not `resilience-lab numbers --markdown`; paste:\n{printed}"
        );
    }
}

#[test]
fn the_chapters_numbers_table_is_what_the_commands_print() {
    let rows = chapter_rows();
    assert!(rows.len() >= 20, "{} rows", rows.len());
    for (command, key, want) in rows {
        let args = command.strip_prefix("resilience-lab ").unwrap_or_else(|| panic!("{command}"));
        let out: Json = serde_json::from_str(&run(&words(args))).unwrap_or_else(|e| panic!("{command}: {e}"));
        assert_eq!(out[&key], want, "{command}: {key}");
    }
}

/// The table of the ten breaks (issue 28): each of `ch1-break-1` … `ch2-break-5` once, each link
/// naming a registered simulation that has that preset, and beside it a snippet of the same
/// simulation and preset (the browser tests load every snippet).
#[test]
fn the_breaks_table_links_every_break_to_its_preset_and_snippet() {
    let start = README.find("## When the interviewer breaks it").expect("the README has the breaks section");
    let section = &README[start..start + README[start..].find("\n## Robustness").expect("the section ends")];
    let mut seen = Vec::new();
    for link in section.split("(https://example.org/lab/?").skip(1) {
        let query = &link[..link.find(')').expect("the link closes")];
        let get = |key: &str| {
            query
                .split('&')
                .find_map(|pair| pair.strip_prefix(&format!("{key}=")))
                .unwrap_or_else(|| panic!("{query}: no {key}"))
        };
        let (sim, preset) = (get("sim"), get("preset"));
        let spec = resilience_lab::scenarios::find(sim).unwrap_or_else(|| panic!("{sim} is not registered"));
        assert!(spec.preset(preset).is_some(), "{sim} has no preset {preset}");
        let snippet = format!("<iframe src=\"https://example.org/lab/?sim={sim}&preset={preset}&");
        assert!(section.contains(&snippet), "no snippet for {sim} {preset}");
        seen.push(preset.to_string());
    }
    let breaks: Vec<String> =
        ["ch1", "ch2"].iter().flat_map(|ch| (1..=5).map(move |n| format!("{ch}-break-{n}"))).collect();
    assert_eq!(seen, breaks, "the ten breaks, in order, each once");
}
