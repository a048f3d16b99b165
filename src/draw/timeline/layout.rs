//! Where everything goes: the rows' heights, the gutter, the time axis, and the one rule that
//! places every label. A label has a list of candidate places in order of preference; it takes
//! the first that lies inside the canvas and touches no label already placed and no bar or
//! mark, or it is left out. Lane and row names (in the gutter), the axis and the playhead are
//! placed first; then labels inside bars, the marks' and the bars' outcomes lane by lane, the
//! links', the meters' and last the spans'.

use super::data::{Fill, Lane, TimelineData};
use crate::draw::FONT;
use crate::draw::nice_step;
use crate::format;

/// The band above the lanes: the playhead's time and the labels of spans across all lanes.
pub const TOP: f64 = 17.0;
/// One line of labels.
pub const LINE: f64 = 15.0;
/// A label's box.
pub const LABEL_H: f64 = 14.0;
pub const BAR: f64 = 14.0;
/// A meter's strip under the bar, with the gap above it.
pub const METER: f64 = 7.0;
const ROW_PAD: f64 = 1.0;
/// The time axis under the lanes.
pub const AXIS: f64 = 20.0;
/// Room kept between two labels on one line: at 4 px, "caller left, ignored" and "gives up
/// 2,512 ms" beside it read as one phrase.
const GAP: f64 = 10.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Font {
    Plain,
    Bold,
    Italic,
}

impl Font {
    pub fn css(self) -> &'static str {
        match self {
            Font::Plain => FONT,
            Font::Bold => "600 11px system-ui, sans-serif",
            Font::Italic => "italic 11px system-ui, sans-serif",
        }
    }
}

/// What a label is drawn in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ink {
    Fg,
    Muted,
    Slot(usize),
    /// Inside a solid bar.
    OnSolid,
}

/// A label in its place: its box (top left, width, height) and how it is drawn. A label outside
/// the bars is drawn on a box of the background's colour, so lines pass under it.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub text: String,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub font: Font,
    pub ink: Ink,
    pub inside_bar: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Rect {
    fn hits(&self, o: &Rect, gap: f64) -> bool {
        self.x < o.x + o.w + gap && o.x < self.x + self.w + gap && self.y < o.y + o.h && o.y < self.y + self.h
    }
}

/// One row's geometry (tops, in CSS px).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowBox {
    pub top: f64,
    pub bar: f64,
    pub meter: Option<f64>,
    /// The first line under the bar (and meter).
    pub below: f64,
    pub lines_below: usize,
    pub bottom: f64,
}

impl RowBox {
    /// The tops of its label lines, in order of preference: beside the bars, above them, below.
    fn lines(&self) -> impl Iterator<Item = f64> + '_ {
        [self.bar, self.top].into_iter().chain((0..self.lines_below).map(|i| self.below + i as f64 * LINE))
    }

    /// The lines that are not the bars' own: above, then below.
    fn free_lines(&self) -> impl Iterator<Item = f64> + '_ {
        std::iter::once(self.top).chain((0..self.lines_below).map(|i| self.below + i as f64 * LINE))
    }
}

pub struct Plan {
    pub width: f64,
    /// The plot's left and right edges: the gutter is left of `left`.
    pub left: f64,
    pub right: f64,
    pub x0: f64,
    pub x1: f64,
    /// A log axis (from `x0`, above 0), or linear.
    pub log: bool,
    pub plot_top: f64,
    pub plot_bottom: f64,
    /// Per lane, per row.
    pub rows: Vec<Vec<RowBox>>,
    /// The axis's ticks (ms).
    pub ticks: Vec<f64>,
    pub labels: Vec<Placed>,
}

impl Plan {
    pub fn px(&self, t: f64) -> f64 {
        let t = t.clamp(self.x0, self.x1);
        let share = if self.log {
            libm::log(t / self.x0) / libm::log(self.x1 / self.x0)
        } else {
            (t - self.x0) / (self.x1 - self.x0)
        };
        self.left + share * (self.right - self.left)
    }

