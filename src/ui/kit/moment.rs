//! Keeping the moment across a change: when the reader changes a parameter or picks a preset,
//! the frame rebuilds the run from its start; a page that calls [`keep_moment`] gets the new run
//! moved to where the old one was (the same simulated time, or its end if the old run had
//! finished), so the reader compares two settings at the same moment with the one control
//! each choice already has.

use leptos::prelude::*;

use super::state::SimState;
use crate::sim::{Micros, Params};
use crate::ui::runner::Playback;

/// Where the run was before the last change.
#[derive(Clone)]
struct Seen {
    params: Params,
    now: Micros,
    finished: bool,
}

pub fn keep_moment(state: SimState, runner: Playback) {
    let seen = StoredValue::new(Seen { params: state.params.get_untracked(), now: 0, finished: false });
    Effect::new(move |_| {
        let changed = state.params.with(|p| seen.with_value(|s| *p != s.params));
        let (now, end) = runner.clock();
        if changed {
            // The frame has rebuilt the run for the new parameters: move it to the old moment.
            let (was_at, was_finished) = seen.with_value(|s| (s.now, s.finished));
            seen.update_value(|s| s.params = state.params.get_untracked());
            if was_finished {
                runner.skip_to_end();
            } else if was_at > 0 {
                let playing = runner.playing.get_untracked();
                runner.seek(was_at);
                if playing {
                    runner.play();
                }
            }
            return;
        }
        seen.update_value(|s| {
            s.now = now;
            s.finished = now >= end;
        });
    });
}
