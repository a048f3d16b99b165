//! The pictures' and charts' colours, light and dark: one table for the page (which picks by the
//! reader's scheme, `ui::kit::chart::is_dark`) and the command line (which draws light).

/// Palette slots; each has a light and a dark colour, both readable on their background.
const LIGHT: [&str; 8] = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bc4c00", "#1b7c83", "#bf3989", "#6e7781"];
const DARK: [&str; 8] = ["#4493f8", "#ff7b72", "#3fb950", "#bc8cff", "#ffa657", "#39c5cf", "#ff80c8", "#9198a1"];

/// The palette slots by name, so pages say which colour they mean.
pub mod slot {
    pub const BLUE: usize = 0;
    pub const RED: usize = 1;
    pub const GREEN: usize = 2;
    pub const PURPLE: usize = 3;
    pub const ORANGE: usize = 4;
    pub const TEAL: usize = 5;
    pub const PINK: usize = 6;
    pub const GRAY: usize = 7;
}

pub fn color(slot: usize, dark: bool) -> &'static str {
    if dark { DARK[slot % 8] } else { LIGHT[slot % 8] }
}

/// The ink of everything drawn that is not a series: text, axes, grid, background, shading.
pub struct Theme {
    pub fg: &'static str,
    pub muted: &'static str,
    pub grid: &'static str,
    pub bg: &'static str,
    pub shade: &'static str,
    pub dark: bool,
}

impl Theme {
    pub fn of(dark: bool) -> Self {
        if dark {
            Theme {
                fg: "#e6edf3",
                muted: "#9198a1",
                grid: "#30363d",
                bg: "#0d1117",
                shade: "rgba(248,81,73,0.12)",
                dark: true,
            }
        } else {
            Theme {
                fg: "#1f2328",
                muted: "#59636e",
                grid: "#d8dee4",
                bg: "#ffffff",
                shade: "rgba(207,34,46,0.08)",
                dark: false,
            }
        }
    }
}
