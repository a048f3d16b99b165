//! `resilience-lab figure`: every simulation's headline picture, as SVG and PNG, at its end and
//! at a moment of its run, drawn by the page's own code (`resilience_lab::draw`); the page's
//! labels at the same moment are compared with these in `tests/browser/figure_cli.test.mjs`.

use std::process::Command;

use resilience_lab::format;
use resvg::tiny_skia::Pixmap;
use resvg::usvg;
use serde_json::Value as Json;

struct Output {
    status: i32,
    stdout: Vec<u8>,
    stderr: String,
}

fn cli(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_resilience-lab")).args(args).output().expect("the binary runs");
    Output {
        status: out.status.code().expect("exited, not killed by a signal"),
        stdout: out.stdout,
        stderr: String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    }
}

fn ok(args: &[&str]) -> Vec<u8> {
    let out = cli(args);
    assert_eq!(out.status, 0, "{args:?} failed: {}", out.stderr);
    assert!(out.stderr.is_empty(), "{args:?} wrote to stderr: {}", out.stderr);
    out.stdout
}

/// The SVG `figure … --svg` prints, checked well-formed (resvg reads it), and its texts.
fn svg(args: &[&str]) -> (String, Vec<String>) {
    let text = String::from_utf8(ok(args)).expect("UTF-8 SVG");
    usvg::Tree::from_str(&text, &usvg::Options::default()).unwrap_or_else(|e| panic!("{args:?}: not SVG ({e})"));
    let texts = texts(&text);
    (text, texts)
}

/// The texts an SVG (or a part of one) draws, in order.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text ")
        .skip(1)
        .map(|t| t.split_once('>').and_then(|(_, rest)| rest.split_once("</text>")).expect("a closed text").0)
        .map(|t| t.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&"))
        .collect()
}

fn run_json(args: &[&str]) -> Json {
    let mut all = vec!["run"];
    all.extend(args);
    all.push("--json");
    serde_json::from_slice(&ok(&all)).expect("JSON")
}

/// The labels (or their first words) a scenario's picture must draw for the run `args` give, at
/// its end or mid-run, from `run --json`'s numbers.
fn expected(id: &str, args: &[&str], end: bool) -> Vec<String> {
    let run = run_json(args);
    let n = |key: &str| run[key].to_string();
    let mut labels: Vec<String> = match id {
        // B's line: waiting, that is outstanding less its one busy worker.
        "slow-server" => vec![
            "Balancer: round robin".into(),
            "A".into(),
            "B ×5 slower".into(),
            "C".into(),
            run["b_queue"].as_u64().unwrap().saturating_sub(1).to_string(),
        ],
        "cascade" => vec!["Shared pool: 20 of 20 in use".into(), "pool full at 0.42 s".into()],
        "retry-storm" => {
            vec!["Provider".into(), format!("capacity {}", n("capacity_per_tick")), "attempts per tick".into()]
        }
        "at-least-once" => vec!["Queue:".into(), "Consumers:".into(), "Ledger:".into()],
        "choosing-numbers" => vec!["timeout 500 ms:".into(), "deadline 2 s".into()],
        // The timelines: their lanes, and a moment `run --json` times.
        "deadline-chain" => vec![
            "User".into(),
            "C".into(),
            format!("gives up {} (timeout)", format::ms(run["b_gives_up_ms"].as_f64().unwrap())),
        ],
        // Every charge committed so far, by its id, on the card's ledger.
        "double-click" => {
            let ids = run["charge_ids"].as_str().unwrap().split(", ").filter(|id| !id.is_empty());
            ["Page", "Helper", "Server", "Card"].into_iter().map(String::from).chain(ids.map(String::from)).collect()
        }
        "which-timeout" => vec!["Call".into(), "Timers".into(), "Server".into()],
        other => panic!("no labels listed for {other}"),
    };
    if end {
        labels.extend(match id {
            "retry-storm" => vec![format!("busiest tick since back: {}", n("peak_after_recovery"))],
            "at-least-once" => vec![format!("credited twice: {}", n("duplicated"))],
            "deadline-chain" => {
                vec![format!("commits {}, for nobody", format::ms(run["c_end_ms"].as_f64().unwrap()))]
            }
            "which-timeout" => vec![
                format!("{} at {}", run["error"].as_str().unwrap(), format::ms(run["gave_up_ms"].as_f64().unwrap())),
                format!("fires at {}", format::ms(run["first_fired_ms"].as_f64().unwrap())),
            ],
            "choosing-numbers" => {
                vec![format!("slowest request so far: waited {} ms", run["worst_wait_ms"].as_f64().unwrap().round())]
            }
            _ => vec![],
        });
    }
    labels
}

