//! A panic must never leave a dead page: the hook logs it and puts up a banner with a reset
//! link. The banner is plain DOM built without Leptos, which may be mid-update when it fires.

use std::cell::Cell;

thread_local! {
    static SHOWN: Cell<bool> = const { Cell::new(false) };
}

pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        if SHOWN.with(|s| s.replace(true)) {
            return;
        }
        show_banner();
    }));
}

fn show_banner() {
    let Some(window) = web_sys::window() else { return };
    let Some(document) = window.document() else { return };
    let Some(body) = document.body() else { return };
    // Reset: the same simulation with nothing but its id, i.e. the default state.
    let search = window.location().search().unwrap_or_default();
    let sim = search
        .trim_start_matches('?')
        .split('&')
        .find_map(|kv| kv.strip_prefix("sim="))
        .filter(|id| crate::scenarios::find(id).is_some())
        .map(|id| format!("?sim={id}"))
        .unwrap_or_default();
    let path = window.location().pathname().unwrap_or_default();
    let Ok(banner) = document.create_element("div") else { return };
    banner.set_class_name("error-banner");
    let _ = banner.set_attribute("role", "alert");
    let _ = banner.set_attribute("data-error-banner", "");
    let Ok(text) = document.create_element("span") else { return };
    text.set_text_content(Some("Something went wrong in the simulation, and it stopped."));
    let Ok(reset) = document.create_element("a") else { return };
    let _ = reset.set_attribute("href", &format!("{path}{sim}"));
    let _ = reset.set_attribute("data-action", "reset-after-error");
    reset.set_text_content(Some("Reset the simulation"));
    let _ = banner.append_child(&text);
    let _ = banner.append_child(&reset);
    let _ = body.prepend_with_node_1(&banner);
}
