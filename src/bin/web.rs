//! The browser app's entry point. Trunk builds this for wasm32; natively it does nothing.

#[cfg(target_arch = "wasm32")]
fn main() {
    resilience_lab::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("resilience-lab-web is the browser app: build it with `scripts/serve.sh` (Trunk).");
}
