//! The connection pools, slot by slot: a box per connection, coloured by who holds it.

use leptos::prelude::*;

use crate::format;
use crate::scenarios::cascade::{Cascade, CascadeWords, Pool, Slot};
use crate::sim::Word;
use crate::ui::kit::Metrics;
use crate::ui::runner::Runner;

/// The most connection slots drawn per pool: an unbounded pool can open thousands.
const MAX_SLOTS_DRAWN: usize = 600;

/// Who holds a slot, as a CSS class, and the legend's words for it.
const SLOT_KINDS: [(&str, &str); 5] = [
    ("slot recs", "held by a recommendations call"),
    ("slot home-price", "held by /home's price call"),
    ("slot checkout-price", "held by /checkout's price call"),
    ("slot idle", "open, free"),
    ("slot closed", "not open"),
];

fn slot_class(s: Option<Slot>) -> &'static str {
    let i = match s {
        Some(Slot::Recs) => 0,
        Some(Slot::HomePrice) => 1,
        Some(Slot::CheckoutPrice) => 2,
        Some(Slot::Idle) => 3,
        Some(Slot::Closed) | None => 4,
    };
    SLOT_KINDS[i].0
}

/// A pool's slots as drawn: at most [`MAX_SLOTS_DRAWN`], and how many the pool has (an absent
/// pool has none).
#[derive(Clone, Default, PartialEq)]
struct Drawn {
    slots: Vec<Slot>,
    total: usize,
}

fn drawn(p: Option<&Pool>) -> Drawn {
    p.map(|p| {
        let s = p.slots();
        Drawn { slots: s[..s.len().min(MAX_SLOTS_DRAWN)].to_vec(), total: s.len() }
    })
    .unwrap_or_default()
}

#[component]
pub fn Pools(runner: Runner<Cascade>, metrics: Metrics<Cascade>) -> impl IntoView {
    let shared = Signal::derive(move || runner.track(|s| drawn(Some(s.shared_pool()))));
    let recs = Signal::derive(move || runner.track(|s| drawn(s.recs_pool())));
    let no_recs = Signal::derive(move || runner.track(|s| s.recs_pool().is_none()));
    view! {
        <section class="pools" aria-label="Connection pools, slot by slot">
            <PoolRow
                id="shared"
                metrics
                title=CascadeWords::shared_pool_title
                slots=shared
                status=CascadeWords::shared_pool
                hidden=Signal::derive(|| false)
            />
            <PoolRow
                id="recs"
                metrics
                title=CascadeWords::recs_pool_title
                slots=recs
                status=CascadeWords::recs_pool
                hidden=no_recs
            />
            <ul class="legend slot-legend">
                {SLOT_KINDS
                    .iter()
                    .map(|(class, words)| view! { <li><span class=*class></span>{*words}</li> })
                    .collect_view()}
            </ul>
        </section>
    }
}

/// One pool: its title, what it holds now, and a box per connection.
#[component]
fn PoolRow(
    id: &'static str,
    metrics: Metrics<Cascade>,
    title: Word<CascadeWords>,
    slots: Signal<Drawn>,
    status: Word<CascadeWords>,
    hidden: Signal<bool>,
) -> impl IntoView {
    // Only a change in the number of slots rebuilds the boxes; each box follows its own slot.
    let count = Memo::new(move |_| slots.with(|d| d.slots.len()));
    let density = Signal::derive(move || match count.get() {
        n if n > 200 => "slots tiny".to_string(),
        n if n > 40 => "slots dense".to_string(),
        _ => "slots".to_string(),
    });
    let boxes = move || {
        (0..count.get())
            .map(|i| view! { <span class=move || slot_class(slots.with(|d| d.slots.get(i).copied()))></span> })
            .collect_view()
    };
    let more = Signal::derive(move || {
        slots.with(|d| {
            if d.total > d.slots.len() {
                format!(
                    "+{} more, not drawn",
                    format::counted((d.total - d.slots.len()) as u64, "connection", "connections")
                )
            } else if d.total == 0 {
                "No connection open yet.".to_string()
            } else {
                String::new()
            }
        })
    });
    view! {
        <div class="pool-row" data-pool=id hidden=hidden>
            <h3 data-reading=title.key>{metrics.said_signal(title)}</h3>
            <p class="pool-status" role="status" data-reading=status.key>{metrics.said_signal(status)}</p>
            <div class=density aria-hidden="true">{boxes}</div>
            <p class="more">{more}</p>
        </div>
    }
}
