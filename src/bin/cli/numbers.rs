//! `resilience-lab numbers [--csv|--json|--markdown]`: the chapters' numbers
//! ([`resilience_lab::numbers::ROWS`]), each with the command that prints it and its value now.
//! `--markdown` is the README's table "The chapters' numbers", exactly as `tests/readme.rs`
//! requires it, so a moved number is fixed by pasting the output.

use resilience_lab::numbers::{ChapterNumber, ROWS};
use resilience_lab::sim::params::shorten;
use serde::Serialize;
use serde_json::Value as Json;

use super::out::outln;

#[derive(Serialize)]
struct Row {
    figure: &'static str,
    scenario: &'static str,
    preset: &'static str,
    command: String,
    metric: &'static str,
    value: Json,
}

/// A value as the tables write it: a text without its JSON quotes, a number as JSON writes it.
fn shown(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv(field: &str) -> String {
    if field.contains([',', '"', '\n']) { format!("\"{}\"", field.replace('"', "\"\"")) } else { field.to_string() }
}

pub fn numbers(args: &[String]) -> Result<(), String> {
    let format = match args {
        [] => "",
        [flag] if ["--csv", "--json", "--markdown"].contains(&flag.as_str()) => flag.as_str(),
        _ => {
            let got = shorten(&args.join(" "));
            return Err(format!("numbers takes one of --csv, --json or --markdown; got '{got}'"));
        }
    };
    let rows: Vec<Row> = ROWS
        .iter()
        .map(|n: &ChapterNumber| Row {
            figure: n.figure,
            scenario: n.scenario,
            preset: n.preset,
            command: n.command(),
            metric: n.metric,
            value: n.value(),
        })
        .collect();
    match format {
        "--json" => outln!("{}", serde_json::to_string_pretty(&rows).expect("JSON of plain values")),
        "--csv" => {
            outln!("chapter figure,simulation,preset,command,metric,value");
            for r in &rows {
                let cells = [r.figure, r.scenario, r.preset, &r.command, r.metric, &shown(&r.value)];
                outln!("{}", cells.map(csv).join(","));
            }
        }
        "--markdown" => {
            outln!("| chapter figure | simulation and preset | command | value |");
            outln!("|---|---|---|---|");
            for r in &rows {
                let value = shown(&r.value);
                outln!("| {} | {} `{}` | `{}` | `{}` = {value} |", r.figure, r.scenario, r.preset, r.command, r.metric);
            }
        }
        _ => {
            for r in &rows {
                outln!(
                    "{}\n  {} {}: {} = {}\n  {}",
                    r.figure,
                    r.scenario,
                    r.preset,
                    r.metric,
                    shown(&r.value),
                    r.command
                );
            }
        }
    }
    Ok(())
}