    pub fn row(&self, lane: usize, row: usize) -> Option<&RowBox> {
        self.rows.get(lane).and_then(|r| r.get(row))
    }

    /// Where a link leaves or reaches a row: the bar's (or meter's) bottom when the other end
    /// is lower, else the bar's top.
    pub fn link_y(&self, lane: usize, row: usize, toward_lower: bool) -> f64 {
        match self.row(lane, row) {
            Some(r) if toward_lower => r.meter.map_or(r.bar + BAR, |m| m + 4.0) + 1.0,
            Some(r) => r.bar - 1.0,
            None => self.plot_top,
        }
    }

    /// The boxes of the labels drawn, as JSON, for the tests.
    pub fn labels_json(&self) -> String {
        let items: Vec<String> =
            self.labels.iter().map(|l| crate::draw::labels::label_json(&l.text, l.x, l.y, l.w, LABEL_H)).collect();
        format!("[{}]", items.join(","))
    }
}

/// The rows' geometry and the canvas height for `lanes`: each lane's rows, then its notes.
fn rows(lanes: &[Lane]) -> (Vec<Vec<RowBox>>, f64) {
    let mut y = TOP;
    let mut all = Vec::with_capacity(lanes.len());
    for lane in lanes {
        let meter = !lane.meters.is_empty();
        let mut boxes = Vec::with_capacity(lane.rows.len().max(1) + lane.notes.len());
        for _ in 0..lane.rows.len().max(1) {
            let top = y;
            let bar = top + LINE;
            let meter_top = meter.then_some(bar + BAR + 2.0);
            let below = bar + BAR + if meter { METER } else { 0.0 };
            y = below + lane.lines_below as f64 * LINE + ROW_PAD;
            boxes.push(RowBox { top, bar, meter: meter_top, below, lines_below: lane.lines_below, bottom: y });
        }
        for _ in &lane.notes {
            let top = y;
            y += LINE + ROW_PAD;
            boxes.push(RowBox { top, bar: top, meter: None, below: y, lines_below: 0, bottom: y });
        }
        all.push(boxes);
    }
    (all, y)
}

/// The canvas height the data needs.
pub fn height(d: &TimelineData) -> f64 {
    rows(&d.lanes).1 + AXIS
}

struct Placer<'a> {
    width: f64,
    height: f64,
    measure: &'a dyn Fn(&str, Font) -> f64,
    labels: Vec<Rect>,
    blocked: Vec<Rect>,
    placed: Vec<Placed>,
}

impl Placer<'_> {
    fn free(&self, r: &Rect, gap: f64) -> bool {
        r.x >= 0.0
            && r.y >= 0.0
            && r.x + r.w <= self.width
            && r.y + r.h <= self.height
            && !self.labels.iter().any(|o| r.hits(o, gap))
            && !self.blocked.iter().any(|o| r.hits(o, 0.0))
    }

    /// Takes the box `(x, y, w)` for `text`.
    fn put(&mut self, text: &str, (x, y, w): (f64, f64, f64), font: Font, ink: Ink) {
        self.labels.push(Rect { x, y, w, h: LABEL_H });
        self.placed.push(Placed { text: text.to_string(), x, y, w, font, ink, inside_bar: false });
    }

    /// Places `text` at the first free candidate (left edge, top); false when none is free.
    fn place(&mut self, text: &str, font: Font, ink: Ink, candidates: impl IntoIterator<Item = (f64, f64)>) -> bool {
        if text.is_empty() {
            return false;
        }
        let w = (self.measure)(text, font).ceil();
        for (x, y) in candidates {
            if self.free(&Rect { x, y, w, h: LABEL_H }, GAP) {
                self.put(text, (x, y, w), font, ink);
                return true;
            }
        }
        false
    }
}