/// Whether a text drawn is `label` or begins with it as words ("Provider" in "Provider: down").
fn draws(texts: &[String], label: &str) -> bool {
    texts.iter().any(|t| t.strip_prefix(label).is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric())))
}

/// Every simulation: `figure` draws each one's headline picture (the last three's, their
/// request timeline).
fn ids() -> impl Iterator<Item = &'static str> {
    resilience_lab::scenarios::ALL.iter().map(|s| s.id)
}

#[test]
fn every_picture_is_svg_with_its_labels_at_the_end_and_mid_run() {
    for id in ids() {
        for at in [None, Some("3000")] {
            let mut args = vec![id];
            if let Some(at) = at {
                args.extend(["--at-ms", at]);
            }
            let (_, texts) = svg(&[&["figure"], &args[..], &["--svg"]].concat());
            for label in expected(id, &args, at.is_none()) {
                assert!(draws(&texts, &label), "{args:?}: the picture does not draw '{label}': {texts:?}");
            }
        }
    }
}

/// The texts of one part of a figure's SVG (`picture` or `caption`).
fn part(svg: &str, id: &str) -> String {
    let start = svg.find(&format!("<svg id=\"{id}\"")).unwrap_or_else(|| panic!("no part {id}"));
    let end = svg[start..].find("</svg>").expect("a closed part");
    svg[start..start + end].to_string()
}

/// A part's size, as its `<svg>` says it.
fn size(svg: &str, id: &str) -> (String, String) {
    let part = part(svg, id);
    let attribute =
        |name: &str| part.split(&format!(" {name}=\"")).nth(1).and_then(|v| v.split('"').next()).unwrap().to_string();
    (attribute("width"), attribute("height"))
}

#[test]
fn the_picture_is_as_wide_as_asked_and_as_tall_as_the_page_makes_it() {
    let (text, _) = svg(&["figure", "slow-server", "--svg", "--width", "412"]);
    assert_eq!(size(&text, "picture"), ("412".into(), "228".into()));
    let (_, caption_height) = size(&text, "caption");
    let total = 228.0 + caption_height.parse::<f64>().unwrap();
    assert!(
        text.starts_with(&format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"412\" height=\"{total}\"")),
        "{text:.120}"
    );
}

/// which-timeout's failovers (Break 5), headed by their calls' chart and captioned with their
/// calls' cards: the plain one, and the answer that retries connects.
const FAILOVERS: [&str; 2] = ["ch1-break-5", "ch1-break-5-fix"];

/// Under the picture, the figure's caption as `Explain::caption` declares it: each card's label,
/// value and unit as the page's card and `run` write them, then the lead of the verdict. For
/// every scenario at its defaults, and for the failovers.
#[test]
fn the_caption_holds_the_cards_and_the_verdicts_lead() {
    let defaults = resilience_lab::scenarios::ALL.iter().map(|spec| (spec.id, ""));
    for (id, preset) in defaults.chain(FAILOVERS.map(|p| ("which-timeout", p))) {
        for at in [None, Some(3000)] {
            caption_matches(id, preset, at);
        }
    }
}

