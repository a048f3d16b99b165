//! `resilience-lab sweep`: the same settings over a range of one parameter, one line per option
//! of a choice parameter, each point over several seeds, on every core. The output is the same
//! whatever `--threads` says: runs are shared out over threads but reported in job order.

use std::sync::atomic::{AtomicUsize, Ordering};

use resilience_lab::format::{plain, quantity_text};
use resilience_lab::report::{ParamJson, SummaryRow, SweepReport};
use resilience_lab::sim::params::shorten;
use resilience_lab::sim::{ParamKind, ScenarioSpec, Value};
use resilience_lab::sweep::{Point, Sweep};
use resilience_lab::url::SweepView;

use super::out::outln;
use super::settings::{self, Settings, value};

const OPTIONS: &str = "--x, --by, --seeds, --metric, --threads, --json, --csv";
const MAX_SEEDS: usize = 1000;
const MAX_STEPS: usize = 1000;

#[derive(PartialEq)]
enum Output {
    Text,
    Json,
    Csv,
}

struct Request {
    x: Option<String>,
    by: Option<String>,
    seeds: Option<usize>,
    metrics: Vec<String>,
    threads: usize,
    output: Output,
}

pub fn sweep(args: &[String]) -> Result<(), String> {
    let (named, rest) = settings::scenario(args)?;
    let mut settings = Settings::default();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut req = Request { x: None, by: None, seeds: None, metrics: Vec::new(), threads, output: Output::Text };
    let mut rest = rest.iter();
    while let Some(arg) = rest.next() {
        if arg == "--seed" {
            return Err("--seed: a sweep runs seeds 1 to K; set K with --seeds".to_string());
        }
        if !take(&mut req, arg, &mut rest)? && !settings.take(arg, &mut rest)? {
            return Err(format!("unknown option '{}'; expected {OPTIONS}, {}", shorten(arg), settings::OPTIONS));
        }
    }
    let scenario = settings.scenario(named, "sweep")?;
    let (state, notices) = settings.into_state(scenario)?;
    settings::warn(&notices);
    // The options given here win over the link's sweep view, which wins over the default.
    let view = state.sweep.unwrap_or_else(|| SweepView::default_for(scenario));
    let linked = state.sweep.is_some();
    let (x, from, to, steps) = match &req.x {
        Some(text) => parse_range(scenario, text)?,
        None if linked && view.x != scenario.sweep.x => x_range(scenario, view.x),
        None => (view.x.to_string(), scenario.sweep.from, scenario.sweep.to, scenario.sweep.steps),
    };
    let by = match (&req.by, &req.x) {
        (Some(b), _) => Some(b.as_str()),
        (None, None) => view.by,
        (None, Some(_)) => None,
    };
    let mut metrics: Vec<&str> = req.metrics.iter().map(String::as_str).collect();
    if metrics.is_empty() && linked {
        metrics.push(view.metric);
    }
    let seeds = req.seeds.unwrap_or(view.seeds);
    let mut sweep =
        Sweep::new(scenario, state.params.clone(), (&x, from, to, steps), by, seeds, &metrics).map_err(|e| e.0)?;
    sweep.duration_ms = state.duration_ms;
    refuse_words(&sweep)?;
    let points = run_all(&sweep, req.threads);
    print(&sweep, state.preset, &points, &req.output);
    Ok(())
}

/// A parameter's whole declared range in 15 steps (a link's sweep names only its x).
fn x_range(scenario: &ScenarioSpec, id: &str) -> (String, f64, f64, usize) {
    let p = scenario.param(id).expect("the link's sweep names a declared parameter");
    (p.id.to_string(), p.min, p.max, 15)
}

/// Refuses metrics that are words, not numbers (a sweep plots numbers), from one run.
fn refuse_words(sweep: &Sweep) -> Result<(), String> {
    let mut probe = sweep.start(&sweep.jobs()[0]);
    probe.run_to_end();
    let metrics = probe.metrics();
    let is_words = |key: &str| metrics.iter().any(|(k, v)| *k == key && matches!(v, Value::Text(_) | Value::List(_)));
    match sweep.metrics.iter().find(|m| is_words(m)) {
        None => Ok(()),
        Some(m) => {
            let numbers: Vec<&str> = metrics.iter().map(|(k, _)| *k).filter(|k| !is_words(k)).collect();
            Err(format!("--metric: '{m}' is words, not a number; expected one of {}", numbers.join(", ")))
        }
    }
}

