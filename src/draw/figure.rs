//! `resilience-lab figure`: a run's figure at the moment it was played to, as one SVG: its
//! headline picture, drawn by the page's own drawing code at the height the figure's style
//! sheet gives it, then the caption the embed shows under it (its headline cards and the lead of
//! its verdict, as the scenario's `Explain::caption` declares them).

use std::any::Any;

use super::svg::Svg;
use super::{Pen, Stamp, Theme};
use crate::format;
use crate::sim::{Host, Model, ScenarioSpec, Shown, Simulation};

/// The figure of `sim` now, `width` CSS pixels wide, light or `dark`; None for a simulation
/// without a picture.
pub fn svg(scenario: &ScenarioSpec, sim: &dyn Simulation, width: f64, dark: bool) -> Option<String> {
    let theme = Theme::of(dark);
    let (picture, height) = picture(sim, width, &theme)?;
    let (caption, below) = caption(scenario, sim, width, &theme);
    Some(Svg::document(width, height + below, &[picture, caption.placed("caption", height)]))
}

/// The headline picture, placed at the top, and its height.
fn picture(sim: &dyn Simulation, width: f64, theme: &Theme) -> Option<(String, f64)> {
    let run: &dyn Any = sim;
    #[cfg(feature = "slow-server")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::slow_server::SlowServer>>() {
        use super::slow_server::{HEIGHT, Scene, draw};
        return Some(drawn(width, HEIGHT, theme, |p, w, h, t| draw(p, w, h, t, &Scene::of(run, None))));
    }
    #[cfg(feature = "cascade")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::cascade::Cascade>>() {
        use super::cascade::{HEIGHT, Scene, draw};
        return Some(drawn(width, HEIGHT, theme, |p, w, h, t| draw(p, w, h, t, &Scene::of(run, None))));
    }
    #[cfg(feature = "retry-storm")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::retry_storm::RetryStorm>>() {
        use super::retry_storm::{HEIGHT, Scene, draw, y_top};
        let scene = Scene::of(run, None, y_top(run.config()));
        return Some(drawn(width, HEIGHT, theme, |p, w, h, t| draw(p, w, h, t, &scene)));
    }
    #[cfg(feature = "at-least-once")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::at_least_once::AtLeastOnce>>() {
        use super::at_least_once::{HEIGHT, draw};
        let moment = run.picture(run.now());
        return Some(drawn(width, HEIGHT, theme, |p, w, h, t| draw(p, w, h, t, &moment)));
    }
    #[cfg(feature = "choosing-numbers")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::choosing_numbers::ChoosingNumbers>>() {
        use super::choosing_numbers::{HEIGHT, Scene, draw};
        let bound = crate::scenarios::choosing_numbers::worst_wait_bound(run.config());
        let scene = Scene::of(run, None, bound);
        return Some(drawn(width, HEIGHT, theme, |p, w, h, t| draw(p, w, h, t, &scene)));
    }
    #[cfg(feature = "deadline-chain")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::deadline_chain::DeadlineChain>>() {
        let whole_ms = run.end() as f64 / 1000.0;
        return Some(timeline(width, theme, &super::deadline_chain::data(run, whole_ms, None)));
    }
    #[cfg(feature = "double-click")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::double_click::DoubleClick>>() {
        use crate::scenarios::double_click::DoubleClick;
        let reach = DoubleClick::last_moment_any_fix_ms(run.config());
        let extent = super::double_click::extent(run.config().clone(), run.seed(), run.end(), reach);
        return Some(timeline(width, theme, &super::double_click::data(run, extent, None)));
    }
    #[cfg(feature = "which-timeout")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::which_timeout::WhichTimeout>>() {
        use super::which_timeout::{data, failover};
        // A failover (Break 5) is headed by its calls' chart, one call by its timeline.
        return Some(if run.failover().enabled() {
            chart(width, theme, &failover(run))
        } else {
            timeline(width, theme, &data(run))
        });
    }
    None
}

/// A line chart, as tall as a figure gives it.
fn chart(width: f64, theme: &Theme, data: &super::chart::ChartData) -> (String, f64) {
    use super::chart::{FIGURE_HEIGHT, draw};
    drawn(width, FIGURE_HEIGHT, theme, |p, w, h, t| draw(p, w, h, t, data).labels)
}

