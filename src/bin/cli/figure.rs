//! `resilience-lab figure`: the figure at a moment of its run (its end unless `--at-ms` or the
//! link's `at=` names one), as SVG or PNG on standard output: its headline picture, drawn by the
//! code that draws it on the page (`resilience_lab::draw`), with its cards and verdict under it,
//! light unless `--theme dark` or the link's `theme=dark` asks for dark.

use std::io::Write;

use resilience_lab::draw;
use resilience_lab::url::Theme;

use super::native::{Played, played, short};
use super::settings;

/// The width a figure's column gives its picture at a 720 px page, about.
const WIDTH: f64 = 720.0;

enum Format {
    Svg,
    Png,
}

pub fn figure(args: &[String]) -> Result<(), String> {
    let (mut format, mut width, mut theme) = (None, None, None);
    let Played { state, sim, .. } = played(args, "figure", "--svg, --png, --width or --theme", |arg, rest| {
        match arg {
            "--svg" => format = Some(Format::Svg),
            "--png" => format = Some(Format::Png),
            "--width" => width = Some(settings::value(arg, rest)?.clone()),
            "--theme" => theme = Some(settings::value(arg, rest)?.clone()),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let format = format.ok_or("figure needs --svg or --png")?;
    let width = match width {
        None => WIDTH,
        Some(w) => w
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|w| (100..=4000).contains(w))
            .ok_or_else(|| format!("--width: '{}' is not a whole number of px from 100 to 4000", short(&w)))?
            .into(),
    };
    // Light unless asked, or unless the link asks for dark (`theme=dark`).
    let dark = match theme.as_deref().map(str::trim) {
        None => state.theme == Theme::Dark,
        Some("light") => false,
        Some("dark") => true,
        Some(other) => return Err(format!("--theme: '{}' is not light or dark", short(other))),
    };
    let svg = draw::figure::svg(state.scenario, &*sim, width, dark)
        .ok_or_else(|| format!("{} has no picture to draw yet", state.scenario.id))?;
    let bytes = match format {
        Format::Svg => svg.into_bytes(),
        Format::Png => draw::svg::png(&svg, width as u32)?,
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(&bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cannot write the picture: {e}")),
        _ => Ok(()),
    }
}
