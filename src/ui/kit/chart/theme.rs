//! Which of the colours (`draw::theme`) the page is drawn in, for the chart and the timeline;
//! and, for the chart, the round-number ticks (`draw::nice_step`).

use leptos::prelude::*;

pub use crate::draw::nice_step;
pub use crate::draw::theme::{Theme, color, slot};
use crate::url;

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

impl Theme {
    /// The theme the page is drawn in now.
    pub fn now() -> Self {
        Theme::of(is_dark())
    }
}
