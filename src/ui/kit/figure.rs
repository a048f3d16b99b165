//! An embed is a figure in a chapter: the question, the play bar, the headline chart with the
//! named controls beside it (under it on a narrow frame), the headline cards, the verdict, and
//! "Open full lab"; other parts only when the snippet names them (`show=`). Each page declares
//! its parts by name; every box in the figure has a height the layout decides, never the run,
//! so the frame keeps its height before, during and after the run.

use leptos::prelude::*;

use super::autoplay::play_while_in_view;
use super::controls::ParamControls;
use super::play::PlayControls;
use super::presets::PresetButton;
use super::seed::SeedControl;
use super::spread::Spreads;
use super::state::SimState;
use super::sweep::{SweepPanel, SweepToggle};
use crate::ui::runner::Playback;
use crate::url::Autoplay;

/// What a part is to the figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A chart or a timeline: the first one a page declares is its headline chart.
    Chart,
    /// The headline stat cards (the scenario's headline metrics, at most four).
    Cards,
    /// The run's verdict, in a sentence or two.
    Verdict,
    /// Anything else: tables, tours, lists, further cards.
    Extra,
}

/// One named part of a page.
pub struct Part {
    pub name: &'static str,
    pub role: Role,
    /// On the full page, consecutive parts of one group sit in one `div` of this class.
    group: Option<&'static str>,
    /// Shown only in the figure (a verdict the full page says elsewhere).
    figure_only: bool,
    view: Box<dyn FnOnce() -> AnyView>,
}

impl Part {
    pub fn new<V: IntoView + 'static>(name: &'static str, role: Role, view: impl FnOnce() -> V + 'static) -> Self {
        Self { name, role, group: None, figure_only: false, view: Box::new(move || view().into_any()) }
    }

    pub fn figure_only(self) -> Self {
        Self { figure_only: true, ..self }
    }

    pub fn in_group(self, class: &'static str) -> Self {
        Self { group: Some(class), ..self }
    }
}

/// The names a snippet may use in `show=` besides the page's parts.
const FRAME_PARTS: &[&str] = &["charts", "sweep", "seed"];

/// Draws parts in their order, each consecutive run of one group inside one `div`.
pub fn render_parts(parts: Vec<Part>) -> AnyView {
    let mut out: Vec<AnyView> = Vec::new();
    let mut parts = parts.into_iter().filter(|p| !p.figure_only).peekable();
    while let Some(part) = parts.next() {
        match part.group {
            None => out.push((part.view)()),
            Some(class) => {
                let mut members = vec![(part.view)()];
                while let Some(next) = parts.next_if(|p| p.group == Some(class)) {
                    members.push((next.view)());
                }
                out.push(view! { <div class=class>{members}</div> }.into_any());
            }
        }
    }
    out.into_any()
}

/// The parts a figure shows, where, and what the snippet named that the page does not have.
struct Selection {
    headline: Option<Part>,
    cards: Vec<Part>,
    verdict: Vec<Part>,
    extras: Vec<Part>,
    notices: Vec<String>,
}

fn select(parts: Vec<Part>, show: &[String], chart: Option<&str>) -> Selection {
    let names: Vec<&'static str> = parts.iter().map(|p| p.name).collect();
    let charts: Vec<&'static str> = parts.iter().filter(|p| p.role == Role::Chart).map(|p| p.name).collect();
    let mut notices = Vec::new();
    let known = || names.iter().chain(FRAME_PARTS).copied().collect::<Vec<_>>().join(", ");
    for name in show.iter().filter(|n| !names.contains(&n.as_str()) && !FRAME_PARTS.contains(&n.as_str())) {
        notices.push(format!("show: this simulation has no part '{name}'; ignored. Its parts: {}.", known()));
    }
    let headline = match chart {
        Some(c) if charts.contains(&c) => Some(c),
        Some(c) => {
            notices.push(format!("chart: '{c}' is not one of this simulation's charts ({}).", charts.join(", ")));
            charts.first().copied()
        }
        None => charts.first().copied(),
    };
    let all_charts = show.iter().any(|n| n == "charts");
    let wanted = |p: &Part| show.iter().any(|n| n == p.name) || (all_charts && p.role == Role::Chart);
    let mut selection =
        Selection { headline: None, cards: Vec::new(), verdict: Vec::new(), extras: Vec::new(), notices };
    for part in parts {
        if Some(part.name) == headline {
            selection.headline = Some(part);
        } else if part.role == Role::Cards {
            selection.cards.push(part);
        } else if part.role == Role::Verdict {
            selection.verdict.push(part);
        } else if wanted(&part) {
            selection.extras.push(Part { group: None, ..part });
        }
    }
    selection
}

