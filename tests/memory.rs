//! No setting can make a run need more than 256 MB: every scenario at corners of its parameter
//! space (every parameter at its minimum or its maximum), for the longest run allowed, while a
//! counting allocator tracks the most memory held at once. The overloads that used to grow
//! without bound (one slow server at 3,000 req/s for four hours: 830 MB) now meet a server's
//! backlog and are refused and counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use resilience_lab::scenarios::ALL;
use resilience_lab::sim::base::MAX_DURATION_MS;
use resilience_lab::sim::{ParamKind, Params, ScenarioSpec};

struct Peak;

// Each thread counts what it holds: a run allocates and frees on the thread that runs it, so the
// corners can run on every core at once (on one thread, one after another, they took 3.5 min).
thread_local! {
    static HELD: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn held_more(bytes: usize) {
    let held = HELD.with(|h| {
        h.set(h.get().wrapping_add(bytes));
        h.get()
    });
    PEAK.with(|p| p.set(p.get().max(held)));
}

fn held_less(bytes: usize) {
    HELD.with(|h| h.set(h.get().wrapping_sub(bytes)));
}

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        held_more(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        held_less(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        held_more(new_size);
        held_less(layout.size());
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

/// The most memory this thread held while running `params` for four hours, above what it held
/// before.
fn peak_bytes(spec: &ScenarioSpec, params: &Params) -> usize {
    let before = HELD.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let mut sim = spec.start(params, 1, MAX_DURATION_MS);
    sim.run_to_end();
    std::hint::black_box(sim.metrics());
    drop(sim);
    PEAK.with(Cell::get) - before
}

/// The corners every scenario is run at: all minimum, all maximum, and a spread of mixtures
/// (a fixed list, so the test is the same every time).
const CORNERS: [u64; 6] =
    [0, u64::MAX, 0x5555_5555_5555_5555, 0xAAAA_AAAA_AAAA_AAAA, 0x0F0F_0F0F_0F0F_0F0F, 0xF0F0_F0F0_F0F0_F0F0];

#[test]
fn no_corner_of_any_scenario_needs_more_than_256_mb_in_four_hours() {
    // Every (scenario, corner) pair, taken in turn by one thread per core.
    let jobs: Vec<(&ScenarioSpec, u64)> = ALL.iter().flat_map(|&spec| CORNERS.map(|c| (spec, c))).collect();
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut peaks = vec![0; jobs.len()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut measured = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(spec, c)) = jobs.get(i) else { return measured };
                        measured.push((i, peak_bytes(spec, &corner(spec, c))));
                    }
                })
            })
            .collect();
        for (i, peak) in workers.into_iter().flat_map(|w| w.join().expect("a corner ran")) {
            peaks[i] = peak;
        }
    });
    for (spec, peaks) in ALL.iter().zip(peaks.chunks(CORNERS.len())) {
        let (worst, c) = peaks.iter().zip(CORNERS).max().expect("corners");
        println!("{}: at most {:.1} MB (corner {c:#x})", spec.id, *worst as f64 / 1048576.0);
        assert!(*worst <= LIMIT, "{}: {worst} bytes at corner {c:#x}", spec.id);
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
