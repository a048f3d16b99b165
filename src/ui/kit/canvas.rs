//! Canvas plumbing shared by the chart and the two timelines: a HiDPI-sized 2D context, and a
//! redraw that runs when the data changes but reads the canvas's size only when its box changes
//! (reading it every frame would force a layout after each DOM update). A canvas
//! out of view redraws a few times a second, not every frame, and text is measured once and
//! drawn once (a label is a stamp copied from its own small canvas).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    CanvasRenderingContext2d, HtmlCanvasElement, IntersectionObserver, IntersectionObserverEntry, ResizeObserver,
};

use crate::draw::{Pen, Stamp};
use crate::ui::runner::{Trailing, WORDS_EVERY_MS};

/// Sizes the canvas's backing store for the screen's pixel ratio and returns a context that
/// draws in CSS pixels, cleared.
pub fn context(el: &HtmlCanvasElement, css_w: f64, css_h: f64) -> Option<CanvasRenderingContext2d> {
    let dpr = window().device_pixel_ratio().max(1.0);
    let (pw, ph) = ((css_w * dpr) as u32, (css_h * dpr) as u32);
    if el.width() != pw || el.height() != ph {
        el.set_width(pw);
        el.set_height(ph);
    }
    let ctx = el.get_context("2d").ok().flatten()?.dyn_into::<CanvasRenderingContext2d>().ok()?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, css_w, css_h);
    Some(ctx)
}

/// Sets an attribute unless it already has that value: a changed attribute (the inline style
/// above all) makes the browser recompute the page's style before the canvas can draw text.
pub fn set_attribute(el: &HtmlCanvasElement, name: &str, value: &str) {
    if el.get_attribute(name).as_deref() != Some(value) {
        let _ = el.set_attribute(name, value);
    }
}

/// A canvas drawn by `draw` from the page's data, and that data for the component's other
/// readers (legend, summary). The data is computed once per change however many parts of the
/// component read it (a page passes a derived signal, which would otherwise run again for every
/// reader), and a frame that leaves it unchanged does not redraw.
pub fn drawn_canvas<T: Clone + PartialEq + Send + Sync + 'static>(
    data: Signal<T>,
    draw: impl Fn(&HtmlCanvasElement, f64, f64, &T) + 'static,
) -> (NodeRef<leptos::html::Canvas>, Signal<T>) {
    let data: Signal<T> = Memo::new(move |_| data.get()).into();
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    redraw_on_change(canvas, data, draw);
    (canvas, data)
}

/// Calls `draw(canvas, css_width, css_height, data)` whenever `data` or the canvas's size
/// changes: at once while the canvas is in view, within [`WORDS_EVERY_MS`] while it is not
/// (a phone's full page has most of its charts below the screen).
fn redraw_on_change<T: Send + Sync + 'static>(
    canvas: NodeRef<leptos::html::Canvas>,
    data: Signal<T>,
    draw: impl Fn(&HtmlCanvasElement, f64, f64, &T) + 'static,
) {
    let size = watch_size(canvas);
    let in_view = watch_in_view(canvas, true);
    let draw = Rc::new(draw);
    let queued = Rc::new(Cell::new(false));
    // One draw in the next frame, however many changes come before it.
    let queue_draw = Rc::new(move || {
        if queued.replace(true) {
            return;
        }
        let (queued, draw) = (queued.clone(), draw.clone());
        draw_in_next_frame(Box::new(move || {
            queued.set(false);
            let (Some(Some(el)), Some(Some((w, h)))) = (canvas.try_get_untracked(), size.try_get_untracked()) else {
                return;
            };
            data.try_with_untracked(|d| draw(&el, w, h, d));
        }));
    });
    let pace = Trailing::new();
    Effect::new(move |_| {
        if canvas.get().is_none() || size.get().is_none() {
            return;
        }
        data.track();
        if in_view.get() || PRINTING.get() {
            pace.ran();
            queue_draw();
        } else {
            let queue_draw = queue_draw.clone();
            pace.call(WORDS_EVERY_MS, move || queue_draw());
        }
    });
}

