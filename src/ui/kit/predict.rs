//! Predict, then reveal: the reader commits to an answer before the run shows it. The answer
//! appears once the run has shown what the question is about and the reader has guessed (or
//! the run is over, for a reader who skipped ahead), and says whether the guess matched.

use leptos::prelude::*;

use super::autoplay::AsksFirst;
use super::spread::Spreads;
use crate::ui::runner::Playback;

use crate::sim::Guess;

#[component]
pub fn Predict(
    /// The question, which may follow the parameters ("B becomes 8× slower…").
    #[prop(into)]
    question: Signal<String>,
    options: &'static [Guess],
    /// The run has shown what the question is about.
    #[prop(into)]
    ready: Signal<bool>,
    /// The run is over.
    #[prop(into)]
    finished: Signal<bool>,
    /// Which option this run bears out (None: none of them fits).
    #[prop(into)]
    outcome: Signal<Option<String>>,
    /// Why, in the run's own numbers.
    #[prop(into)]
    answer: Signal<String>,
    /// The answer's sentences' keys in the run's reading, in order (the `data-reading` hook the
    /// browser tests check against `run --json`): `&[SlowServerWords::ratio.key, …]`.
    reading: &'static [&'static str],
) -> impl IntoView {
    AsksFirst::mark();
    let guess = RwSignal::new(None::<&'static str>);
    let revealed = move || finished.get() || (ready.get() && guess.get().is_some());
    // The spreads over seeds under the cards would answer the question: hidden until revealed.
    if let Some(spreads) = use_context::<Spreads>() {
        spreads.hide_while(Memo::new(move |_| !revealed()).into());
    }
    let waiting = move || {
        if ready.get() {
            "Pick an answer to see what happened."
        } else {
            "Press play: the answer appears once the run has shown it."
        }
    };
    let text_of = |id: &str| options.iter().find(|(o, _)| *o == id).map_or("", |o| o.1);
    let verdict = move || {
        let said = guess.get().map(|g| format!("You said: {}. ", text_of(g))).unwrap_or_default();
        let run = match (guess.get(), outcome.get().as_deref()) {
            (Some(g), Some(o)) if g == o => "That is what this run did. ".to_string(),
            (Some(_), Some(o)) => format!("This run did something else: {}. ", text_of(o)),
            (None, Some(o)) => format!("This run: {}. ", text_of(o)),
            (_, None) => "This run fits none of these exactly. ".to_string(),
        };
        said + &run
    };
    view! {
        <div class="predict" data-prediction>
            <fieldset>
                <legend>{move || question.get()}</legend>
                {options
                    .iter()
                    .map(|&(id, text)| view! {
                        <label>
                            <input type="radio" name="prediction" value=id on:change=move |_| guess.set(Some(id))/>
                            " " {text}
                        </label>
                    })
                    .collect_view()}
            </fieldset>
            <Show when=revealed fallback=move || view! { <p class="answer help">{waiting}</p> }>
                <p class="answer" data-answer role="status">
                    <span data-verdict=move || {
                        match (guess.get(), outcome.get()) {
                            (Some(g), Some(o)) if g == o => "right",
                            (Some(_), _) => "wrong",
                            (None, _) => "none",
                        }
                    }>{verdict}</span>
                    <span data-reading=reading.join(" ")>{move || answer.get()}</span>
                </p>
            </Show>
        </div>
    }
}

/// A question the page asks before the run, which the run itself answers ("how many charges
/// will this fix leave?"): the spreads over seeds under the cards stay hidden until the run is
/// over, since they would answer it.
#[component]
pub fn Question(text: &'static str) -> impl IntoView {
    if let (Some(spreads), Some(runner)) = (use_context::<Spreads>(), use_context::<Playback>()) {
        spreads.hide_while(Memo::new(move |_| !runner.track_dyn(|s| s.finished())).into());
    }
    view! { <p class="lead">{text}</p> }
}