/// Lays the timeline out for a canvas `width` px wide; `measure` gives a text's width.
pub fn plan(d: &TimelineData, width: f64, measure: &dyn Fn(&str, Font) -> f64) -> Plan {
    let (rows, plot_bottom) = rows(&d.lanes);
    let height = plot_bottom + AXIS;
    let gutter = d
        .lanes
        .iter()
        .flat_map(|l| {
            let names = l.rows.iter().chain(&l.notes).map(|r| measure(r, Font::Plain));
            std::iter::once(measure(&l.label, Font::Bold)).chain(names)
        })
        .fold(0.0, f64::max);
    let left = if gutter > 0.0 { (gutter + 10.0).min(width * 0.4).ceil() } else { 6.0 };
    let log = d.log_from.filter(|lo| *lo > 0.0 && d.x_range.1 > lo * 10.0);
    let (x0, x1) = match log {
        Some(lo) => (lo, d.x_range.1),
        None => (d.x_range.0, d.x_range.1.max(d.x_range.0 + 1.0)),
    };
    let mut plan = Plan {
        width,
        left,
        right: width - 8.0,
        x0,
        x1,
        log: log.is_some(),
        plot_top: TOP,
        plot_bottom,
        rows,
        ticks: Vec::new(),
        labels: Vec::new(),
    };
    let mut p = Placer { width, height, measure, labels: Vec::new(), blocked: Vec::new(), placed: Vec::new() };
    names(&plan, d, &mut p);
    axis(&mut plan, &mut p);
    playhead(&plan, d, &mut p);
    ghosts(&plan, d, &mut p);
    inside_bars(&plan, d, &mut p);
    block_bodies(&plan, d, &mut p);
    outcomes_and_marks(&plan, d, &mut p);
    links(&plan, d, &mut p);
    meters(&plan, d, &mut p);
    spans(&plan, d, &mut p);
    plan.labels = p.placed;
    plan
}

/// Lane names and row names in the gutter: a lane's name on its first row's bar line, or on
/// the line above it when that row has a name of its own.
fn names(plan: &Plan, d: &TimelineData, p: &mut Placer) {
    for (i, lane) in d.lanes.iter().enumerate() {
        let Some(first) = plan.row(i, 0) else { continue };
        let named_rows = lane.rows.first().is_some_and(|r| !r.is_empty());
        let y = if named_rows { first.top } else { first.bar };
        let w = (p.measure)(&lane.label, Font::Bold).ceil();
        if !lane.label.is_empty() && p.free(&Rect { x: 4.0, y, w, h: LABEL_H }, 0.0) {
            p.put(&lane.label, (4.0, y, w), Font::Bold, Ink::Fg);
        }
        // The notes' boxes follow the rows' (at least one row, named or not).
        let notes = lane.notes.iter().enumerate().map(|(k, n)| (lane.rows.len().max(1) + k, n));
        for (r, name) in lane.rows.iter().enumerate().chain(notes) {
            let (Some(row), false) = (plan.row(i, r), name.is_empty()) else { continue };
            let w = (p.measure)(name, Font::Plain).ceil();
            if p.free(&Rect { x: 4.0, y: row.bar, w, h: LABEL_H }, 0.0) {
                p.put(name, (4.0, row.bar, w), Font::Plain, Ink::Muted);
            }
        }
    }
}

/// A log axis: its decades ("1 ms", "10 ms" … "1 s", "100 s"), those that fit.
fn log_axis(plan: &mut Plan, p: &mut Placer) {
    let y = plan.plot_bottom + 4.0;
    let mut t = libm::pow(10.0, libm::ceil(libm::log10(plan.x0)));
    while t <= plan.x1 * (1.0 + 1e-9) {
        let s = if t < 1000.0 { format::ms(t) } else { format::secs(t / 1000.0) };
        let w = (p.measure)(&s, Font::Plain).ceil();
        let r = Rect { x: (plan.px(t) - w / 2.0).min(plan.width - w).max(0.0), y, w, h: LABEL_H };
        if p.free(&r, 8.0) {
            p.put(&s, (r.x, r.y, r.w), Font::Plain, Ink::Muted);
        }
        plan.ticks.push(t);
        t *= 10.0;
    }
}

