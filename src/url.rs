//! The shareable state of a simulation as a readable query string, and back.
//!
//! `?sim=retry-storm&preset=jitter&clients=100&seed=7` names the scenario, an optional
//! preset, every parameter that differs from what the preset (or the declaration) gives,
//! the seed, the duration and the playback speed. Decoding never fails: anything it cannot
//! use falls back to a sane value and is reported as a notice the page shows.

use crate::scenarios;
use crate::sim::base::{MAX_DURATION_MS, MIN_DURATION_MS};
use crate::sim::decimal;
use crate::sim::params::{plain, shorten};
use crate::sim::{ParamKind, Params, ScenarioSpec};

pub const DEFAULT_SEED: u64 = 1;
pub const SPEEDS: &[f64] = &[0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];
/// The query keys that are not parameters, [`Key`], and their names, [`RESERVED`]: one list.
macro_rules! keys {
    ($($(#[$doc:meta])* $key:ident = $name:literal,)*) => {
        /// A query key that is not a parameter.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Key {
            $($(#[$doc])* $key,)*
        }

        impl Key {
            /// The key as a query writes it.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Key::$key => $name,)*
                }
            }
        }

        impl std::str::FromStr for Key {
            type Err = ();
            /// The reserved key `s` names; `Err` for a parameter id or an unknown key.
            fn from_str(s: &str) -> Result<Self, ()> {
                match s {
                    $($name => Ok(Key::$key),)*
                    _ => Err(()),
                }
            }
        }

        /// Query keys that are not parameters. No scenario may declare a parameter with these ids.
        pub const RESERVED: &[&str] = &[$($name),*];
    };
}

keys! {
    Sim = "sim",
    Preset = "preset",
    Seed = "seed",
    DurationMs = "duration_ms",
    Speed = "speed",
    Embed = "embed",
    Controls = "controls",
    Presets = "presets",
    Show = "show",
    Chart = "chart",
    Autoplay = "autoplay",
    Theme = "theme",
    /// `at=end` or `at=<ms>`: the moment the figure opens at.
    At = "at",
    Bench = "bench",
    Debug = "debug",
    Sweep = "sweep",
    By = "by",
    SweepMetric = "sweep_metric",
    SweepSeeds = "sweep_seeds",
}
/// What `controls=` may name besides parameters: the sweep view and the seed.
pub const EXTRA_CONTROLS: &[&str] = &["sweep", "seed"];
/// Seeds per point of a sweep: the default and the most a link may ask for.
pub const SWEEP_SEEDS: usize = 5;
pub const MAX_SWEEP_SEEDS: usize = 50;
/// Limits on what a query may hold; no real state needs more, and anything longer is ignored
/// with a notice rather than decoded.
const MAX_PAIRS: usize = 100;
const MAX_PAIR_LEN: usize = 512;

/// Everything a URL can say about one simulation view.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub scenario: &'static ScenarioSpec,
    pub preset: Option<&'static str>,
    pub params: Params,
    pub seed: u64,
    /// A duration the reader or author set; `None`: the run is as long as its parameters need.
    pub duration_ms: Option<u64>,
    pub speed: f64,
    /// Embed layout: no app chrome.
    pub embed: bool,
    /// Only these sliders are shown (None: all).
    pub controls: Option<Vec<&'static str>>,
    /// The presets an embed offers as one segmented control (none: no preset buttons).
    pub presets: Vec<&'static str>,
    /// The parts of the page an embed adds to its figure (the page declares their names).
    pub show: Vec<String>,
    /// The part an embed shows as its headline chart, when not the page's own.
    pub chart: Option<String>,
    pub autoplay: Autoplay,
    /// The colour scheme the link asks for, whatever the reader's system uses.
    pub theme: Theme,
    /// The sweep view, when open.
    pub sweep: Option<SweepView>,
    /// `at=`: the moment the figure opens at, paused (a printed chapter's figures, a picture).
    pub at: Option<At>,
}

/// What the sweep view shows: x, the lines, the metric and how many seeds per point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepView {
    pub x: &'static str,
    pub by: Option<&'static str>,
    pub metric: &'static str,
    pub seeds: usize,
}