thread_local! {
    static PRINTING: Cell<bool> = const { Cell::new(false) };
    /// The draws waiting for the next animation frame.
    static QUEUE: RefCell<Vec<Box<dyn FnOnce()>>> = const { RefCell::new(Vec::new()) };
}

/// While the page is being printed, every canvas draws at once, in view or not, the draws
/// already waiting for a frame too: the browser lays the page out for print before another
/// animation frame comes (see `super::print`).
pub fn set_printing(on: bool) {
    PRINTING.set(on);
    if on {
        QUEUE.take().into_iter().for_each(|f| f());
    }
}

/// Runs `f` in the next animation frame, with every other canvas's draw: after the frame's
/// changes to the page, so the browser brings its style up to date once for all of them (text
/// drawn on a canvas needs it up to date, and a draw between two changes made it do it again).
/// While printing, at once.
fn draw_in_next_frame(f: Box<dyn FnOnce()>) {
    if PRINTING.get() {
        return f();
    }
    let first = QUEUE.with_borrow_mut(|q| {
        q.push(f);
        q.len() == 1
    });
    if first {
        request_animation_frame(|| QUEUE.take().into_iter().for_each(|f| f()));
    }
}

/// Whether the element is on the screen (or near it), kept up to date by an
/// IntersectionObserver; `until_known` until the observer first answers. In an embed's frame,
/// the screen is the chapter's: the observer sees the frame scrolled out of the chapter's view.
pub fn watch_in_view<E>(node: NodeRef<E>, until_known: bool) -> RwSignal<bool>
where
    E: leptos::html::ElementType,
    E::Output: JsCast + Clone + 'static,
{
    let in_view = RwSignal::new(until_known);
    let on_change = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
        if let Some(entry) = entries.iter().last().and_then(|e| e.dyn_into::<IntersectionObserverEntry>().ok()) {
            let _ = in_view.try_set(entry.is_intersecting());
        }
    });
    let Ok(observer) = IntersectionObserver::new(on_change.as_ref().unchecked_ref()) else { return in_view };
    // Both live as long as the component (the owner drops them), the observer disconnected first.
    let observer = StoredValue::new_local(observer);
    let _callback = StoredValue::new_local(on_change);
    node.on_load(move |el| observer.with_value(|o| o.observe(el.unchecked_ref())));
    on_cleanup(move || {
        observer.try_with_value(|o| o.disconnect());
    });
    in_view
}

/// The canvas's size in CSS pixels as laid out, from its first layout on and whenever its box
/// changes. Not measured once at mount: the layout may not be final then (a column beside it
/// still filling, a scroll bar to come), and a canvas sized then draws its picture for a width
/// it is not shown at until the window is resized.
fn watch_size(canvas: NodeRef<leptos::html::Canvas>) -> RwSignal<Option<(f64, f64)>> {
    let size = RwSignal::new(None::<(f64, f64)>);
    let on_change = Closure::<dyn Fn(js_sys::Array)>::new(move |_: js_sys::Array| {
        let Some(Some(el)) = canvas.try_get_untracked() else { return };
        let now = Some((el.client_width().max(100) as f64, el.client_height().max(60) as f64));
        if size.try_get_untracked() != Some(now) {
            let _ = size.try_set(now);
        }
    });
    let Ok(observer) = ResizeObserver::new(on_change.as_ref().unchecked_ref()) else { return size };
    // Both live as long as the component (the owner drops them), the observer disconnected first.
    let observer = StoredValue::new_local(observer);
    let _callback = StoredValue::new_local(on_change);
    canvas.on_load(move |el| observer.with_value(|o| o.observe(&el)));
    on_cleanup(move || {
        observer.try_with_value(|o| o.disconnect());
    });
    size
}