/// The axis: the finest round step whose labels all fit side by side; seconds for a run of
/// 2 s or more ("1.5 s"), milliseconds for a closer look ("1,850 ms").
fn axis(plan: &mut Plan, p: &mut Placer) {
    if plan.log {
        return log_axis(plan, p);
    }
    let (x0, x1) = (plan.x0, plan.x1);
    let seconds = x1 - x0 >= 2000.0;
    let text = |t: f64| if seconds { format::secs(t / 1000.0) } else { format::ms(t) };
    let y = plan.plot_bottom + 4.0;
    for px_per_tick in [70.0, 90.0, 120.0, 160.0, 240.0, 360.0, f64::INFINITY] {
        let step = nice_step(x1 - x0, ((plan.right - plan.left) / px_per_tick).max(1.0));
        let mut t = libm::ceil(x0 / step) * step;
        let mut ticks = Vec::new();
        while t <= x1 + 1e-6 {
            ticks.push(t);
            t += step;
        }
        let boxes: Vec<(String, Rect)> = ticks
            .iter()
            .map(|&t| {
                let s = text(t);
                let w = (p.measure)(&s, Font::Plain).ceil();
                // Not `clamp`: a label wider than a canvas being resized would cross its bounds (a panic).
                let x = (plan.px(t) - w / 2.0).min(plan.width - w).max(0.0);
                (s, Rect { x, y, w, h: LABEL_H })
            })
            .collect();
        let apart = boxes.iter().zip(boxes.iter().skip(1)).all(|(a, b)| !a.1.hits(&b.1, 8.0));
        let fits = apart && boxes.iter().all(|b| p.free(&b.1, 0.0));
        if fits || px_per_tick.is_infinite() {
            for (s, r) in &boxes {
                if p.free(r, 0.0) {
                    p.put(s, (r.x, r.y, r.w), Font::Plain, Ink::Muted);
                }
            }
            plan.ticks = ticks;
            return;
        }
    }
}

/// The playhead's time, in the band above the lanes.
fn playhead(plan: &Plan, d: &TimelineData, p: &mut Placer) {
    let Some(now) = d.now.filter(|n| *n >= plan.x0 && *n <= plan.x1) else { return };
    let s = format::ms(libm::round(now));
    let w = (p.measure)(&s, Font::Bold).ceil();
    let x = (plan.px(now) - w / 2.0).clamp(plan.left.min(plan.width - w), plan.width - w);
    if p.free(&Rect { x, y: 1.0, w, h: LABEL_H }, GAP) {
        p.put(&s, (x, 1.0, w), Font::Bold, Ink::Fg);
    }
}

/// An earlier run's name, on the line above its row, as far right as it fits: placed before
/// this run's labels so it stays put while the run plays.
fn ghosts(plan: &Plan, d: &TimelineData, p: &mut Placer) {
    for (i, lane) in d.lanes.iter().enumerate() {
        let Some(g) = &lane.ghost else { continue };
        let Some(row) = plan.row(i, g.marks.first().map_or(0, |m| m.row)) else { continue };
        let w = (p.measure)(&g.label, Font::Italic).ceil();
        let xs = (0..).map(|k| plan.right - w - 6.0 * k as f64).take_while(|x| *x >= plan.left);
        p.place(&g.label, Font::Italic, Ink::Muted, xs.map(|x| (x, row.top)).collect::<Vec<_>>());
    }
}

fn bar_span(plan: &Plan, from: f64, to: f64) -> (f64, f64) {
    let a = plan.px(from);
    (a, plan.px(to).max(a + 2.0))
}

