//! The layout of every simulation page: the full page's title, presets, parts,
//! parameters and share links, or the figure when the page is embedded; and the URL kept in
//! step with what the reader sees.

use leptos::prelude::*;

use super::autoplay::AsksFirst;
use super::controls::ParamControls;
use super::figure::{Figure, Lead, Part, render_parts};
use super::metrics::LimitNotice;
use super::play::PlayControls;
use super::presets::PresetBar;
use super::print::print_at_the_end;
use super::seed::SeedControl;
use super::share::{Share, full_link};
use super::spread::Spreads;
use super::state::SimState;
use super::sweep::{SweepPanel, SweepToggle};
use super::url_sync::sync_url;
use crate::ui::runner::Playback;
use crate::url::{self, Autoplay};

/// The layout of every simulation page. Each page declares its parts by name (see
/// [`Part`](super::figure::Part)) and the controls its chapter talks about. The full page shows
/// the title, presets, whatever the page leads with, the play bar, every part in order, then the
/// parameters and the share links (the reading order is the tab order; on a wide screen CSS
/// moves the parameters to a column on the left). An embed shows the figure instead.
#[component]
pub fn SimLayout(
    state: SimState,
    #[prop(into)] runner: Playback,
    #[prop(optional)] lead: Option<Lead>,
    parts: Vec<Part>,
    /// The parameters the chapter asks the reader to change: an embed's controls when its link
    /// names none, and the embed snippet's.
    chapter_controls: &'static [&'static str],
    /// What the run sets up, following the parameters; the scenario's summary when not given.
    #[prop(optional, into)]
    intro: Option<Signal<String>>,
) -> impl IntoView {
    let scenario = state.scenario;
    // Keep the URL in step with the state.
    Effect::new(move |_| {
        state.params.track();
        state.preset.track();
        state.seed.track();
        state.sweep.track();
        let speed = runner.speed.get();
        sync_url(url::encode(&state.snapshot(speed, state.embed)));
    });
    let spreads = Spreads::provide(state);
    // Charts speak their summary less often while the run plays (see `Chart`).
    provide_context(runner);
    // When the run hit one of the model's limits (a full backlog…), the reading says what and
    // what it did; the layout shows it whatever the page.
    let limit = expect_context::<LimitNotice>().0;
    AsksFirst::provide();
    // Opened at a moment (`at=`), paused there (no autoplay then). The end is reached as Skip
    // to end reaches it, a chunk a frame.
    match state.at {
        Some(url::At::End) => runner.skip_to_end(),
        Some(at) => runner.seek(at.micros(crate::sim::Micros::MAX)),
        None => {}
    }
    if state.autoplay == Autoplay::OnLoad {
        request_animation_frame(move || runner.play());
    }
    let full_link = full_link(state, runner);
    print_at_the_end(runner, full_link);
    if state.embed {
        return view! { <Figure state runner lead parts limit chapter_controls spreads full_link/> }.into_any();
    }
    view! {
        // The simulated moment (µs) of the snapshot the cards and words show (tests read it).
        <section class="sim" data-scenario=scenario.id data-version=crate::VERSION data-words-at=move || runner.words_at()>
            <h1>{scenario.title}</h1>
            <p class="chapter">{scenario.chapter}</p>
            <p class="summary" data-intro>{move || intro.map_or_else(|| scenario.summary.to_string(), |i| i.get())}</p>
            <PresetBar state runner/>
            <div class="sim-layout">
                <div class="results">
                    {lead.map(|l| (l.children)())}
                    <PlayControls runner/>
                    <Show when=move || limit.with(|l| !l.is_empty())>
                        <p class="limit-notice" role="status" data-limit data-reading="limit">{limit}</p>
                    </Show>
                    {render_parts(parts)}
                    <p class="spread-note help" data-spread-ms=move || spreads.took_ms().map(|t| crate::sim::decimal::fixed(t, 1))>
                        {move || spreads.note()}
                    </p>
                    <SweepToggle state/>
                    <Show when=move || state.sweep.with(Option::is_some)>
                        <SweepPanel state/>
                    </Show>
                </div>
                <aside class="panel" aria-label="Parameters">
                    <ParamControls
                        specs=scenario.params
                        params=state.params
                        shown=None
                        on_change=Callback::new(move |_| runner.rebuild_in_place())
                    />
                    <SeedControl state runner/>
                </aside>
            </div>
            <Share state runner full_link chapter_controls/>
        </section>
    }
    .into_any()
}
