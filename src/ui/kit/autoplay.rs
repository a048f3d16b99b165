//! `autoplay=view`: a figure plays while it is in view and pauses when scrolled out of it, as the
//! figures of the best interactive explanations do. A figure that asks the reader for a
//! prediction first never starts by itself: the run would answer the question before the reader.

use leptos::prelude::*;

use super::canvas::watch_in_view;
use crate::ui::runner::Playback;

/// Provided by the page's layout; a prediction question marks it (see [`AsksFirst::mark`]).
#[derive(Clone, Copy)]
pub struct AsksFirst(StoredValue<bool>);

impl AsksFirst {
    pub fn provide() {
        provide_context(AsksFirst(StoredValue::new(false)));
    }

    /// The figure asks the reader a question the run answers.
    pub fn mark() {
        if let Some(asks) = use_context::<AsksFirst>() {
            asks.0.set_value(true);
        }
    }

    fn asked() -> bool {
        use_context::<AsksFirst>().is_some_and(|asks| asks.0.get_value())
    }
}

/// Plays the run while `node` is in view and pauses it when it leaves. A Pause the reader
/// pressed stays: only a pause of its own is undone when the figure comes back into view, and a
/// run that has ended stays ended.
pub fn play_while_in_view<E>(node: NodeRef<E>, runner: Playback)
where
    E: leptos::html::ElementType,
    E::Output: wasm_bindgen::JsCast + Clone + 'static,
{
    let in_view = watch_in_view(node, false);
    let asked = AsksFirst::asked;
    // True while the run waits for the view: before it first starts, and after it paused itself.
    let waits = StoredValue::new(true);
    Effect::new(move |_| {
        let visible = in_view.get();
        if asked() {
            return;
        }
        let playing = runner.playing.get_untracked();
        if visible && waits.get_value() && !playing && !runner.is_over() {
            waits.set_value(false);
            runner.play();
        } else if !visible && playing {
            runner.pause();
            waits.set_value(true);
        }
    });
}