/// The caption of `id`'s figure with `preset` (none: "") at `at` ms (none: its end).
fn caption_matches(id: &str, preset: &str, at: Option<u64>) {
    let spec = resilience_lab::scenarios::find(id).unwrap();
    let mut args = vec![id];
    if !preset.is_empty() {
        args.extend(["--preset", preset]);
    }
    let at_ms = at.map(|ms| ms.to_string());
    if let Some(ms) = &at_ms {
        args.extend(["--at-ms", ms]);
    }
    let (text, _) = svg(&[&["figure"], &args[..], &["--svg", "--width", "1600"]].concat());
    let texts = texts(&part(&text, "caption"));
    let run = run_json(&args);
    // The same run in this process, for what its caption declares.
    let params = spec.configured(preset, &[]);
    let mut sim = spec.start(&params, run["seed"].as_u64().unwrap(), spec.duration_for(&params));
    match at {
        Some(ms) => {
            while sim.now() < ms * 1000 && !sim.finished() {
                sim.advance(ms * 1000, u64::MAX);
            }
        }
        None => sim.run_to_end(),
    }
    let said = sim.caption();
    let mut want = Vec::new();
    for key in said.cards {
        let metric = spec.metric(key).unwrap();
        let value = &sim.metrics().into_iter().find(|(k, _)| k == key).unwrap().1;
        let (value, unit) = resilience_lab::format::quantity(value, metric.unit);
        want.push(metric.label.to_string());
        want.push(value);
        if !unit.is_empty() {
            want.push(unit.to_string());
        }
    }
    // As `figure` cuts it (`draw::figure::verdict`), from `run --json`'s sentence.
    let sentence = run["reading"][said.verdict].as_str().unwrap_or_default().to_string();
    let lead = resilience_lab::draw::figure::verdict(&vec![(said.verdict, sentence)], said.verdict, said.shown);
    assert!(!lead.is_empty(), "{args:?}: no verdict");
    assert_eq!(texts[..want.len()], want[..], "{args:?}: the cards");
    assert_eq!(texts[want.len()..].join(" "), lead, "{args:?}: the verdict");
}

#[test]
fn a_link_or_the_flag_draws_it_dark() {
    let dark = resilience_lab::draw::Theme::of(true).bg;
    let by_flag = String::from_utf8(ok(&["figure", "cascade", "--svg", "--theme", "dark"])).unwrap();
    let by_link = String::from_utf8(ok(&["figure", "--url", "?sim=cascade&theme=dark", "--svg"])).unwrap();
    let light =
        String::from_utf8(ok(&["figure", "--url", "?sim=cascade&theme=dark", "--svg", "--theme", "light"])).unwrap();
    assert_eq!(by_flag, by_link);
    assert!(by_flag.contains(&format!("fill=\"{dark}\"")), "{by_flag:.300}");
    assert!(!light.contains(&format!("fill=\"{dark}\"")), "{light:.300}");
}

#[test]
fn a_png_is_the_picture_at_the_width_asked() {
    for id in ids() {
        let png = ok(&["figure", id, "--png", "--width", "500"]);
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{id}: not a PNG");
        let pixmap = Pixmap::decode_png(&png).expect("a PNG that decodes");
        let (svg, _) = svg(&["figure", id, "--svg", "--width", "500"]);
        let height = svg.split("height=\"").nth(1).and_then(|h| h.split('"').next()).unwrap();
        assert_eq!(svg.matches("<svg ").count(), 3, "{id}: the document, its picture and its caption");
        assert_eq!((pixmap.width(), pixmap.height().to_string()), (500, height.to_string()), "{id}");
        let background = pixmap.pixel(0, 0).unwrap();
        let drawn = pixmap.pixels().iter().filter(|p| **p != background).count();
        assert!(drawn > 1000, "{id}: only {drawn} pixels differ from the background");
    }
}

/// A timeline is as tall as its lanes make it, as on the page (`draw::timeline::height`).
#[test]
fn a_timeline_is_as_tall_as_its_data() {
    use resilience_lab::scenarios::which_timeout::WhichTimeout;
    use resilience_lab::sim::{Host, Simulation};
    let spec = resilience_lab::scenarios::find("which-timeout").unwrap();
    let params = spec.defaults();
    let mut run = Host::<WhichTimeout>::new(&params, 1, spec.duration_for(&params) * 1000);
    run.run_to_end();
    let height = resilience_lab::draw::timeline::height(&resilience_lab::draw::which_timeout::data(&run));
    let (text, _) = svg(&["figure", "which-timeout", "--svg", "--width", "412"]);
    assert_eq!(size(&text, "picture"), ("412".into(), height.to_string()));
}