/// Sets the context's font unless it has it already: setting one makes the browser bring the
/// page's style up to date first (to resolve the font against the canvas), a millisecond or
/// more per chart per frame on a phone.
pub fn set_font(ctx: &CanvasRenderingContext2d, font: &'static str) {
    thread_local! {
        // Each font as the context spells it back.
        static SPELLED: RefCell<Vec<(&'static str, String)>> = const { RefCell::new(Vec::new()) };
    }
    let current = ctx.font();
    if SPELLED.with_borrow(|s| s.iter().any(|(f, spelled)| *f == font && *spelled == current)) {
        return;
    }
    ctx.set_font(font);
    let spelled = ctx.font();
    SPELLED.with_borrow_mut(|s| match s.iter_mut().find(|(f, _)| *f == font) {
        Some(entry) => entry.1 = spelled,
        None => s.push((font, spelled)),
    });
}

/// The width of `text` in `font`, measured once (the canvas's font is `font` after a
/// measurement).
pub fn text_width(ctx: &CanvasRenderingContext2d, font: &'static str, text: &str) -> f64 {
    thread_local! {
        static WIDTHS: RefCell<HashMap<&'static str, HashMap<String, f64>>> = RefCell::new(HashMap::new());
    }
    /// The labels of a page are a few hundred; past this many in a font, its cache starts again.
    const MOST: usize = 4096;
    if let Some(w) = WIDTHS.with_borrow(|m| m.get(font).and_then(|widths| widths.get(text)).copied()) {
        return w;
    }
    set_font(ctx, font);
    let w = ctx.measure_text(text).map(|m| m.width()).unwrap_or(text.chars().count() as f64 * 6.0);
    WIDTHS.with_borrow_mut(|m| {
        let widths = m.entry(font).or_default();
        if widths.len() >= MOST {
            widths.clear();
        }
        widths.insert(text.to_string(), w);
    });
    w
}

/// Draws a label. A label drawn a second time is drawn once into a small canvas of its own, at
/// the screen's pixel ratio, and copied from there whenever it is drawn again: `fillText` shapes
/// and rasterises its text on every call (most of a chart's labels are the same from one frame
/// to the next, and drawing them was a sixth of a playing page's script on a phone's CPU), a copy
/// of a few hundred pixels costs a fraction of that. A label seen for the first time is drawn
/// directly: one whose text changes every frame (a clock, a growing count) would otherwise make
/// a canvas each frame, which costs more than the text (a timeline's labels were a fifth of an
/// embed's frame on a phone's CPU). Either way it lands on whole device pixels, so it stays sharp
/// and does not move when it becomes a copy.
pub fn stamp(ctx: &CanvasRenderingContext2d, s: &Stamp) {
    thread_local! {
        // Label -> its canvas, or `true` once seen and not yet engraved. A JavaScript Map: a Rust
        // map of canvases cost the module a kilobyte more.
        static STAMPS: js_sys::Map = js_sys::Map::new();
    }
    /// A page draws a few hundred distinct labels; a count that changes every frame makes new
    /// ones, so past this many the cache starts again.
    const MOST: u32 = 1024;
    let dpr = window().device_pixel_ratio().max(1.0);
    let key = JsValue::from(stamp_key(s, dpr));
    let (x, y) = ((s.left * dpr).round() / dpr, (s.top * dpr).round() / dpr);
    let plate = match STAMPS.with(|m| m.get(&key)).dyn_into::<HtmlCanvasElement>() {
        Ok(plate) => Some(plate),
        // Undefined: never seen; `true`: seen once, so it is worth a canvas now.
        Err(seen) => {
            let plate = (!seen.is_undefined()).then(|| engrave(s, dpr)).flatten();
            STAMPS.with(|m| {
                if m.size() >= MOST {
                    m.clear();
                }
                m.set(&key, plate.as_ref().map_or(&JsValue::TRUE, |p| p.as_ref()));
            });
            plate
        }
    };
    match plate {
        Some(plate) => {
            let (w, h) = (f64::from(plate.width()) / dpr, f64::from(plate.height()) / dpr);
            let _ = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(&plate, x, y, w, h);
        }
        None => {
            ctx.save();
            ctx.translate(x, y).ok();
            letter(ctx, s);
            ctx.restore();
        }
    }
}

/// What tells two labels apart: their text, font, colours, box and the pixel ratio.
fn stamp_key(s: &Stamp, dpr: f64) -> String {
    let mut key = String::with_capacity(s.text.len() + 96);
    for part in [s.text, s.font, s.ink, s.bg.unwrap_or("")] {
        key.push_str(part);
        key.push('\u{1}');
    }
    for n in [s.width, s.height, s.text_x, s.baseline, dpr] {
        key.push_str(&n.to_bits().to_string());
        key.push('\u{1}');
    }
    key
}

/// Draws the label with its box's top-left corner at the context's origin.
fn letter(ctx: &CanvasRenderingContext2d, s: &Stamp) {
    if let Some(bg) = s.bg {
        ctx.set_fill_style_str(bg);
        ctx.fill_rect(0.0, 0.0, s.width, s.height);
    }
    set_font(ctx, s.font);
    ctx.set_text_align("left");
    ctx.set_fill_style_str(s.ink);
    let _ = ctx.fill_text(s.text, s.text_x, s.baseline);
}

/// The label drawn on a canvas of its own size, `dpr` device pixels to a CSS pixel.
fn engrave(s: &Stamp, dpr: f64) -> Option<HtmlCanvasElement> {
    let plate = document().create_element("canvas").ok()?.dyn_into::<HtmlCanvasElement>().ok()?;
    plate.set_width((s.width * dpr).ceil().max(1.0) as u32);
    plate.set_height((s.height * dpr).ceil().max(1.0) as u32);
    let ctx = plate.get_context("2d").ok().flatten()?.dyn_into::<CanvasRenderingContext2d>().ok()?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    letter(&ctx, s);
    Some(plate)
}

/// The page's pen is the canvas's own context: each picture compiles to calls on it.
impl Pen for CanvasRenderingContext2d {
    fn set_fill_style_str(&self, ink: &str) {
        CanvasRenderingContext2d::set_fill_style_str(self, ink);
    }

    fn set_stroke_style_str(&self, ink: &str) {
        CanvasRenderingContext2d::set_stroke_style_str(self, ink);
    }

    fn set_line_width(&self, w: f64) {
        CanvasRenderingContext2d::set_line_width(self, w);
    }

    fn set_global_alpha(&self, a: f64) {
        CanvasRenderingContext2d::set_global_alpha(self, a);
    }

    fn set_line_dash(&self, dash: &[f64]) {
        let _ = CanvasRenderingContext2d::set_line_dash(
            self,
            &dash.iter().map(|&d| JsValue::from(d)).collect::<js_sys::Array>(),
        );
    }

    fn begin_path(&self) {
        CanvasRenderingContext2d::begin_path(self);
    }

    fn move_to(&self, x: f64, y: f64) {
        CanvasRenderingContext2d::move_to(self, x, y);
    }

    fn line_to(&self, x: f64, y: f64) {
        CanvasRenderingContext2d::line_to(self, x, y);
    }

    fn arc(&self, x: f64, y: f64, r: f64, from: f64, to: f64) {
        let _ = CanvasRenderingContext2d::arc(self, x, y, r, from, to);
    }

    fn rect(&self, x: f64, y: f64, w: f64, h: f64) {
        CanvasRenderingContext2d::rect(self, x, y, w, h);
    }

    fn close_path(&self) {
        CanvasRenderingContext2d::close_path(self);
    }

    fn fill(&self) {
        CanvasRenderingContext2d::fill(self);
    }

    fn stroke(&self) {
        CanvasRenderingContext2d::stroke(self);
    }

    fn fill_rect(&self, x: f64, y: f64, w: f64, h: f64) {
        CanvasRenderingContext2d::fill_rect(self, x, y, w, h);
    }

    fn stroke_rect(&self, x: f64, y: f64, w: f64, h: f64) {
        CanvasRenderingContext2d::stroke_rect(self, x, y, w, h);
    }

    fn text_width(&self, font: &'static str, text: &str) -> f64 {
        text_width(self, font, text)
    }

    fn label(&self, s: &Stamp) {
        stamp(self, s);
    }
}