/// A request timeline, as tall as its data makes it.
fn timeline(width: f64, theme: &Theme, data: &super::timeline::TimelineData) -> (String, f64) {
    drawn(width, super::timeline::height(data), theme, |p, w, _, t| super::timeline::draw(p, w, t, data))
}

/// A picture `width` × `height` on the theme's background, drawn by `draw`, and its height.
fn drawn(width: f64, height: f64, theme: &Theme, draw: impl FnOnce(&Svg, f64, f64, &Theme) -> String) -> (String, f64) {
    let pen = Svg::new(width, height, theme.bg);
    draw(&pen, width, height, theme);
    (pen.placed("picture", 0.0), height)
}

/// The caption's sizes, in CSS px, as the figure's style sheet sets them (`.stat`, `.verdict`).
const PAD: f64 = 12.0;
const GAP: f64 = 8.0;
const LABEL: &str = "12px system-ui, sans-serif";
const VALUE: &str = "bold 21px system-ui, sans-serif";
/// A value too wide for its card at [`VALUE`] (an error's name), as `.stat .value.long`.
const VALUE_LONG: &str = "bold 14px system-ui, sans-serif";
const UNIT: &str = "13px system-ui, sans-serif";
const VERDICT: &str = "15px system-ui, sans-serif";
const LINE_H: f64 = 21.0;

/// One stat card: its label, its value and its unit, as the page's card writes them.
struct Card {
    label: &'static str,
    value: String,
    unit: &'static str,
}

/// The caption under the picture: the cards in a row (two a row under 560 px, as a phone's
/// figure shows them), then the verdict's lead; and its height.
fn caption(scenario: &ScenarioSpec, sim: &dyn Simulation, width: f64, theme: &Theme) -> (Svg, f64) {
    let said = sim.caption();
    let metrics = sim.metrics();
    let cards: Vec<Card> = said
        .cards
        .iter()
        .filter_map(|key| {
            let spec = scenario.metrics.iter().find(|m| m.key == *key)?;
            let value = &metrics.iter().find(|(k, _)| k == key)?.1;
            let (value, unit) = format::quantity(value, spec.unit);
            Some(Card { label: spec.label, value, unit })
        })
        .collect();
    let verdict = verdict(&sim.reading(), said.verdict, said.shown);
    let per_row = if width >= 560.0 { 4 } else { 2 }.min(cards.len().max(1));
    let card_w = (width - 2.0 * PAD - GAP * (per_row - 1) as f64) / per_row as f64;
    let measure = Svg::new(width, 0.0, theme.bg);
    let laid: Vec<Laid> = cards.iter().map(|c| Laid::of(&measure, c, card_w - 20.0)).collect();
    let rows: Vec<f64> = laid.chunks(per_row).map(|row| row.iter().map(Laid::height).fold(0.0, f64::max)).collect();
    let lines = wrap(&measure, verdict.split_whitespace(), " ", VERDICT, width - 2.0 * PAD);
    let cards_h: f64 = rows.iter().map(|h| h + GAP).sum();
    let height = PAD + cards_h + lines.len() as f64 * LINE_H + PAD;
    let pen = Svg::new(width, height, theme.bg);
    let mut y = PAD;
    for (row, row_h) in laid.chunks(per_row).zip(&rows) {
        for (i, card) in row.iter().enumerate() {
            draw_card(&pen, theme, card, PAD + i as f64 * (card_w + GAP), y, card_w, *row_h);
        }
        y += row_h + GAP;
    }
    for (i, line) in lines.iter().enumerate() {
        let top = PAD + cards_h + i as f64 * LINE_H;
        text(&pen, line, VERDICT, theme.fg, PAD, top, LINE_H);
    }
    (pen, height)
}

/// A card laid out in its width: its value on one line, or, too wide for it (an error's name),
/// smaller and broken after its underscores, as the page's card wraps it.
struct Laid<'a> {
    card: &'a Card,
    font: &'static str,
    lines: Vec<String>,
}