impl SweepView {
    /// The scenario's default sweep.
    pub fn default_for(scenario: &ScenarioSpec) -> Self {
        let d = scenario.sweep;
        Self { x: d.x, by: d.by, metric: d.metric, seeds: SWEEP_SEEDS }
    }
}

impl PartialEq for ScenarioSpec {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl std::fmt::Debug for ScenarioSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ScenarioSpec({})", self.id)
    }
}

impl State {
    pub fn new(scenario: &'static ScenarioSpec) -> Self {
        Self {
            scenario,
            preset: None,
            params: scenario.defaults(),
            seed: DEFAULT_SEED,
            duration_ms: None,
            speed: 1.0,
            embed: false,
            controls: None,
            presets: Vec::new(),
            show: Vec::new(),
            chart: None,
            autoplay: Autoplay::Off,
            theme: Theme::Auto,
            sweep: None,
            at: None,
        }
    }

    /// The values the parameters have before any individual change: the declaration's
    /// defaults with the preset applied.
    pub fn baseline(&self) -> Params {
        baseline(self.scenario, self.preset)
    }

    /// How long the run is: the duration set, or what the parameters need.
    pub fn duration(&self) -> u64 {
        self.duration_ms.unwrap_or_else(|| self.full_duration())
    }

    /// The run's own length: what its parameters need to play out.
    pub fn full_duration(&self) -> u64 {
        self.scenario.duration_for(&self.params)
    }

    /// The longest run a reader may set: [`MAX_DURATION_MS`], or the run's own length where
    /// that is longer (at-least-once's late redeliveries come days later, over idle stretches
    /// the engine jumps).
    pub fn max_duration_ms(&self) -> u64 {
        MAX_DURATION_MS.max(self.full_duration())
    }

    /// Whether the run stops before its own length: what happens after is not in its numbers.
    pub fn is_cut(&self) -> bool {
        self.duration() < self.full_duration()
    }
}

fn baseline(scenario: &'static ScenarioSpec, preset: Option<&str>) -> Params {
    let mut params = scenario.defaults();
    if let Some(p) = preset.and_then(|id| scenario.preset(id)) {
        // Presets are checked by the tests; a bad one would show as a difference, not a panic.
        let _ = params.apply_preset(p);
    }
    params
}

/// The `key=value` pairs of a query string (with or without the leading `?`), still encoded.
fn raw_pairs(query: &str) -> impl Iterator<Item = (&str, &str)> {
    let query = query.strip_prefix('?').unwrap_or(query);
    query.split('&').filter(|p| !p.is_empty()).map(|part| part.split_once('=').unwrap_or((part, "")))
}

/// The notice for a link whose `&` were escaped twice: a chapter's Markdown renderer turned the
/// snippet's `&amp;` into `&amp;amp;`, so the browser's link has `&amp;` and every key after the
/// first starts with `amp;`.
pub const ESCAPED_TWICE: &str = "This link's & were escaped twice (&amp;amp;): read as meant.";

/// A key as the author meant it: percent-decoded, without the `amp;` that escaping its `&` twice
/// (or more) left before it; true when there was one. No key the codec knows contains `;`.
fn meant_key(raw: &str) -> (String, bool) {
    let decoded = percent_decode(raw);
    let mut key = decoded.as_str();
    while let Some(rest) = key.strip_prefix("amp;") {
        key = rest;
    }
    (key.to_string(), key.len() != decoded.len())
}

/// Whether a query string names `key`, as [`decode`] reads it (a page with its own speed
/// policy keeps a speed the link sets).
pub fn names(query: &str, key: &str) -> bool {
    raw_pairs(query).any(|(k, _)| meant_key(k).0 == key)
}

/// The query's `key=value` pairs, decoded as [`decode`] reads them, in order.
pub fn pairs(query: &str) -> Vec<(String, String)> {
    raw_pairs(query).map(|(k, v)| (meant_key(k).0, percent_decode(v))).collect()
}

