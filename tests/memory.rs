//! No setting can make a run need more than 256 MB: every scenario at corners of its parameter
//! space (every parameter at its minimum or its maximum), for the longest run allowed, while a
//! counting allocator tracks the most memory held at once. The overloads that used to grow
//! without bound (one slow server at 3,000 req/s for four hours: 830 MB) now meet a server's
//! backlog and are refused and counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use resilience_lab::scenarios::ALL;
use resilience_lab::sim::base::MAX_DURATION_MS;
use resilience_lab::sim::{ParamKind, Params, ScenarioSpec};

struct Peak;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let held = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(held, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let held = HELD.fetch_add(new_size, Ordering::Relaxed) + new_size;
        PEAK.fetch_max(held, Ordering::Relaxed);
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

const LIMIT: usize = 256 << 20;

/// Parameters at a corner: bit `i` of `corner` puts parameter `i` at its maximum, else its
/// minimum (a choice at its last or first option, a toggle on or off).
fn corner(spec: &ScenarioSpec, corner: u64) -> Params {
    let mut p = spec.defaults();
    for (i, ps) in spec.params.iter().enumerate() {
        let high = corner >> (i % 64) & 1 == 1;
        let value = match ps.kind {
            ParamKind::Number | ParamKind::Toggle => {
                if high {
                    ps.max
                } else {
                    ps.min
                }
            }
            ParamKind::Choice(o) => {
                if high {
                    (o.len() - 1) as f64
                } else {
                    0.0
                }
            }
        };
        p.set(ps.id, value);
    }
    p
}

/// One measurement at a time: the counters are global, and the test harness runs tests in
/// parallel threads.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The most memory held while running `params` for four hours, above what was held before.
fn peak_bytes(spec: &ScenarioSpec, params: &Params) -> usize {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let mut sim = spec.start(params, 1, MAX_DURATION_MS);
    sim.run_to_end();
    std::hint::black_box(sim.metrics());
    drop(sim);
    PEAK.load(Ordering::Relaxed) - before
}

/// The corners every scenario is run at: all minimum, all maximum, and a spread of mixtures
/// (a fixed list, so the test is the same every time).
const CORNERS: [u64; 6] =
    [0, u64::MAX, 0x5555_5555_5555_5555, 0xAAAA_AAAA_AAAA_AAAA, 0x0F0F_0F0F_0F0F_0F0F, 0xF0F0_F0F0_F0F0_F0F0];

#[test]
fn no_corner_of_any_scenario_needs_more_than_256_mb_in_four_hours() {
    for spec in ALL {
        let worst = CORNERS.iter().map(|&c| (peak_bytes(spec, &corner(spec, c)), c)).max().expect("corners");
        println!("{}: at most {:.1} MB (corner {:#x})", spec.id, worst.0 as f64 / 1048576.0, worst.1);
        assert!(worst.0 <= LIMIT, "{}: {} bytes at corner {:#x}", spec.id, worst.0, worst.1);
    }
}

/// The overload the issue measured at 830 MB: one server, 3,000 req/s, 500 ms of service, a 50×
/// slowdown, four hours.
#[test]
fn the_worst_slow_server_overload_stays_bounded() {
    let spec = resilience_lab::scenarios::find("slow-server").unwrap();
    let mut p = spec.defaults();
    for (k, v) in
        [("servers", "1"), ("rate", "3000"), ("service_ms", "500"), ("slowdown", "50"), ("timeout_ms", "30000")]
    {
        p.set_text(k, v).unwrap();
    }
    let peak = peak_bytes(spec, &p);
    println!("slow-server overload: {:.1} MB", peak as f64 / 1048576.0);
    assert!(peak <= 64 << 20, "{peak} bytes");
}

/// The counter counts: a run holds its state.
#[test]
fn the_peak_counter_sees_a_run() {
    let spec = ALL[0];
    assert!(peak_bytes(spec, &spec.defaults()) > 10_000);
}