impl<'a> Laid<'a> {
    fn of(p: &Svg, card: &'a Card, inner: f64) -> Self {
        let unit_w = unit_width(p, card);
        if p.text_width(VALUE, &card.value) + unit_w <= inner {
            return Laid { card, font: VALUE, lines: vec![card.value.clone()] };
        }
        let lines = wrap(p, card.value.split_inclusive('_'), "", VALUE_LONG, inner - unit_w);
        Laid { card, font: VALUE_LONG, lines: lines.iter().map(|l| fitted(p, l, VALUE_LONG, inner - unit_w)).collect() }
    }

    /// The label's line, the value's lines and the padding.
    fn height(&self) -> f64 {
        22.0 + self.lines.len() as f64 * self.line_height() + 6.0
    }

    fn line_height(&self) -> f64 {
        if self.font == VALUE { 28.0 } else { 18.0 }
    }
}

fn unit_width(p: &Svg, card: &Card) -> f64 {
    if card.unit.is_empty() { 0.0 } else { p.text_width(UNIT, card.unit) + 4.0 }
}

/// The verdict as the figure shows it before a "Why?".
pub fn verdict(reading: &crate::sim::Reading, key: &str, shown: Shown) -> String {
    let said = reading.iter().find(|(k, _)| *k == key).map_or("", |(_, s)| s.as_str());
    match shown {
        Shown::Whole => said.to_string(),
        Shown::Lead => format::lead(said, format::FIGURE_VERDICT_WORDS).0.to_string(),
        Shown::FirstSentence => {
            format::lead(&format::first_sentences(said, 1), format::FIGURE_VERDICT_WORDS).0.to_string()
        }
    }
}

fn draw_card(p: &Svg, theme: &Theme, laid: &Laid, x: f64, y: f64, w: f64, h: f64) {
    p.set_stroke_style_str(theme.grid);
    p.set_line_width(1.0);
    p.stroke_rect(x + 0.5, y + 0.5, w - 1.0, h - 1.0);
    let card = laid.card;
    text(p, &fitted(p, card.label, LABEL, w - 20.0), LABEL, theme.muted, x + 10.0, y + 6.0, 16.0);
    let line_h = laid.line_height();
    for (i, line) in laid.lines.iter().enumerate() {
        text(p, line, laid.font, theme.fg, x + 10.0, y + 22.0 + i as f64 * line_h, line_h);
    }
    if !card.unit.is_empty() {
        let last = laid.lines.last().map_or("", String::as_str);
        let after = x + 10.0 + p.text_width(laid.font, last) + 4.0;
        let top = y + 22.0 + (laid.lines.len() - 1) as f64 * line_h;
        text(p, card.unit, UNIT, theme.muted, after, top + 2.0, line_h - 2.0);
    }
}

/// A line of text whose box's top is `top` and height `h`, its baseline three quarters down.
fn text(p: &Svg, line: &str, font: &'static str, ink: &str, x: f64, top: f64, h: f64) {
    let width = p.text_width(font, line);
    let stamp =
        Stamp { text: line, font, ink, bg: None, left: x, top, width, height: h, text_x: 0.0, baseline: h * 0.75 };
    p.label(&stamp);
}

/// `text`, cut with an ellipsis where it would pass `max` px.
fn fitted(p: &Svg, text: &str, font: &'static str, max: f64) -> String {
    if p.text_width(font, text) <= max {
        return text.to_string();
    }
    let mut cut: String = text.to_string();
    while !cut.is_empty() && p.text_width(font, &format!("{cut}…")) > max {
        cut.pop();
    }
    format!("{}…", cut.trim_end())
}

/// `parts` joined by `joint` in lines of at most `max` px in `font`, broken between parts.
fn wrap<'t>(p: &Svg, parts: impl Iterator<Item = &'t str>, joint: &str, font: &'static str, max: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for part in parts {
        match lines.last_mut() {
            Some(line) if p.text_width(font, &format!("{line}{joint}{part}")) <= max => {
                line.push_str(joint);
                line.push_str(part);
            }
            _ => lines.push(part.to_string()),
        }
    }
    lines
}
