//! The charts' colours, light and dark, and their round-number ticks: shared by the chart and
//! the timeline.

use leptos::prelude::*;

use crate::url;

/// Palette slots; each has a light and a dark colour, both readable on their background.
const LIGHT: [&str; 8] = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bc4c00", "#1b7c83", "#bf3989", "#6e7781"];
const DARK: [&str; 8] = ["#4493f8", "#ff7b72", "#3fb950", "#bc8cff", "#ffa657", "#39c5cf", "#ff80c8", "#9198a1"];

/// The palette slots by name, so pages say which colour they mean.
pub mod slot {
    pub const BLUE: usize = 0;
    pub const RED: usize = 1;
    pub const GREEN: usize = 2;
    pub const PURPLE: usize = 3;
    pub const ORANGE: usize = 4;
    pub const TEAL: usize = 5;
    pub const PINK: usize = 6;
    pub const GRAY: usize = 7;
}

pub fn color(slot: usize, dark: bool) -> &'static str {
    if dark { DARK[slot % 8] } else { LIGHT[slot % 8] }
}

thread_local! {
    /// The scheme the link's `theme=` forces (None: the system's), set once by [`force`].
    static FORCED: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Forces the page's colour scheme, as the link's `theme=` says: the canvases' ink here, and the
/// style sheet's through `data-theme` on `<html>` (the loader sets it first, before the page is
/// drawn; this also covers a module served without it).
pub fn force(theme: url::Theme) {
    let dark = match theme {
        url::Theme::Auto => return,
        url::Theme::Light => false,
        url::Theme::Dark => true,
    };
    FORCED.set(Some(dark));
    if let Some(html) = document().document_element() {
        let _ = html.set_attribute("data-theme", if dark { "dark" } else { "light" });
    }
}

/// Whether the page is drawn dark: as the link's `theme=` forces, else as the reader's system is.
pub fn is_dark() -> bool {
    FORCED.get().unwrap_or_else(prefers_dark)
}

/// Whether the reader's system is in dark mode. Asked once, then kept up to date by the
/// media query's change event: asking every frame (each chart, each draw) made the browser
/// bring the page's style and layout up to date before every chart.
pub fn prefers_dark() -> bool {
    use std::cell::Cell;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    thread_local! {
        static DARK: Cell<Option<bool>> = const { Cell::new(None) };
    }
    if let Some(dark) = DARK.get() {
        return dark;
    }
    let Some(query) = window().match_media("(prefers-color-scheme: dark)").ok().flatten() else { return false };
    let dark = query.matches();
    DARK.set(Some(dark));
    let on_change = Closure::<dyn Fn(web_sys::MediaQueryListEvent)>::new(|e: web_sys::MediaQueryListEvent| {
        DARK.set(Some(e.matches()));
    });
    query.set_onchange(Some(on_change.as_ref().unchecked_ref()));
    // The query and its listener live as long as the page.
    on_change.forget();
    std::mem::forget(query);
    dark
}

/// The ink of everything drawn that is not a series: text, axes, grid, background, shading.
pub struct Theme {
    pub fg: &'static str,
    pub muted: &'static str,
    pub grid: &'static str,
    pub bg: &'static str,
    pub shade: &'static str,
    pub dark: bool,
}

impl Theme {
    pub fn now() -> Self {
        if is_dark() {
            Theme {
                fg: "#e6edf3",
                muted: "#9198a1",
                grid: "#30363d",
                bg: "#0d1117",
                shade: "rgba(248,81,73,0.12)",
                dark: true,
            }
        } else {
            Theme {
                fg: "#1f2328",
                muted: "#59636e",
                grid: "#d8dee4",
                bg: "#ffffff",
                shade: "rgba(207,34,46,0.08)",
                dark: false,
            }
        }
    }
}

/// Round numbers for axis ticks: 1, 2 or 5 times a power of ten.
pub fn nice_step(range: f64, target_ticks: f64) -> f64 {
    let raw = (range / target_ticks).max(1e-9);
    let mag = libm::pow(10.0, libm::floor(libm::log10(raw)));
    let norm = raw / mag;
    let nice = if norm < 1.5 {
        1.0
    } else if norm < 3.5 {
        2.0
    } else if norm < 7.5 {
        5.0
    } else {
        10.0
    };
    nice * mag
}