/// Decodes a query string (with or without the leading `?`). `default_scenario` is used when
/// the query names none. Returns None when it names none and there is no default.
pub fn decode(query: &str, default_scenario: Option<&'static ScenarioSpec>) -> (Option<State>, Vec<String>) {
    let mut notices = Vec::new();
    let pairs = decode_pairs(query, &mut notices);
    let find = |key: Key| pairs.iter().rev().find(|(k, _)| k == key.name()).map(|(_, v)| v.as_str());
    let Some(scenario) = decode_scenario(find(Key::Sim), default_scenario, &mut notices) else {
        return (None, notices);
    };
    let mut state = State::new(scenario);
    if let Some(id) = find(Key::Preset) {
        decode_preset(&mut state, id, &mut notices);
    }
    for (key, text) in &pairs {
        match key.parse::<Key>() {
            Ok(key) => read_key(&mut state, key, text, &mut notices),
            Err(()) => read_param(&mut state, key, text, &mut notices),
        }
    }
    // The duration's limit depends on the parameters, so it is read once they are known.
    if let Some(text) = find(Key::DurationMs) {
        let (duration, notice) = read_duration(text, &state);
        state.duration_ms = duration;
        notices.extend(notice);
    }
    state.sweep = find(Key::Sweep).map(|x| decode_sweep(scenario, x, &find, &mut notices));
    (Some(state), notices)
}

/// The query's pairs, decoded, the first [`MAX_PAIRS`] of them and none longer than
/// [`MAX_PAIR_LEN`]; a notice for what was left out, and one first for `&` escaped twice.
fn decode_pairs(query: &str, notices: &mut Vec<String>) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut escaped_twice = false;
    for (n, (k, v)) in raw_pairs(query).enumerate() {
        if n == MAX_PAIRS {
            notices.push(format!("The link has more than {MAX_PAIRS} settings; the rest were ignored."));
            break;
        }
        if k.len() + v.len() > MAX_PAIR_LEN {
            notices.push(format!(
                "'{}' is too long ({} characters) and was ignored.",
                shorten(&percent_decode(k)),
                v.len()
            ));
            continue;
        }
        let (k, escaped) = meant_key(k);
        escaped_twice |= escaped;
        pairs.push((k, percent_decode(v)));
    }
    if escaped_twice {
        notices.insert(0, ESCAPED_TWICE.to_string());
    }
    pairs
}

/// The scenario `sim=` names, or the default (with a notice when it names an unknown one).
fn decode_scenario(
    id: Option<&str>,
    default_scenario: Option<&'static ScenarioSpec>,
    notices: &mut Vec<String>,
) -> Option<&'static ScenarioSpec> {
    let Some(id) = id else { return default_scenario };
    let found = scenarios::find(id);
    if found.is_none() {
        notices.push(format!(
            "Unknown simulation '{}'; showing {} instead. Known: {}.",
            shorten(id),
            default_scenario.map_or("the list", |s| s.title),
            scenarios::ids()
        ));
    }
    found.or(default_scenario)
}

/// Applies the preset `preset=` names, if the scenario has it.
fn decode_preset(state: &mut State, id: &str, notices: &mut Vec<String>) {
    match state.scenario.preset(id) {
        Some(p) => {
            state.preset = Some(p.id);
            state.params = baseline(state.scenario, Some(p.id));
        }
        None => {
            notices.push(format!("Unknown preset '{}' ignored. Known: {}.", shorten(id), known_presets(state.scenario)))
        }
    }
}

/// Reads one reserved `key=text` into `state`.
fn read_key(state: &mut State, key: Key, text: &str, notices: &mut Vec<String>) {
    let scenario = state.scenario;
    match key {
        // Read before the other keys or after them.
        Key::Sim | Key::Preset | Key::DurationMs | Key::Sweep | Key::By | Key::SweepMetric | Key::SweepSeeds => {}
        // Read by the app before decoding.
        Key::Bench | Key::Debug => {}
        Key::Seed => state.seed = read_seed(text, notices).unwrap_or(state.seed),
        Key::Speed => state.speed = read_speed(text, notices).unwrap_or(state.speed),
        Key::Embed => state.embed = truthy(text),
        Key::Autoplay => state.autoplay = Autoplay::read(text),
        Key::Theme => state.theme = read_theme(text, notices).unwrap_or(state.theme),
        Key::At => state.at = read_at(text, notices).or(state.at),
        Key::Controls => state.controls = Some(decode_controls(scenario, text, notices)),
        Key::Presets => state.presets = decode_presets(scenario, text, notices),
        Key::Show => state.show = part_names(Key::Show, text, notices),
        Key::Chart => state.chart = part_names(Key::Chart, text, notices).into_iter().next(),
    }
}