/// A failover is headed by its calls' chart, as on the page, not by one call's timeline: as tall
/// as a chart in a figure, with the pool's size and the moment it filled as `run --json` has
/// them, at its end and mid-run.
#[test]
fn a_failover_is_drawn_as_its_calls_chart() {
    for preset in FAILOVERS {
        for at in [None, Some("3000")] {
            let mut args = vec!["which-timeout", "--preset", preset];
            args.extend(at.map(|at| ["--at-ms", at]).iter().flatten());
            let (text, _) = svg(&[&["figure"], &args[..], &["--svg", "--width", "412"]].concat());
            let height = resilience_lab::draw::chart::FIGURE_HEIGHT;
            assert_eq!(size(&text, "picture"), ("412".into(), height.to_string()), "{args:?}");
            let drawn = texts(&part(&text, "picture"));
            let run = run_json(&args);
            let full_at = run["failover_pool_full_at_ms"].as_f64().expect("the pool fills");
            let labels = [
                format!("pool of {}", run["params"]["pool_size"].as_f64().unwrap()),
                format!("pool full at {}", format::ms(full_at)),
                "DNS gives the new address".into(),
            ];
            for label in labels {
                assert!(drawn.contains(&label), "{args:?}: the chart does not draw '{label}': {drawn:?}");
            }
            assert!(!drawn.contains(&"Call".to_string()), "{args:?}: a timeline's lane is drawn: {drawn:?}");
        }
    }
}

#[test]
fn bad_input_is_a_one_line_error_with_status_2() {
    for (args, says) in [
        (&["figure", "slow-serve", "--svg"][..], "unknown scenario 'slow-serve'"),
        (&["figure", "slow-server"][..], "figure needs --svg or --png"),
        (&["figure", "slow-server", "--svg", "--width", "wide"][..], "--width: 'wide'"),
        (&["figure", "slow-server", "--svg", "--width", "20"][..], "--width: '20'"),
        (&["figure", "slow-server", "--svg", "--width"][..], "--width needs a value"),
        (&["figure", "slow-server", "--svg", "--at-ms", "-4"][..], "--at-ms: '-4'"),
        (&["figure", "slow-server", "--svg", "--preset", "nope"][..], "unknown preset 'nope'"),
        (&["figure", "slow-server", "--jpg"][..], "unknown option '--jpg'"),
        (&["figure", "slow-server", "--svg", "--theme", "sepia"][..], "--theme: 'sepia' is not light or dark"),
        (&["figure", "--svg"][..], "figure needs a scenario"),
    ] {
        let out = cli(args);
        assert_eq!(out.status, 2, "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{args:?} printed something");
        assert!(out.stderr.starts_with("error: ") && out.stderr.contains(says), "{args:?}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
    }
}

/// The pictures' theme (`draw::theme`, which `figure` draws in, light) is the page's: the style
/// sheet's background, text and muted colours, light and dark.
#[test]
fn the_pictures_theme_is_the_style_sheets() {
    let css = include_str!("../static/style.css");
    let value = |block: &str, var: &str| {
        let at = css.find(block).unwrap_or_else(|| panic!("no {block}"));
        let rest = &css[at..];
        let v = &rest[rest.find(&format!("{var}:")).unwrap() + var.len() + 1..];
        v[..v.find(';').unwrap()].trim().to_string()
    };
    for (block, dark) in [(":root {", false), (":root[data-theme=\"dark\"] {", true)] {
        let theme = resilience_lab::draw::Theme::of(dark);
        let colours = [("--bg", theme.bg), ("--text", theme.fg), ("--muted", theme.muted)];
        for (var, ours) in colours {
            assert_eq!(value(block, var), ours, "{var} in {block}");
        }
    }
}

/// Every scenario's caption (`Explain::caption`), at the end of its defaults' run and each
/// preset's: one to four distinct declared metrics, and a verdict the run says.
#[test]
fn every_caption_names_declared_cards_and_a_sentence_the_run_says() {
    for spec in resilience_lab::scenarios::ALL {
        let runs = std::iter::once(None).chain(spec.presets.iter().map(Some));
        for preset in runs {
            let mut params = spec.defaults();
            if let Some(p) = preset {
                params.apply_preset(p).expect("presets apply");
            }
            let mut sim = spec.start(&params, 7, spec.duration_for(&params));
            sim.run_to_end();
            let caption = sim.caption();
            let run = format!("{} {:?}", spec.id, preset.map(|p| p.id));
            assert!((1..=4).contains(&caption.cards.len()), "{run}: {:?}", caption.cards);
            for (i, key) in caption.cards.iter().enumerate() {
                assert!(spec.metric(key).is_some(), "{run}: {key} is not a metric");
                assert!(!caption.cards[..i].contains(key), "{run}: {key} twice");
            }
            let reading = sim.reading();
            let verdict = reading.iter().find(|(k, _)| *k == caption.verdict).map(|(_, s)| s.as_str());
            assert!(verdict.is_some_and(|v| !v.is_empty()), "{run}: no sentence '{}'", caption.verdict);
        }
    }
}
