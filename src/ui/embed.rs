//! In an iframe, tell the parent page how tall the content is, so the chapter can size the
//! frame. Message shape (documented in the README):
//! `{ "type": "resilience-lab:height", "height": <css px>, "sim": "<scenario id>" }`.
//! Nothing is ever read from incoming messages.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

pub fn report_height() {
    let w = window();
    let Ok(Some(parent)) = w.parent() else { return };
    if parent == w {
        return; // not in a frame
    }
    let post = move || {
        let Some(body) = document().body() else { return };
        let height = body.scroll_height();
        let sim = crate::url::pairs(&window().location().search().unwrap_or_default())
            .into_iter()
            .rev()
            .find_map(|(k, v)| (k == "sim").then_some(v))
            .filter(|id| crate::scenarios::find(id).is_some())
            .unwrap_or_default();
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &"type".into(), &"resilience-lab:height".into());
        let _ = js_sys::Reflect::set(&msg, &"height".into(), &(height as f64).into());
        let _ = js_sys::Reflect::set(&msg, &"sim".into(), &sim.into());
        // The target origin is "*": the height is not a secret, and a chapter may be hosted anywhere.
        let _ = parent.post_message(&msg, "*");
    };
    let callback = Closure::<dyn FnMut()>::new(post);
    if let (Ok(observer), Some(body)) =
        (web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()), document().body())
    {
        observer.observe(&body);
    }
    // Lives as long as the page.
    callback.forget();
}