/// Reads a parameter's `id=text` into `state`, or says the scenario has no such parameter.
fn read_param(state: &mut State, id: &str, text: &str, notices: &mut Vec<String>) {
    match state.scenario.param(id) {
        None => notices.push(format!("Unknown parameter '{}' ignored.", shorten(id))),
        Some(spec) => {
            let (value, notice) = spec.read(text, state.params.get(spec.id));
            state.params.set(spec.id, value);
            notices.extend(notice);
        }
    }
}

fn read_seed(text: &str, notices: &mut Vec<String>) -> Option<u64> {
    let notice =
        || format!("seed: '{}' is not a whole number from 0 to {}; using {DEFAULT_SEED}.", shorten(text), u64::MAX);
    noted(text.trim().parse().ok(), notices, notice)
}

/// The speed nearest the one written (with a notice when it is not one of [`SPEEDS`]).
fn read_speed(text: &str, notices: &mut Vec<String>) -> Option<f64> {
    let notice = || format!("speed: '{}' is not a number; using 1×.", shorten(text));
    let s = noted(decimal::parse(text.trim()).filter(|s| s.is_finite()), notices, notice)?;
    let nearest = nearest_speed(s);
    if nearest != s {
        notices.push(format!("speed: {} is not one of the speeds; using {}×.", shorten(text), plain(nearest)));
    }
    Some(nearest)
}

fn read_theme(text: &str, notices: &mut Vec<String>) -> Option<Theme> {
    let notice = || format!("theme: '{}' is not light, dark or auto; using auto.", shorten(text));
    noted(Theme::read(text), notices, notice)
}

fn read_at(text: &str, notices: &mut Vec<String>) -> Option<At> {
    let notice = || format!("at: '{}' is neither end nor a time in ms; opening at the start.", shorten(text));
    noted(At::read(text), notices, notice)
}

/// `value`, with `notice` added to `notices` when there is none.
fn noted<T>(value: Option<T>, notices: &mut Vec<String>, notice: impl FnOnce() -> String) -> Option<T> {
    if value.is_none() {
        notices.push(notice());
    }
    value
}

/// The sliders `controls=` names, in its order: parameters and [`EXTRA_CONTROLS`]; unknown
/// ones are left out with a notice.
fn decode_controls(scenario: &'static ScenarioSpec, text: &str, notices: &mut Vec<String>) -> Vec<&'static str> {
    let mut shown = Vec::new();
    for id in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match (scenario.param(id), EXTRA_CONTROLS.iter().find(|c| **c == id)) {
            (Some(p), _) => shown.push(p.id),
            (None, Some(extra)) => shown.push(*extra),
            (None, None) => notices.push(format!("controls: unknown parameter '{}' ignored.", shorten(id))),
        }
    }
    shown
}

/// The scenario's presets, as a notice lists them.
fn known_presets(scenario: &ScenarioSpec) -> String {
    scenario.presets.iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
}

/// The presets `presets=` names, in its order, each once; unknown ones are left out with a notice.
fn decode_presets(scenario: &'static ScenarioSpec, text: &str, notices: &mut Vec<String>) -> Vec<&'static str> {
    let mut shown: Vec<&'static str> = Vec::new();
    for id in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match scenario.preset(id) {
            Some(p) if !shown.contains(&p.id) => shown.push(p.id),
            Some(_) => {}
            None => notices.push(format!(
                "presets: unknown preset '{}' ignored. Known: {}.",
                shorten(id),
                known_presets(scenario)
            )),
        }
    }
    shown
}

