//! `resilience-lab figure`: every simulation's headline picture, as SVG and PNG, at its end and
//! at a moment of its run, drawn by the page's own code (`resilience_lab::draw`); the page's
//! labels at the same moment are compared with these in `tests/browser/figure_cli.test.mjs`.

use std::process::Command;

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
    let texts = text
        .split("<text ")
        .skip(1)
        .map(|t| t.split_once('>').and_then(|(_, rest)| rest.split_once("</text>")).expect("a closed text").0)
        .map(|t| t.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&"))
        .collect();
    (text, texts)
}

fn run_json(args: &[&str]) -> Json {
    let mut all = vec!["run"];
    all.extend(args);
    all.push("--json");
    serde_json::from_slice(&ok(&all)).expect("JSON")
}

/// The labels a scenario's picture must draw for the run `args` give, from `run --json`'s numbers.
fn expected(id: &str, args: &[&str]) -> Vec<String> {
    let run = run_json(args);
    match id {
        "slow-server" => {
            // B's line: waiting, that is outstanding less its one busy worker.
            let waiting = run["b_queue"].as_u64().unwrap().saturating_sub(1);
            vec!["Balancer: round robin".into(), "A".into(), "B ×5 slower".into(), "C".into(), waiting.to_string()]
        }
        other => panic!("no labels listed for {other}"),
    }
}

/// The simulations whose picture `figure` draws.
const DRAWN: &[&str] = &["slow-server"];

#[test]
fn every_picture_is_svg_with_its_labels_at_the_end_and_mid_run() {
    for id in DRAWN {
        for at in [None, Some("3000")] {
            let mut args = vec![*id];
            if let Some(at) = at {
                args.extend(["--at-ms", at]);
            }
            let (_, texts) = svg(&[&["figure"], &args[..], &["--svg"]].concat());
            for label in expected(id, &args) {
                assert!(
                    texts.iter().any(|t| *t == label || t.starts_with(&format!("{label} "))),
                    "{args:?}: the picture does not draw '{label}': {texts:?}"
                );
            }
        }
    }
}

#[test]
fn the_svg_is_as_wide_as_asked_and_as_tall_as_the_page_makes_it() {
    let (text, _) = svg(&["figure", "slow-server", "--svg", "--width", "412"]);
    assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"412\" height=\"228\""), "{text:.120}");
}

#[test]
fn a_png_is_the_picture_at_the_width_asked() {
    let png = ok(&["figure", "slow-server", "--png", "--width", "500"]);
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let pixmap = Pixmap::decode_png(&png).expect("a PNG that decodes");
    assert_eq!((pixmap.width(), pixmap.height()), (500, 228));
    let background = pixmap.pixel(0, 0).unwrap();
    let drawn = pixmap.pixels().iter().filter(|p| **p != background).count();
    assert!(drawn > 2000, "only {drawn} pixels differ from the background");
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
        (&["figure", "--svg"][..], "figure needs a scenario"),
    ] {
        let out = cli(args);
        assert_eq!(out.status, 2, "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{args:?} printed something");
        assert!(out.stderr.starts_with("error: ") && out.stderr.contains(says), "{args:?}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
    }
}
