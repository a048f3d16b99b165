//! Stat cards: a number a reader can quote, with its unit. `data-stat` and `data-value`
//! carry the metric key and the raw number for tests and automation.

use leptos::prelude::*;

use crate::sim::Value;

/// How a metric value reads on a card.
pub fn display(value: &Value) -> String {
    match value {
        Value::Null => "—".into(),
        Value::Bool(b) => (if *b { "yes" } else { "no" }).into(),
        Value::Int(i) => group_thousands(*i),
        Value::Num(x) if x.abs() >= 100.0 => group_thousands(libm::round(*x) as i64),
        Value::Num(x) => format!("{x:.1}"),
        Value::Text(t) => t.clone(),
        Value::List(rows) => format!("{} rows", rows.len()),
    }
}

fn group_thousands(i: i64) -> String {
    let digits = i.unsigned_abs().to_string();
    let mut out = String::new();
    for (n, c) in digits.chars().enumerate() {
        if n > 0 && (digits.len() - n).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if i < 0 { format!("-{out}") } else { out }
}

/// The raw number behind a card (empty when there is none yet).
pub fn raw(value: &Value) -> String {
    match value {
        Value::Text(t) => t.clone(),
        v => v.as_f64().map(|x| x.to_string()).unwrap_or_default(),
    }
}

#[component]
pub fn StatCard(
    key: &'static str,
    label: &'static str,
    #[prop(optional)] unit: &'static str,
    value: Signal<Value>,
    /// A short line under the number (e.g. "×12 of capacity").
    #[prop(optional, into)]
    note: Option<Signal<String>>,
    /// Extra classes: "bad", "good", "big".
    #[prop(optional, into)]
    tone: Option<Signal<&'static str>>,
) -> impl IntoView {
    let class = move || format!("stat {}", tone.map(|t| t.get()).unwrap_or(""));
    // Memos: the DOM is touched only when the shown text changes, not on every frame.
    let shown = Memo::new(move |_| value.with(display));
    let raw_value = Memo::new(move |_| value.with(raw));
    view! {
        <div class=class data-stat=key data-value=raw_value aria-live="off">
            <span class="label">{label}</span>
            <span class="value">{shown}</span>
            // No unit after a dash: "— ms" reads as a broken number.
            {(!unit.is_empty()).then(|| view! { <span class="unit" hidden=move || value.with(|v| *v == Value::Null)>{unit}</span> })}
            {note.map(|n| view! { <span class="note">{move || n.get()}</span> })}
        </div>
    }
}
