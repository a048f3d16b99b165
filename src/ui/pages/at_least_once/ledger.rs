//! The ledger: its balance against the balance every event credited once would give, and the
//! events it got wrong (credited twice, or never), each with what happened to its copies.

use leptos::prelude::*;

use crate::format;
use crate::scenarios::at_least_once::{AtLeastOnce, AtLeastOnceMetrics, EventRecord, Fate};
use crate::ui::kit::{Metrics, StatCard, Tone};
use crate::ui::runner::Runner;

/// How many wrong events the list shows; the count says how many more there are.
const SHOWN: usize = 8;

/// What happened to an event's copies, in words.
fn story(e: &EventRecord) -> String {
    let mut why = Vec::new();
    if e.crashed_in_middle() {
        why.push("a consumer crashed in the middle");
    }
    if e.lease_outlived() {
        why.push("its job outlived the lease");
    }
    if e.republished() {
        why.push("the outbox published it again");
    }
    if e.redelivered_late() {
        why.push("the broker redelivered it late");
    }
    if e.dead_lettered() {
        why.push("dead-lettered");
    }
    why.join("; ")
}

#[derive(Clone, PartialEq)]
struct Wrong {
    id: usize,
    amount: u32,
    credits: u16,
    fate: Fate,
    story: String,
}

fn wrong_events(s: &AtLeastOnce) -> (Vec<Wrong>, usize) {
    let mut all = s
        .event_records()
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.fate(), Fate::Lost | Fate::Duplicated))
        .map(|(id, e)| Wrong { id, amount: e.amount(), credits: e.credits(), fate: e.fate(), story: story(e) });
    let shown: Vec<Wrong> = all.by_ref().take(SHOWN).collect();
    (shown, all.count())
}

#[component]
pub fn Ledger(runner: Runner<AtLeastOnce>, metrics: Metrics<AtLeastOnce>) -> impl IntoView {
    let wrong = Memo::new(move |_| runner.track_words(|s| wrong_events(s)));
    // Mid-run the ledger is short by the credits still to come: only a wrong event makes it wrong.
    let difference_tone = Signal::derive(move || Tone::bad_if(!wrong.get().0.is_empty()));
    let items = move || {
        wrong
            .get()
            .0
            .into_iter()
            .map(|w| {
                let (class, credits) = match w.fate {
                    Fate::Lost => ("lost", "never credited".to_string()),
                    _ => ("duplicated", format!("credited {}×", w.credits)),
                };
                view! {
                    <li class=class data-event=w.id data-fate=class>
                        <span class="id">{format!("Event {}", format::count(w.id as u64 + 1))}</span>
                        " " {format::dollars(w.amount as u64 * 100)} ": "
                        <strong>{credits}</strong>
                        {(!w.story.is_empty()).then(|| format!(" ({})", w.story))}
                    </li>
                }
            })
            .collect_view()
    };
    let more = move || match wrong.get().1 {
        0 => String::new(),
        n => format!("and {} more", format::count(n as u64)),
    };
    view! {
        <section class="alo-ledger" aria-labelledby="ledger-title">
            <h2 id="ledger-title">"The ledger"</h2>
            <div class="stats">
                <StatCard metrics key=AtLeastOnceMetrics::ledger_balance/>
                <StatCard metrics key=AtLeastOnceMetrics::expected_balance/>
                <StatCard metrics key=AtLeastOnceMetrics::ledger_difference tone=difference_tone/>
            </div>
            <Show
                when=move || !wrong.get().0.is_empty()
                fallback=|| view! { <p class="help" data-wrong-events="0">"No event credited twice or lost so far."</p> }
            >
                <ul class="alo-wrong" data-wrong-events=move || wrong.get().0.len()>{items}</ul>
                <p class="help">{more}</p>
            </Show>
        </section>
    }
}