/// Labels inside bars, where they fit.
fn inside_bars(plan: &Plan, d: &TimelineData, p: &mut Placer) {
    for (i, lane) in d.lanes.iter().enumerate() {
        for b in lane.bars.iter().filter(|b| !b.label.is_empty()) {
            let Some(row) = plan.row(i, b.row) else { continue };
            let (a, z) = bar_span(plan, b.from, b.to);
            let w = (p.measure)(&b.label, Font::Plain).ceil();
            if w + 8.0 <= z - a {
                let r = Rect { x: a + 4.0, y: row.bar, w, h: LABEL_H };
                if p.free(&r, 0.0) {
                    let ink = if b.fill == Fill::Solid { Ink::OnSolid } else { Ink::Fg };
                    p.put(&b.label, (r.x, r.y, w), Font::Plain, ink);
                    if let Some(l) = p.placed.last_mut() {
                        l.inside_bar = true;
                    }
                }
            }
        }
    }
}

/// Bars, marks and links' crosses block the labels that come after.
fn block_bodies(plan: &Plan, d: &TimelineData, p: &mut Placer) {
    for (i, lane) in d.lanes.iter().enumerate() {
        for b in &lane.bars {
            if let Some(row) = plan.row(i, b.row) {
                let (a, z) = bar_span(plan, b.from, b.to);
                p.blocked.push(Rect { x: a, y: row.bar + 1.0, w: z - a, h: BAR - 2.0 });
            }
        }
        for m in lane.marks.iter().chain(lane.ghost.iter().flat_map(|g| &g.marks)) {
            if let Some(row) = plan.row(i, m.row) {
                p.blocked.push(Rect { x: plan.px(m.at) - 7.0, y: row.bar, w: 14.0, h: BAR });
            }
        }
    }
    // A link's cross (an answer nobody waits for) ends beside a bar, on a label line: a label
    // there hid half of it.
    for l in d.links.iter().filter(|l| l.cross && l.to.t >= plan.x0 && l.from.t <= plan.x1) {
        let down = (l.from.lane, l.from.row) <= (l.to.lane, l.to.row);
        let (x, y) = (plan.px(l.to.t), plan.link_y(l.to.lane, l.to.row, !down));
        p.blocked.push(Rect { x: x - 5.0, y: y - 5.0, w: 10.0, h: 10.0 });
    }
}

/// Places along a line near an anchor: `preferred` first, then every 6 px out to `lo` and
/// `hi`, nearest first.
fn around(preferred: f64, lo: f64, hi: f64) -> Vec<f64> {
    let mut xs: Vec<f64> = (1..)
        .map(|k| k as f64 * 6.0)
        .take_while(|d| preferred - d >= lo || preferred + d <= hi)
        .flat_map(|d| [preferred - d, preferred + d])
        .filter(|x| *x >= lo && *x <= hi)
        .collect();
    xs.insert(0, preferred);
    xs
}

/// The outcomes at the bars' ends and the marks' labels, lane by lane.
fn outcomes_and_marks(plan: &Plan, d: &TimelineData, p: &mut Placer) {
    for (i, lane) in d.lanes.iter().enumerate() {
        for b in &lane.bars {
            let (Some((text, c)), Some(row)) = (&b.end, plan.row(i, b.row)) else { continue };
            let (a, z) = bar_span(plan, b.from, b.to);
            let w = (p.measure)(text, Font::Bold).ceil();
            // Beside the end; else on a free line, ending at the end or near it; else before the bar.
            let mut spots = vec![(z + 4.0, row.bar)];
            for y in row.free_lines() {
                spots.extend(around((z - w).max(plan.left), z - w - 40.0, z + 4.0).into_iter().map(|x| (x, y)));
            }
            spots.push((a - 4.0 - w, row.bar));
            p.place(text, Font::Bold, Ink::Slot(*c), spots);
        }
        for m in &lane.marks {
            let Some(row) = plan.row(i, m.row) else { continue };
            let x = plan.px(m.at);
            let w = (p.measure)(&m.label, Font::Plain).ceil();
            // Beside the mark; else on a free line, starting at the mark or near it.
            let mut spots = vec![(x + 8.0, row.bar), (x - 8.0 - w, row.bar)];
            for y in row.free_lines() {
                spots.extend(around(x - 3.0, x + 3.0 - w, x + 12.0).into_iter().map(|x| (x, y)));
            }
            p.place(&m.label, Font::Plain, Ink::Fg, spots);
        }
    }
}