/// The part names a `show=` or `chart=` list gives. Only their spelling is checked here: the
/// page declares its parts and says which names it does not have.
fn part_names(key: Key, text: &str, notices: &mut Vec<String>) -> Vec<String> {
    let is_name =
        |s: &str| s.len() <= 40 && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    let mut names: Vec<String> = Vec::new();
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if !is_name(name) {
            notices.push(format!("{}: '{}' is not the name of a part; ignored.", key.name(), shorten(name)));
        } else if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
    names
}

/// The sweep view a link asks for; anything it cannot use falls back to the scenario's default
/// sweep, with a notice.
fn decode_sweep<'a>(
    scenario: &'static ScenarioSpec,
    x: &str,
    find: &impl Fn(Key) -> Option<&'a str>,
    notices: &mut Vec<String>,
) -> SweepView {
    let mut view = SweepView::default_for(scenario);
    let numeric = |id: &str| scenario.param(id).filter(|p| p.kind == ParamKind::Number);
    match numeric(x) {
        Some(p) => {
            if p.id != view.x {
                view.by = None;
            }
            view.x = p.id;
        }
        None => {
            notices.push(format!("sweep: '{}' is not a numeric parameter; sweeping {} instead.", shorten(x), view.x))
        }
    }
    match find(Key::By) {
        None => {}
        Some("none") => view.by = None,
        Some(id) => match scenario.param(id).filter(|p| matches!(p.kind, ParamKind::Choice(_))) {
            Some(p) => view.by = Some(p.id),
            None => notices.push(format!("by: '{}' is not a choice parameter; ignored.", shorten(id))),
        },
    }
    if let Some(key) = find(Key::SweepMetric) {
        match scenario.metric(key) {
            Some(m) => view.metric = m.key,
            None => notices.push(format!("sweep_metric: unknown metric '{}'; showing {}.", shorten(key), view.metric)),
        }
    }
    if let Some(text) = find(Key::SweepSeeds) {
        match text.trim().parse::<usize>() {
            Ok(k) if (1..=MAX_SWEEP_SEEDS).contains(&k) => view.seeds = k,
            _ => notices.push(format!(
                "sweep_seeds: '{}' is not a whole number from 1 to {MAX_SWEEP_SEEDS}; using {}.",
                shorten(text),
                view.seeds
            )),
        }
    }
    view
}

/// Encodes a state as a query string (without the `?`), naming only what differs from the
/// defaults, so links stay short and readable.
pub fn encode(state: &State) -> String {
    let mut out = vec![format!("sim={}", state.scenario.id)];
    if let Some(p) = state.preset {
        out.push(format!("preset={p}"));
    }
    let base = state.baseline();
    for ((spec, text), (b, v)) in state.params.formatted().zip(base.values().iter().zip(state.params.values())) {
        if b != v {
            out.push(format!("{}={}", spec.id, percent_encode(&text)));
        }
    }
    if state.seed != DEFAULT_SEED {
        out.push(format!("seed={}", state.seed));
    }
    if let Some(d) = state.duration_ms {
        out.push(format!("duration_ms={d}"));
    }
    if state.speed != 1.0 {
        out.push(format!("speed={}", plain(state.speed)));
    }
    if state.embed {
        out.push("embed=1".into());
    }
    if let Some(c) = &state.controls {
        out.push(format!("controls={}", c.join(",")));
    }
    if !state.presets.is_empty() {
        out.push(format!("presets={}", state.presets.join(",")));
    }
    if !state.show.is_empty() {
        out.push(format!("show={}", state.show.join(",")));
    }
    if let Some(c) = &state.chart {
        out.push(format!("chart={c}"));
    }
    match state.autoplay {
        Autoplay::Off => {}
        Autoplay::OnLoad => out.push("autoplay=1".into()),
        Autoplay::InView => out.push("autoplay=view".into()),
    }
    match state.theme {
        Theme::Auto => {}
        Theme::Light => out.push("theme=light".into()),
        Theme::Dark => out.push("theme=dark".into()),
    }
    match state.at {
        None => {}
        Some(At::End) => out.push("at=end".into()),
        Some(At::Ms(ms)) => out.push(format!("at={ms}")),
    }
    if let Some(v) = state.sweep {
        out.push(format!("sweep={}", v.x));
        let default = SweepView { x: v.x, ..SweepView::default_for(state.scenario) };
        let default_by = if v.x == state.scenario.sweep.x { default.by } else { None };
        if v.by != default_by {
            out.push(format!("by={}", v.by.unwrap_or("none")));
        }
        if v.metric != default.metric {
            out.push(format!("sweep_metric={}", v.metric));
        }
        if v.seeds != SWEEP_SEEDS {
            out.push(format!("sweep_seeds={}", v.seeds));
        }
    }
    out.join("&")
}

