//! The chapter's numbers: how many charges each fix it names ends with.

use super::spec::Fix;

/// The chapter's charges for the three fixes it names (Chapter 2, Part 3).
pub fn chapter_charges(fix: Fix) -> Option<u64> {
    match fix {
        Fix::None => Some(3),
        Fix::Disable => Some(2),
        Fix::Key => Some(1),
        Fix::KeyPerClick | Fix::KeyPerAttempt => None,
    }
}
