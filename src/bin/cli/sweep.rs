//! `resilience-lab sweep`: the same settings over a range of one parameter, one line per option
//! of a choice parameter, each point over several seeds, on every core. The output is the same
//! whatever `--threads` says: runs are shared out over threads but reported in job order.

use std::sync::atomic::{AtomicUsize, Ordering};

use resilience_lab::report::{SummaryRow, SweepReport};
use resilience_lab::sim::params::shorten;
use resilience_lab::sweep::{Point, Sweep};

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
    seeds: usize,
    metrics: Vec<String>,
    threads: usize,
    output: Output,
}

pub fn sweep(args: &[String]) -> Result<(), String> {
    let (scenario, rest) = settings::scenario(args, "sweep")?;
    let mut settings = Settings::default();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut req = Request { x: None, by: None, seeds: 5, metrics: Vec::new(), threads, output: Output::Text };
    let mut rest = rest.iter();
    while let Some(arg) = rest.next() {
        if !take(&mut req, arg, &mut rest)? && !settings.take(arg, &mut rest)? {
            return Err(format!("unknown option '{}'; expected {OPTIONS}, {}", shorten(arg), settings::OPTIONS));
        }
    }
    let state = settings.into_state(scenario)?;
    let default = scenario.sweep;
    let (x, from, to, steps) = match &req.x {
        Some(text) => parse_range(text)?,
        None => (default.x.to_string(), default.from, default.to, default.steps),
    };
    let by = req.by.as_deref().or(if req.x.is_none() { default.by } else { None });
    let metrics: Vec<&str> = req.metrics.iter().map(String::as_str).collect();
    let mut sweep =
        Sweep::new(scenario, state.params.clone(), (&x, from, to, steps), by, req.seeds, &metrics).map_err(|e| e.0)?;
    sweep.duration_ms = state.duration_ms;
    let points = run_all(&sweep, req.threads);
    print(&sweep, state.preset, &points, &req.output);
    Ok(())
}

/// Takes one of `sweep`'s own options; false if `arg` is not one.
fn take<'a>(req: &mut Request, arg: &str, rest: &mut impl Iterator<Item = &'a String>) -> Result<bool, String> {
    match arg {
        "--x" => req.x = Some(value(arg, rest)?.clone()),
        "--by" => req.by = Some(value(arg, rest)?.clone()),
        "--metric" => req.metrics.push(value(arg, rest)?.clone()),
        "--seeds" => req.seeds = count(arg, value(arg, rest)?, MAX_SEEDS)?,
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

/// `<param>=<from>..<to>[:<steps>]`, 15 steps when none are given.
fn parse_range(text: &str) -> Result<(String, f64, f64, usize), String> {
    let bad = || format!("--x: '{}' is not <param>=<from>..<to>[:<steps>], e.g. slowdown=1..8:15", shorten(text));
    let (param, range) = text.split_once('=').ok_or_else(bad)?;
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
        Output::Json => println!("{}", serde_json::to_string_pretty(&report).expect("JSON of plain values")),
        Output::Csv => {
            println!("by,x,metric,median,p10,p90,n");
            for s in &report.summary {
                println!("{}", csv_row(s));
            }
        }
        Output::Text => {
            println!(
                "{} sweep of {} over {} x values × {} line(s) × {} seed(s): median (10th–90th percentile)",
                sweep.scenario.id,
                sweep.x.id,
                sweep.xs.len(),
                sweep.lines().len(),
                sweep.seeds.len()
            );
            for s in &report.summary {
                let cell = |v: Option<f64>| v.map_or("—".to_string(), resilience_lab::format::number);
                println!(
                    "  {:<22} {}={:<10} {:<24} {} ({}–{})",
                    s.by.unwrap_or(""),
                    sweep.x.id,
                    resilience_lab::format::plain(s.x),
                    s.metric,
                    cell(s.median),
                    cell(s.p10),
                    cell(s.p90)
                );
            }
            for sentence in &report.reading {
                println!("  {sentence}");
            }
        }
    }
}

fn csv_row(s: &SummaryRow) -> String {
    let num = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    format!("{},{},{},{},{},{},{}", s.by.unwrap_or(""), s.x, s.metric, num(s.median), num(s.p10), num(s.p90), s.n)
}
