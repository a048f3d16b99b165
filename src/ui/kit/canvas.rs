//! Canvas plumbing shared by the chart and the two timelines: a HiDPI-sized 2D context, and a
//! redraw that runs when the data changes but reads the canvas's size only on mount and on
//! window resize (reading it every frame would force a layout after each DOM update).

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

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

/// Calls `draw(canvas, css_width, css_height, data)` whenever `data` changes or the window
/// is resized.
fn redraw_on_change<T: Send + Sync + 'static>(
    canvas: NodeRef<leptos::html::Canvas>,
    data: Signal<T>,
    draw: impl Fn(&HtmlCanvasElement, f64, f64, &T) + 'static,
) {
    let size = RwSignal::new(None::<(f64, f64)>);
    let measure = move || {
        if let Some(el) = canvas.get_untracked() {
            size.set(Some((el.client_width().max(100) as f64, el.client_height().max(60) as f64)));
        }
    };
    let handle = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || handle.remove());
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let Some((w, h)) = size.get() else {
            measure();
            return;
        };
        data.with(|d| draw(&el, w, h, d));
    });
}

/// The width of `text` in the context's current font.
pub fn text_width(ctx: &CanvasRenderingContext2d, text: &str) -> f64 {
    ctx.measure_text(text).map(|m| m.width()).unwrap_or(text.chars().count() as f64 * 6.0)
}
