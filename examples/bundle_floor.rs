//! The smallest app that has what every page of Resilience Lab needs: Leptos drawing one page
//! (a slider, a play button, a live number, a canvas chart) over every scenario's model, run
//! at its defaults. `scripts/bench.sh` builds it the way Trunk builds the app and reports its
//! gzipped size as the floor under the bundle goal: what is left of the 150 KB for the five
//! real pages is the goal minus this figure.

#[cfg(target_arch = "wasm32")]
mod floor {
    use leptos::prelude::*;
    use resilience_lab::scenarios::ALL;
    use wasm_bindgen::JsCast;

    /// Runs every scenario for `ms` simulated milliseconds with its first parameter set to
    /// `value`, and adds up its numeric metrics, so that no model can be optimised away.
    fn run_every_model(ms: u64, value: f64) -> f64 {
        let mut total = 0.0;
        for spec in ALL {
            let mut params = spec.defaults();
            if let Some(first) = spec.params.first() {
                params.set(first.id, first.sanitize(value));
            }
            let mut sim = spec.start(&params, 7, ms);
            sim.run_to_end();
            total += sim.metrics().iter().filter_map(|(_, v)| v.as_f64()).sum::<f64>();
        }
        total
    }

    #[component]
    fn FloorPage() -> impl IntoView {
        let value = RwSignal::new(150.0_f64);
        let result = RwSignal::new(Vec::<f64>::new());
        let canvas = NodeRef::<leptos::html::Canvas>::new();
        Effect::new(move |_| {
            let Some(canvas) = canvas.get() else { return };
            let Ok(Some(ctx)) = canvas.get_context("2d") else { return };
            let ctx: web_sys::CanvasRenderingContext2d = ctx.unchecked_into();
            ctx.clear_rect(0.0, 0.0, 300.0, 150.0);
            ctx.begin_path();
            result.with(|ys| ys.iter().enumerate().for_each(|(i, y)| ctx.line_to(i as f64 * 30.0, 150.0 - y % 150.0)));
            ctx.stroke();
        });
        let run = move |_| {
            let total = run_every_model(10_000, value.get_untracked());
            result.update(|r| r.push(total));
        };
        view! {
            <main>
                <label>
                    "First parameter "
                    <input type="range" min="1" max="1000" prop:value=move || value.get().to_string()
                        on:input=move |ev| value.set(event_target_value(&ev).parse().unwrap_or(150.0)) />
                    <output>{move || format!("{:.1}", value.get())}</output>
                </label>
                <button on:click=run>"Run every model"</button>
                <p>{move || result.with(|r| r.last().map(|t| format!("{t:.3}")).unwrap_or_default())}</p>
                <canvas node_ref=canvas width="300" height="150"></canvas>
            </main>
        }
    }

    pub fn start() {
        leptos::mount::mount_to_body(FloorPage);
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {
    floor::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("bundle_floor is a wasm size reference: scripts/bench.sh builds and measures it.");
}
