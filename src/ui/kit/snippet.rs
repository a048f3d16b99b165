//! The embed snippet an author pastes into a chapter: the iframe at the figure's own height
//! (measured, never guessed), the heights at a phone's widths for `embed.js` to reserve before
//! the frame loads, and the `embed.js` line, both at the lab's public address.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The chapter's text column: the width the iframe's own height is for.
pub const WIDE: u32 = 720;
/// A phone's widths, for `data-lab-heights`.
pub const NARROW: &[u32] = &[360, 412];
/// The height written when the figure could not be measured: the most a figure may take.
const FALLBACK: u32 = 760;
/// How often the hidden frame is looked at, how many equal looks make a height, and how many
/// looks at most before giving up.
const POLL: Duration = Duration::from_millis(50);
const STABLE_LOOKS: u32 = 4;
const MAX_LOOKS: u32 = 400;

/// The snippet for the figure at `query`, with the heights `measure` found: the `embed.js` line
/// first, as the chapter's `<head>` takes it once (README, "Embedding"), then the iframe.
pub fn text(query: &str, title: &str, heights: &[(u32, u32)]) -> String {
    let base = base();
    let wide = heights.iter().find(|(w, _)| *w == WIDE).map_or(FALLBACK, |h| h.1);
    let narrow: Vec<String> = heights.iter().filter(|(w, _)| *w != WIDE).map(|(w, h)| format!("{w}:{h}")).collect();
    let narrow = if narrow.is_empty() { String::new() } else { format!(" data-lab-heights=\"{}\"", narrow.join(",")) };
    format!(
        "<!-- Once per chapter page, in its <head>: -->\n<script src=\"{base}embed.js\"></script>\n\
         <!-- Where the figure goes: -->\n<iframe src=\"{base}?{}\" title=\"{title}\" \
         style=\"width:100%;height:{wide}px;border:0\"{narrow} loading=\"lazy\"></iframe>",
        query.replace('&', "&amp;")
    )
}

/// The lab's address the snippet points at: the public one the site was built for
/// (`LAB_PUBLIC_URL`, which scripts/site.mjs writes as `<meta name="lab-public-url">`), so a
/// snippet copied from a local or staging copy names the course's host; else this page's folder.
fn base() -> String {
    let meta = document().query_selector("meta[name=\"lab-public-url\"]").ok().flatten();
    if let Some(url) = meta.and_then(|m| m.get_attribute("content")).filter(|u| !u.is_empty()) {
        return url;
    }
    let loc = window().location();
    let path = loc.pathname().unwrap_or_default();
    format!("{}{}", loc.origin().unwrap_or_default(), &path[..path.rfind('/').map_or(0, |i| i + 1)])
}

/// A figure's height at each width measured: (frame width, content height), in CSS px.
type Heights = Vec<(u32, u32)>;

struct Probe {
    frame: web_sys::Element,
    widths: Vec<u32>,
    heights: Heights,
    last: Option<i32>,
    same: u32,
    looks: u32,
    done: Option<Box<dyn FnOnce(Heights)>>,
}

/// Loads the figure at `query` in a hidden frame of this page, at each width in turn, and
/// calls `done` with the height its content takes at each (fewer if it never settles).
pub fn measure(query: String, done: impl FnOnce(Heights) + 'static) {
    let Some(body) = document().body() else { return done(Vec::new()) };
    let Ok(frame) = document().create_element("iframe") else { return done(Vec::new()) };
    let widths: Vec<u32> = std::iter::once(WIDE).chain(NARROW.iter().copied()).collect();
    for (name, value) in [
        ("style", frame_style(WIDE)),
        ("src", format!("?{query}")),
        ("title", "The figure, being measured".to_string()),
        ("aria-hidden", "true".to_string()),
        ("tabindex", "-1".to_string()),
    ] {
        let _ = frame.set_attribute(name, &value);
    }
    if body.append_child(&frame).is_err() {
        return done(Vec::new());
    }
    let probe = Probe { frame, widths, heights: Vec::new(), last: None, same: 0, looks: 0, done: Some(Box::new(done)) };
    look(Rc::new(RefCell::new(probe)));
}

/// Out of sight, out of the page's flow and focus, but laid out at `width` as a chapter would.
fn frame_style(width: u32) -> String {
    format!("position:absolute;left:-20000px;top:0;width:{width}px;height:40px;border:0;visibility:hidden")
}

/// The figure's height in the frame, once it has rendered.
fn figure_height(frame: &web_sys::Element) -> Option<i32> {
    let doc = js_sys::Reflect::get(frame, &"contentDocument".into()).ok()?;
    if doc.is_null() || doc.is_undefined() {
        return None;
    }
    // The frame's document comes from its own window, so it is no `instanceof` this one's Document.
    let doc = doc.unchecked_into::<web_sys::Document>();
    doc.query_selector("[data-figure]").ok().flatten()?;
    Some(doc.body()?.scroll_height())
}

fn look(probe: Rc<RefCell<Probe>>) {
    let finished = {
        let mut p = probe.borrow_mut();
        p.looks += 1;
        let height = figure_height(&p.frame);
        if height.is_some() && height == p.last {
            p.same += 1;
        } else {
            p.same = 0;
        }
        p.last = height;
        if p.same >= STABLE_LOOKS {
            let width = p.widths[p.heights.len()];
            let h = height.unwrap_or_default().max(0) as u32;
            p.heights.push((width, h));
            if let Some(&next) = p.widths.get(p.heights.len()) {
                let _ = p.frame.set_attribute("style", &frame_style(next));
                p.same = 0;
                p.last = None;
            }
        }
        p.heights.len() == p.widths.len() || p.looks >= MAX_LOOKS
    };
    if finished {
        let mut p = probe.borrow_mut();
        p.frame.remove();
        let heights = std::mem::take(&mut p.heights);
        if let Some(done) = p.done.take() {
            drop(p);
            done(heights);
        }
        return;
    }
    set_timeout(move || look(probe), POLL);
}