/// A duration a reader wrote (link, command line), for a run of `state`'s parameters: from
/// [`MIN_DURATION_MS`] to the longer of [`MAX_DURATION_MS`] and the run's own length (a run that
/// jumps idle stretches may need days), the nearest end when outside; `None` when it is not a
/// number (the run's own length is used).
pub fn read_duration(text: &str, state: &State) -> (Option<u64>, Option<String>) {
    let max = state.max_duration_ms();
    match decimal::parse(text.trim()) {
        Some(d) if d.is_finite() => {
            let clamped = libm::round(d.clamp(MIN_DURATION_MS as f64, max as f64));
            let notice = (clamped != d).then(|| {
                format!(
                    "duration_ms: {} is not a whole number from {MIN_DURATION_MS} to {max} ms; using {}.",
                    shorten(text),
                    clamped as u64
                )
            });
            (Some(clamped as u64), notice)
        }
        _ => (None, Some(format!("duration_ms: '{}' is not a number; the run's own length is used.", shorten(text)))),
    }
}

/// The query string in what an author pastes: a link, a bare query, or an iframe's `src` with
/// `&amp;` for `&`; any `#fragment` dropped. `None` for a link with no query at all.
pub fn pasted_query(text: &str) -> Option<String> {
    let text = text.trim().replace("&amp;", "&");
    let text = text.split('#').next().unwrap_or_default();
    match text.split_once('?') {
        Some((_, query)) => Some(query.to_string()),
        None if text.contains("://") || text.starts_with('/') => None,
        None => Some(text.to_string()),
    }
}

/// When an embed starts playing by itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Autoplay {
    #[default]
    Off,
    /// `autoplay=1`: as soon as it has loaded.
    OnLoad,
    /// `autoplay=view`: while it is in view (scrolled out, it pauses), unless it asks the reader
    /// for a prediction first.
    InView,
}

impl Autoplay {
    fn read(text: &str) -> Self {
        match text.trim() {
            "view" => Autoplay::InView,
            t if truthy(t) => Autoplay::OnLoad,
            _ => Autoplay::Off,
        }
    }
}

/// The moment a figure opens at (`at=`): its run's end, or a time of the run in ms (a time past
/// the end is the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    End,
    Ms(u64),
}

impl At {
    fn read(text: &str) -> Option<Self> {
        match text.trim() {
            "end" => Some(At::End),
            t => decimal::parse(t)
                .filter(|ms| ms.is_finite() && *ms >= 0.0)
                .map(|ms| At::Ms(ms.round().min(u64::MAX as f64) as u64)),
        }
    }

    /// The simulated time (µs) to open at, for a run that ends at `end` (µs).
    pub fn micros(self, end: u64) -> u64 {
        match self {
            At::End => end,
            At::Ms(ms) => ms.saturating_mul(1000).min(end),
        }
    }
}

/// The colour scheme a page or figure is drawn in (`theme=`): the reader's system's, or the one
/// a chapter forces to match its own page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    /// `light`, `dark` or `auto`; None for anything else.
    fn read(text: &str) -> Option<Self> {
        match text.trim() {
            "auto" => Some(Theme::Auto),
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }
}

fn truthy(text: &str) -> bool {
    matches!(text.trim(), "" | "1" | "true" | "yes" | "on")
}

pub fn nearest_speed(s: f64) -> f64 {
    SPEEDS.iter().copied().min_by(|a, b| (a - s).abs().total_cmp(&(b - s).abs())).unwrap_or(1.0)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
