//! The hot path does not allocate per event: once a run is warm (its queues, pools and
//! histograms have grown to the load), processing events costs next to no heap allocations.
//! A counting allocator wraps the system one for this test binary only.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use resilience_lab::scenarios::ALL;
use resilience_lab::sim::MS;

struct Counting;

thread_local! {
    // Per thread, so that tests running in parallel do not count each other's allocations.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Every scenario at its defaults, run for ten simulated minutes: after the first minute, at
/// most one allocation per thousand events (growth of a buffer now and then, never per event).
/// The stories (deadline-chain, double-click) are over within the minute; the scenarios that
/// carry load must have done real work in the measured part, so cascade's load (10 s by
/// default) lasts the whole run here.
#[test]
fn warm_runs_allocate_almost_nothing_per_event() {
    for spec in ALL {
        let mut params = spec.defaults();
        if spec.param("load_ms").is_some() {
            params.set("load_ms", 600_000.0);
        }
        let mut sim = spec.start(&params, 1, 600_000);
        sim.advance(60_000 * MS, u64::MAX);
        let (events_before, allocations_before) = (sim.events(), allocations());
        sim.run_to_end();
        let events = sim.events() - events_before;
        let allocated = allocations() - allocations_before;
        println!("{}: {allocated} allocations over {events} events", spec.id);
        assert!(allocated <= events / 1000, "{}: {allocated} allocations over {events} events", spec.id);
        if ["slow-server", "cascade", "retry-storm"].contains(&spec.id) {
            assert!(events >= 10_000, "{}: only {events} events after the first minute", spec.id);
        }
    }
}

/// The counter counts: a run from cold allocates its state, so a test above that saw no
/// allocation at all would be measuring nothing.
#[test]
fn the_counter_sees_a_cold_start() {
    let before = allocations();
    let mut sim = ALL[0].start(&ALL[0].defaults(), 1, 1_000);
    sim.run_to_end();
    assert!(allocations() - before > 10);
}