/// Links' labels, beside the line on a label line between its two ends.
fn links(plan: &Plan, d: &TimelineData, p: &mut Placer) {
    for link in d.links.iter().filter(|l| !l.label.is_empty()) {
        let down = (link.from.lane, link.from.row) <= (link.to.lane, link.to.row);
        let fy = plan.link_y(link.from.lane, link.from.row, down);
        let ty = plan.link_y(link.to.lane, link.to.row, !down);
        let (fx, tx) = (plan.px(link.from.t), plan.px(link.to.t));
        let (lo, hi) = (fy.min(ty), fy.max(ty));
        let w = (p.measure)(&link.label, Font::Plain).ceil();
        let lines: Vec<f64> = plan
            .rows
            .iter()
            .flatten()
            .flat_map(|r| r.free_lines().collect::<Vec<_>>())
            .filter(|y| *y >= lo - 1.0 && y + LABEL_H <= hi + 1.0)
            .collect();
        let spots = lines.iter().flat_map(|&y| {
            let mid = y + LABEL_H / 2.0;
            let x = if (ty - fy).abs() < 1.0 { fx } else { fx + (tx - fx) * (mid - fy) / (ty - fy) };
            [(x + 5.0, y), (x - 5.0 - w, y)]
        });
        p.place(&link.label, Font::Plain, Ink::Slot(link.color), spots.collect::<Vec<_>>());
    }
}

/// What is left on each meter at the playhead.
fn meters(plan: &Plan, d: &TimelineData, p: &mut Placer) {
    let Some(now) = d.now else { return };
    for (i, lane) in d.lanes.iter().enumerate() {
        for m in &lane.meters {
            let running = now >= m.from.max(plan.x0) && now < m.to && now <= plan.x1 && m.ended.is_none_or(|e| now < e);
            let Some(row) = plan.row(i, m.row).filter(|_| running) else { continue };
            let text = format!("{}: {} left", m.label, format::ms(libm::round(m.to - now)));
            let x = plan.px(now);
            let w = (p.measure)(&text, Font::Plain).ceil();
            let mut lines: Vec<f64> = row.free_lines().collect();
            lines.reverse();
            let spots: Vec<(f64, f64)> = lines.into_iter().flat_map(|y| [(x + 4.0, y), (x - 4.0 - w, y)]).collect();
            p.place(&text, Font::Plain, Ink::Slot(m.color), spots);
        }
    }
}

/// Spans' labels: a lane's inside the span on one of its rows' free lines, the others' in the
/// band above the lanes.
fn spans(plan: &Plan, d: &TimelineData, p: &mut Placer) {
    for s in &d.spans {
        let (a, b) = (plan.px(s.from), plan.px(s.to));
        if b <= a {
            continue;
        }
        let w = (p.measure)(&s.label, Font::Italic).ceil();
        let spots: Vec<(f64, f64)> = match s.lane {
            Some(lane) => {
                let lines: Vec<f64> =
                    plan.rows.get(lane).into_iter().flatten().flat_map(|r| r.lines().collect::<Vec<_>>()).collect();
                let xs = (0..).map(|k| a + 4.0 + 12.0 * k as f64).take_while(|x| x + w + 2.0 <= b);
                xs.flat_map(|x| lines.iter().map(move |&y| (x, y))).collect()
            }
            None => vec![(a + 4.0, 1.0), (a - 4.0 - w, 1.0)],
        };
        p.place(&s.label, Font::Italic, Ink::Slot(s.color), spots);
    }
}