/// Takes one of `sweep`'s own options; false if `arg` is not one.
fn take<'a>(req: &mut Request, arg: &str, rest: &mut impl Iterator<Item = &'a String>) -> Result<bool, String> {
    match arg {
        "--x" => req.x = Some(value(arg, rest)?.clone()),
        "--by" => req.by = Some(value(arg, rest)?.clone()),
        "--metric" => req.metrics.push(value(arg, rest)?.clone()),
        "--seeds" => req.seeds = Some(count(arg, value(arg, rest)?, MAX_SEEDS)?),
        "--threads" => req.threads = count(arg, value(arg, rest)?, 256)?,
        "--json" => req.output = Output::Json,
        "--csv" => req.output = Output::Csv,
        _ => return Ok(false),
    }
    Ok(true)
}

fn count(name: &str, text: &str, max: usize) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| format!("{name}: '{}' is not allowed; expected a whole number from 1 to {max}", shorten(text)))
}

/// `<param>=<from>..<to>[:<steps>]` (15 steps when none are given), or a choice or toggle
/// parameter alone, which takes all its options.
fn parse_range(scenario: &ScenarioSpec, text: &str) -> Result<(String, f64, f64, usize), String> {
    let bad = || {
        format!(
            "--x: '{}' is not <param>=<from>..<to>[:<steps>] (e.g. slowdown=1..8:15) or a choice parameter",
            shorten(text)
        )
    };
    let Some((param, range)) = text.split_once('=') else {
        return match scenario.param(text.trim()) {
            Some(p) if p.kind != ParamKind::Number => Ok((p.id.to_string(), p.min, p.max, p.max as usize + 1)),
            _ => Err(bad()),
        };
    };
    if scenario.param(param.trim()).is_some_and(|p| p.kind != ParamKind::Number) {
        return Err(format!("--x {}: a choice parameter takes all its options, without a range", param.trim()));
    }
    let (range, steps) = match range.split_once(':') {
        Some((r, s)) => (r, count("--x steps", s, MAX_STEPS)?),
        None => (range, 15),
    };
    let (from, to) = range.split_once("..").ok_or_else(bad)?;
    let num = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(bad);
    Ok((param.trim().to_string(), num(from)?, num(to)?, steps))
}

/// Every job's point, in job order, computed on `threads` threads.
fn run_all(sweep: &Sweep, threads: usize) -> Vec<Point> {
    let jobs = sweep.jobs();
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, Point)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.min(jobs.len()).max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&job) = jobs.get(i) else { return mine };
                        mine.push((i, sweep.run(job)));
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a sweep run does not panic")).collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, p)| p).collect()
}

fn print(sweep: &Sweep, preset: Option<&'static str>, points: &[Point], output: &Output) {
    let report = SweepReport::new(sweep, preset, points);
    match output {
        Output::Json => outln!("{}", serde_json::to_string_pretty(&report).expect("JSON of plain values")),
        Output::Csv => {
            outln!("by,x,metric,median,p10,p90,min,max,n");
            for s in &report.summary {
                outln!("{}", csv_row(s));
            }
        }
        Output::Text => {
            outln!(
                "{} sweep of {} over {} x values × {} line(s) × {} seed(s): median (10th–90th percentile) [min–max]",
                sweep.scenario.id,
                sweep.x.id,
                sweep.xs.len(),
                sweep.lines().len(),
                sweep.seeds.len()
            );
            for s in &report.summary {
                let unit = sweep.scenario.metric(s.metric).map_or("", |m| m.unit);
                let cell = |v: Option<f64>| v.map_or("—".to_string(), |v| quantity_text(&Value::Num(v), unit));
                outln!(
                    "  {:<22} {}={:<10} {:<24} {} ({}–{}) [{}–{}]",
                    s.by.unwrap_or(""),
                    sweep.x.id,
                    x_cell(&s.x),
                    s.metric,
                    cell(s.median),
                    cell(s.p10),
                    cell(s.p90),
                    cell(s.min),
                    cell(s.max)
                );
            }
            for sentence in &report.reading {
                outln!("  {sentence}");
            }
        }
    }
}

/// An x as the parameter writes it: a number, true or false, or a choice's id.
fn x_cell(x: &ParamJson) -> String {
    match x {
        ParamJson::Number(v) => plain(*v),
        ParamJson::Toggle(b) => b.to_string(),
        ParamJson::Choice(id) => id.to_string(),
    }
}

fn csv_row(s: &SummaryRow) -> String {
    let num = |v: Option<f64>| v.map_or(String::new(), plain);
    format!(
        "{},{},{},{},{},{},{},{},{}",
        s.by.unwrap_or(""),
        x_cell(&s.x),
        s.metric,
        num(s.median),
        num(s.p10),
        num(s.p90),
        num(s.min),
        num(s.max),
        s.n
    )
}
