//! Stat cards: a number a reader can quote, with the label, unit and help its scenario
//! declares. `data-stat` and `data-value` carry the metric key and the raw number for tests and
//! automation. A page picks the metric and may add a sub-line; it never retypes the label.

use leptos::prelude::*;

use super::metrics::Metrics;
use super::number::shortest;
use super::spread::Spreads;
use crate::format;
use crate::sim::{Explain, Metric, Value, Word};

/// The raw number behind a card (empty when there is none yet).
pub fn raw(value: &Value) -> String {
    match value {
        Value::Text(t) => t.clone(),
        v => v.as_f64().map(shortest).unwrap_or_default(),
    }
}

/// A tone for a card: how the reader should feel about the number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Tone {
    #[default]
    Plain,
    Good,
    Bad,
}

impl Tone {
    pub fn bad_if(bad: bool) -> Self {
        if bad { Tone::Bad } else { Tone::Plain }
    }

    fn class(self) -> &'static str {
        match self {
            Tone::Plain => "stat",
            Tone::Good => "stat good",
            Tone::Bad => "stat bad",
        }
    }
}

#[component]
pub fn StatCard<M: Explain>(
    metrics: Metrics<M>,
    /// The metric, by its field: `DoubleClickMetrics::card_charged`.
    key: Metric<M::Metrics>,
    /// A short line under the number that the page makes (e.g. "×12 of capacity").
    #[prop(optional, into)]
    note: Option<Signal<String>>,
    /// Or one of the run's sentences as the note (`RetryStormWords::peak_note`); its key is the
    /// `data-reading` hook the browser tests check against what `run --json` says.
    #[prop(optional)]
    said: Option<Word<M::Words>>,
    #[prop(optional, into)] tone: Option<Signal<Tone>>,
    /// The headline card of a page, drawn larger.
    #[prop(optional)]
    big: bool,
    /// A headline card of this view though not of the scenario's declaration (a page whose
    /// figure shows other cards for some settings): the figure shows it.
    #[prop(optional)]
    lead: bool,
) -> impl IntoView {
    let spec = key.spec;
    // A card, its note and its tone change with the words (a few times a second while the run
    // plays), so every card and every sentence on screen show one moment of the run: a card the
    // words quote shows the number they say (`data-quoted-by` names those sentences), and a card
    // they do not quote is not newer than they are (issue 45, item 1).
    let quoted_by = metrics.scenario.quoted_by(spec.key).collect::<Vec<_>>().join(" ");
    let value = metrics.paced(move || metrics.value(key));
    let quoted_by = (!quoted_by.is_empty()).then_some(quoted_by);
    let reading = said.map(|w| w.key);
    let note = said.map(|w| metrics.said_signal(w)).or(note).map(|n| metrics.paced(move || n.get()));
    let tone = tone.map(|t| metrics.paced(move || t.get()));
    let key = spec.key;
    let class = move || {
        let base = tone.map(|t| t.get()).unwrap_or_default().class();
        if big { format!("{base} big") } else { base.to_string() }
    };
    // Memos: the DOM is touched only when the shown text changes, not on every frame.
    // The value and its unit as the command line prints them too ("$149.97", "8.4 min", "1 time").
    let unit = spec.unit;
    let shown = Memo::new(move |_| value.with(|v| format::quantity(v, unit).0));
    let raw_value = Memo::new(move |_| value.with(raw));
    let unit_shown = Memo::new(move |_| value.with(|v| format::quantity(v, unit).1));
    // A headline card shows its metric's spread over seeds, once the background runs are done.
    let spread = use_context::<Spreads>()
        .filter(|_| metrics.scenario.headline.contains(&key))
        .map(|spreads| Memo::new(move |_| spreads.of(key)));
    let headline = (lead || metrics.scenario.headline.contains(&key)).then_some("");
    let long = Memo::new(move |_| shown.with(|t| t.len() > 12));
    let yes_no = Memo::new(move |_| value.with(|v| matches!(v, Value::Bool(_))));
    view! {
        <div class=class data-stat=key data-value=raw_value data-headline=headline data-quoted-by=quoted_by title=spec.help>
            <span class="label">{spec.label}</span>
            // The number and its unit in a box of one line's height that nothing outside depends
            // on (CSS `contain: strict`): a number that changes every frame lays out that box only.
            // An error name such as UND_ERR_HEADERS_TIMEOUT is longer than a number: smaller,
            // wrapped, in a box that grows.
            <span class="number" class:long=long>
                <span class="value" class:long=long>
                    {move || shown.with(|t| word_parts(t).map(|part| view! { {part.to_string()}<wbr/> }).collect_view())}
                </span>
                // No unit after a dash: "— ms" reads as a broken number.
                {(!unit.is_empty()).then(|| view! { <span class="unit" hidden=move || unit_shown.with(|u| u.is_empty())>
                    {unit_shown}
                </span> })}
            </span>
            {note.map(|n| view! { <span class="note" data-reading=reading>{move || n.get()}</span> })}
            {spread.map(|s| view! {
                <span
                    class="spread"
                    data-spread=key
                    data-median=move || s.with(|s| s.as_ref().map(|s| shortest(s.median)))
                    data-p10=move || s.with(|s| s.as_ref().map(|s| shortest(s.p10)))
                    data-p90=move || s.with(|s| s.as_ref().map(|s| shortest(s.p90)))
                    data-n=move || s.with(|s| s.as_ref().map(|s| s.n.to_string()))
                    title=move || s.with(|s| s.as_ref().map(|s| s.detail(unit)))
                >
                    {move || s.with(|s| s.as_ref().map(|s| s.text(yes_no.get(), unit)))}
                </span>
            })}
        </div>
    }
}

/// A value split where a narrow card may wrap it: "TimeoutError" as "Timeout" and "Error",
/// "UND_ERR_SOCKET" after each underscore, so a phone never shows "TimeoutErr" over "or".
fn word_parts(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut cuts = (1..bytes.len())
        .filter(move |&i| {
            (bytes[i - 1] == b'_' && bytes[i] != b'_')
                || (bytes[i - 1].is_ascii_lowercase() && bytes[i].is_ascii_uppercase())
        })
        .chain(std::iter::once(bytes.len()));
    std::iter::from_fn(move || {
        let end = cuts.next()?;
        let part = &text[start..end];
        start = end;
        Some(part)
    })
}
