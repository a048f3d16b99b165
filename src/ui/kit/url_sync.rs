//! Keeping the address bar in step with the page, without flooding the browser's history.

use leptos::prelude::*;

/// Replaces the URL (no new history entry) a moment after the last change, so dragging a
/// slider does not flood the browser's history API.
pub fn sync_url(query: String) {
    thread_local! {
        static PENDING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    let ticket = PENDING.with(|p| {
        p.set(p.get().wrapping_add(1));
        p.get()
    });
    set_timeout(
        move || {
            if PENDING.with(|p| p.get()) != ticket {
                return;
            }
            let w = window();
            let path = w.location().pathname().unwrap_or_default();
            if let Ok(history) = w.history() {
                let _ =
                    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("{path}?{query}")));
            }
        },
        std::time::Duration::from_millis(250),
    );
}