/// The presets a snippet names, as one segmented control; the pressed one is the preset the
/// parameters still match.
#[component]
fn PresetChoice(state: SimState, runner: Playback, ids: Vec<&'static str>) -> impl IntoView {
    let presets: Vec<_> = ids.into_iter().filter_map(|id| state.scenario.preset(id)).collect();
    view! {
        <div class="preset-choice" role="group" aria-label="Presets">
            <span class="preset-choice-label" aria-hidden="true">"Preset"</span>
            <div class="preset-segments">
                {presets.into_iter().map(|p| view! { <PresetButton state runner preset=p/> }).collect_view()}
            </div>
        </div>
    }
}

/// What a page puts before the play bar: a prediction to make, a question to hold in mind.
#[slot]
pub struct Lead {
    pub(super) children: Children,
}

/// The embed layout. The reading and tab order is the question, the play bar, the controls,
/// then the chart and the rest; CSS puts the controls to the right of the chart (or under it).
#[component]
pub fn Figure(
    state: SimState,
    runner: Playback,
    lead: Option<Lead>,
    parts: Vec<Part>,
    /// What the run says about a limit of the model it hit (empty: none).
    limit: Signal<String>,
    chapter_controls: &'static [&'static str],
    spreads: Spreads,
    /// The full page's link to this state (the layout's, which printing reads too).
    full_link: Signal<String>,
) -> impl IntoView {
    let scenario = state.scenario;
    let chosen = select(parts, &state.show_names(), state.chart_name().as_deref());
    let headline_name = chosen.headline.as_ref().map(|p| p.name);
    let presets = state.preset_choice();
    let notices = (!chosen.notices.is_empty()).then(|| {
        view! {
            <div class="notices" role="status" data-notices>
                <strong>"Some of this link's settings were not used:"</strong>
                <ul>{chosen.notices.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            </div>
        }
    });
    let wrap = |class: &'static str, parts: Vec<Part>| {
        parts
            .into_iter()
            .map(|p| {
                let name = p.name;
                view! { <div class=class data-part=name>{(p.view)()}</div> }
            })
            .collect_view()
    };
    let section = NodeRef::<leptos::html::Section>::new();
    if state.autoplay == Autoplay::InView {
        play_while_in_view(section, runner);
    }
    view! {
        <section
            node_ref=section
            class="sim figure"
            data-scenario=scenario.id
            data-version=crate::VERSION
            data-figure
            data-words-at=move || runner.words_at()
            data-spread-ms=move || spreads.took_ms().map(|t| crate::sim::decimal::fixed(t, 1))
        >
            <h1>{scenario.title}</h1>
            {notices}
            {lead.map(|l| view! { <div class="figure-lead">{(l.children)()}</div> })}
            <PlayControls runner/>
            <div class="figure-body">
                <aside class="panel" aria-label="Controls">
                    {(!presets.is_empty()).then(|| view! { <PresetChoice state runner ids=presets/> })}
                    <ParamControls
                        specs=scenario.params
                        params=state.params
                        shown=Some(state.figure_controls(chapter_controls))
                        on_change=Callback::new(move |_| runner.rebuild_in_place())
                    />
                    {state.shows("seed").then(|| view! { <SeedControl state runner/> })}
                </aside>
                <div class="figure-chart" data-part=headline_name>
                    <div class="figure-chart-inner">{chosen.headline.map(|p| (p.view)())}</div>
                    <Show when=move || limit.with(|l| !l.is_empty())>
                        <p class="limit-notice" role="status" data-limit data-reading="limit">{limit}</p>
                    </Show>
                </div>
            </div>
            {wrap("figure-cards", chosen.cards)}
            {wrap("figure-verdict", chosen.verdict)}
            {wrap("figure-extra", chosen.extras)}
            {state.shows("sweep").then(|| view! { <SweepToggle state/> })}
            <Show when=move || state.sweep.with(Option::is_some)>
                <SweepPanel state/>
            </Show>
            <a class="open-full" href=full_link target="_blank" rel="noopener">"Open full lab ↗"</a>
        </section>
    }
}
