//! Controls generated from a scenario's declaration: a labelled slider per number, a checkbox
//! per toggle, a segmented choice per option list. Every input carries `name="<param id>"`.
//! A control whose parameter the model does not read with the other values as they are is
//! disabled, keeping its value, with the reason after its help.

use leptos::prelude::*;

use super::number::shortest;
use crate::format;
use crate::sim::decimal;
use crate::sim::{ChoiceOption, ParamKind, ParamSpec, Params};

/// One control for one parameter. `params` is the page's state; `on_change` runs after an edit.
#[component]
pub fn ParamControl(spec: &'static ParamSpec, params: RwSignal<Params>, on_change: Callback<()>) -> impl IntoView {
    let index = params.with_untracked(|p| p.index_of(spec.id)).expect("a control for a declared parameter");
    let value = move || params.with(|p| p.values()[index]);
    let help_id = format!("help-{}", spec.id);
    let input_id = format!("param-{}", spec.id);
    let unused = Signal::derive(move || params.with(|p| p.unused_because(index)));
    let off = move || unused.with(Option::is_some);
    let why_id = format!("why-{}", spec.id);
    let described = {
        let (help_id, why_id) = (help_id.clone(), why_id.clone());
        move || if off() { format!("{help_id} {why_id}") } else { help_id.clone() }
    };
    let set = move |v: f64| {
        params.update(|p| p.set_at(index, v));
        on_change.run(());
    };
    match spec.kind {
        ParamKind::Number => view! {
            <div class="slider" class:unused=off title=move || unused.get()>
                <label for=input_id.clone()>{spec.label}</label>
                <output for=input_id.clone() aria-hidden="true">{move || format::param_value(spec, value())}</output>
                <input
                    type="range"
                    id=input_id
                    name=spec.id
                    min=shortest(spec.min)
                    max=shortest(spec.max)
                    step=shortest(spec.step)
                    prop:value=move || shortest(value())
                    aria-valuetext=move || format::param_value(spec, value())
                    aria-describedby=described.clone()
                    disabled=off
                    aria-disabled=move || off().then_some("true")
                    on:input=move |ev| {
                        if let Some(v) = decimal::parse(&event_target_value(&ev)) {
                            set(v);
                        }
                    }
                />
                <p class="help" id=help_id>{spec.help}</p>
                <Unused id=why_id unused/>
            </div>
        }
        .into_any(),
        ParamKind::Toggle => view! {
            <div class="toggle" class:unused=off title=move || unused.get()>
                <input
                    type="checkbox"
                    id=input_id.clone()
                    name=spec.id
                    prop:checked=move || { value() >= 0.5 }
                    aria-describedby=described.clone()
                    disabled=off
                    aria-disabled=move || off().then_some("true")
                    on:change=move |ev| set(f64::from(u8::from(event_target_checked(&ev))))
                />
                <div>
                    <label for=input_id>{spec.label}</label>
                    <p class="help" id=help_id>{spec.help}</p>
                <Unused id=why_id unused/>
                </div>
            </div>
        }
        .into_any(),
        ParamKind::Choice(options) => view! {
            <Segmented
                name=spec.id
                legend=spec.label
                help=spec.help
                options=options
                unused
                selected=Signal::derive(move || value() as usize)
                on_select=Callback::new(move |i: usize| set(i as f64))
            />
        }
        .into_any(),
    }
}

/// A segmented choice: a radio group that looks like a row of buttons (arrow keys move it),
/// with what the chosen option does written under it; disabled, saying why, while `unused`.
#[component]
pub fn Segmented(
    name: &'static str,
    legend: &'static str,
    #[prop(optional)] help: &'static str,
    options: &'static [ChoiceOption],
    unused: Signal<Option<String>>,
    selected: Signal<usize>,
    on_select: Callback<usize>,
) -> impl IntoView {
    let chosen_help = move || options.get(selected.get()).map_or("", |o| o.help);
    view! {
        <fieldset
            class="segmented"
            class:unused=move || unused.with(Option::is_some)
            title=move || unused.get()
            disabled=move || unused.with(Option::is_some)
            aria-disabled=move || unused.with(Option::is_some).then_some("true")
        >
            <legend>{legend}</legend>
            <div class="segments">
                {options
                    .iter()
                    .enumerate()
                    .map(|(i, option)| {
                        view! {
                            <label>
                                <input
                                    type="radio"
                                    name=name
                                    value=option.id
                                    prop:checked=move || selected.get() == i
                                    on:change=move |_| on_select.run(i)
                                />
                                {option.label}
                            </label>
                        }
                    })
                    .collect_view()}
            </div>
            {(!help.is_empty()).then(|| view! { <p class="help">{help}</p> })}
            <p class="help chosen" aria-live="polite">{chosen_help}</p>
            <Unused id=format!("why-{name}") unused/>
        </fieldset>
    }
}

/// Why a control is disabled, under its help; shown in a figure too, where help is hidden.
#[component]
fn Unused(id: String, unused: Signal<Option<String>>) -> impl IntoView {
    move || unused.get().map(|why| view! { <p class="help unused-why" id=id.clone()>{why}</p> })
}

/// All of a scenario's controls, or only those named in `shown` (the embed's `controls=`).
#[component]
pub fn ParamControls(
    specs: &'static [ParamSpec],
    params: RwSignal<Params>,
    shown: Option<Vec<&'static str>>,
    on_change: Callback<()>,
) -> impl IntoView {
    let visible: Vec<&'static ParamSpec> = match &shown {
        Some(ids) => specs.iter().filter(|s| ids.contains(&s.id)).collect(),
        None => specs.iter().collect(),
    };
    view! {
        <div class="controls">
            {visible.into_iter().map(|spec| view! { <ParamControl spec params on_change/> }).collect_view()}
        </div>
    }
}
