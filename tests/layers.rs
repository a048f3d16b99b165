//! The code's shape, checked: no two files of `src/` depend on each other, through any chain
//! of `use`s and paths (a layer below never reaches a layer above), and no scenario file is
//! longer than a newcomer can read.
//!
//! Each file of the library is a node. A path in a file (`use crate::sim::Value;`,
//! `super::model::Cascade`, `reading::sweep_theory(…)`, `$crate::sim::ParamSpec` in a macro) is
//! an edge to the file that defines what it names, following re-exports (`pub use`), which are
//! not edges themselves: a module that only re-exports is a door, not a dependency. Comments,
//! strings and inline `#[cfg(test)]` modules are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module of the library: its path from the crate root and its source without comments,
/// strings and test modules.
struct Module {
    file: String,
    path: Vec<String>,
    code: String,
}

fn library_modules() -> Vec<Module> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect_rs(&src, &mut files);
    files
        .into_iter()
        .filter(|f| !f.starts_with(src.join("bin")))
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
            let path = module_path(&rel);
            Module { file: format!("src/{rel}"), path, code: code_only(&fs::read_to_string(&f).unwrap()) }
        })
        .collect()
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            collect_rs(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `sim/model.rs` → `[sim, model]`, `ui/kit/mod.rs` → `[ui, kit]`, `lib.rs` → `[]`.
fn module_path(rel: &str) -> Vec<String> {
    let trimmed = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = trimmed.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The source without comments, string and char literals, and `#[cfg(test)]` modules.
fn code_only(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let chars: Vec<char> = source.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '"' || (c == 'r' && next == Some('#')) || (c == 'r' && next == Some('"')) {
            i = skip_string(&chars, i);
            out.push_str("\"\"");
        } else if c == '\'' && is_char_literal(&chars, i) {
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    strip_test_modules(&out)
}

/// The index after the string literal (plain or raw) that starts at `i`.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    if chars[i] == 'r' {
        i += 1;
        let mut hashes = 0;
        while chars[i] == '#' {
            hashes += 1;
            i += 1;
        }
        if chars[i] != '"' {
            return i; // `r#ident`, not a string
        }
        i += 1;
        loop {
            if chars[i] == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
                return i + 1 + hashes;
            }
            i += 1;
        }
    }
    i += 1;
    while chars[i] != '"' {
        i += if chars[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// A `'` that opens a char literal ('a', '\n'), not a lifetime ('static).
fn is_char_literal(chars: &[char], i: usize) -> bool {
    matches!((chars.get(i + 1), chars.get(i + 2)), (Some('\\'), _) | (Some(_), Some('\'')))
}

fn strip_test_modules(code: &str) -> String {
    let mut out = code.to_string();
    while let Some(at) = out.find("#[cfg(test)]") {
        let rest = &out[at..];
        let Some(open) = rest.find('{') else { break };
        let mut depth = 0;
        let mut end = rest.len();
        for (k, ch) in rest[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.replace_range(at..at + end, "");
    }
    out
}

/// Every path the code names, as written: `crate::a::b`, `super::x`, `reading::f`, and each
/// leaf of a `use` tree (`use crate::sim::{Micros, params::Config}` gives two).
fn paths_in(code: &str) -> Vec<(Vec<String>, bool)> {
    let mut out = Vec::new();
    let tokens = tokenize(code);
    let mut i = 0;
    while i < tokens.len() {
        let public_use = tokens[i] == "pub" && tokens.get(i + 1).is_some_and(|t| t == "use");
        if tokens[i] == "use" || public_use {
            let start = if public_use { i + 2 } else { i + 1 };
            let end = (start..tokens.len()).find(|&k| tokens[k] == ";").unwrap_or(tokens.len());
            for leaf in use_leaves(&tokens[start..end], Vec::new()) {
                out.push((leaf, public_use));
            }
            i = end;
            continue;
        }
        if is_ident(&tokens[i]) && tokens.get(i + 1).is_some_and(|t| t == "::") && (i == 0 || tokens[i - 1] != "::") {
            let mut path = vec![tokens[i].clone()];
            let mut k = i + 1;
            while tokens.get(k).is_some_and(|t| t == "::") && tokens.get(k + 1).is_some_and(|t| is_ident(t)) {
                path.push(tokens[k + 1].clone());
                k += 2;
            }
            if tokens.get(k).is_none_or(|t| t != "!") {
                out.push((path, false));
            }
            i = k;
            continue;
        }
        i += 1;
    }
    out
}

fn is_ident(t: &str) -> bool {
    t.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
}

fn tokenize(code: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push("::".into());
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            tokens.push(c.to_string());
            i += 1;
        }
    }
    tokens
}

/// The leaves of a `use` tree: `a::{b, c::{d, e as f}, self}`.
fn use_leaves(tokens: &[String], prefix: Vec<String>) -> Vec<Vec<String>> {
    let mut leaves = Vec::new();
    let mut path = prefix;
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        if t == "{" {
            let mut depth = 0;
            let mut item_start = i + 1;
            for k in i..tokens.len() {
                match tokens[k].as_str() {
                    "{" => depth += 1,
                    "}" | "," if depth == 1 => {
                        // The empty item after a trailing comma names nothing (not the prefix).
                        if k > item_start {
                            leaves.extend(use_leaves(&tokens[item_start..k], path.clone()));
                        }
                        item_start = k + 1;
                        if tokens[k] == "}" {
                            return leaves;
                        }
                    }
                    "}" => depth -= 1,
                    _ => {}
                }
            }
            return leaves;
        } else if t == "as" {
            break;
        } else if t == "self" && !path.is_empty() {
            // `a::{self}` names `a` itself
        } else if is_ident(t) || t == "*" {
            path.push(t.clone());
        }
        i += 1;
    }
    if !path.is_empty() {
        leaves.push(path);
    }
    leaves
}

/// The library's module tree and re-exports, and how a path resolves to a defining file.
struct Tree {
    files: BTreeMap<Vec<String>, String>,
    /// `pub use` in a module: the name it exports → the absolute path it names.
    reexports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
}

impl Tree {
    fn new(modules: &[Module]) -> Self {
        let files = modules.iter().map(|m| (m.path.clone(), m.file.clone())).collect();
        let mut tree = Tree { files, reexports: BTreeMap::new() };
        for m in modules {
            for (path, public) in paths_in(&m.code) {
                if public && let Some(abs) = tree.absolute(&m.path, &path) {
                    let name = abs.last().unwrap().clone();
                    tree.reexports.entry(m.path.clone()).or_default().insert(name, abs);
                }
            }
        }
        tree
    }

    /// The absolute module path a path written in module `from` names, or `None` for an
    /// external crate's path.
    fn absolute(&self, from: &[String], path: &[String]) -> Option<Vec<String>> {
        let (mut base, rest): (Vec<String>, &[String]) = match path[0].as_str() {
            "crate" | "$crate" => (Vec::new(), &path[1..]),
            "self" => (from.to_vec(), &path[1..]),
            "super" => {
                let mut base = from.to_vec();
                let mut k = 0;
                while path.get(k).is_some_and(|s| s == "super") {
                    base.pop();
                    k += 1;
                }
                (base, &path[k..])
            }
            first => {
                let mut child = from.to_vec();
                child.push(first.to_string());
                if self.files.contains_key(&child) { (from.to_vec(), path) } else { return None }
            }
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file that defines what `abs` names: the deepest module on the path, then through
    /// that module's re-exports of the next name.
    fn defining_file(&self, abs: &[String], depth: usize) -> Option<String> {
        let mut module = Vec::new();
        let mut k = 0;
        while k < abs.len() {
            let mut next = module.clone();
            next.push(abs[k].clone());
            if !self.files.contains_key(&next) {
                break;
            }
            module = next;
            k += 1;
        }
        if depth < 8
            && let Some(name) = abs.get(k)
            && let Some(target) = self.reexports.get(&module).and_then(|r| r.get(name))
            && target.as_slice() != abs
        {
            let mut target = target.clone();
            target.extend(abs[k + 1..].iter().cloned());
            return self.defining_file(&target, depth + 1);
        }
        self.files.get(&module).cloned()
    }
}

/// Each file's dependencies on other files of the library.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let modules = library_modules();
    let tree = Tree::new(&modules);
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for m in &modules {
        let entry = deps.entry(m.file.clone()).or_default();
        for (path, public) in paths_in(&m.code) {
            if public {
                continue; // a re-export is a door, not a dependency
            }
            let Some(abs) = tree.absolute(&m.path, &path) else { continue };
            if let Some(file) = tree.defining_file(&abs, 0)
                && file != m.file
            {
                entry.insert(file);
            }
        }
    }
    deps
}

/// A cycle through `start`, if any: the files in order, ending where it began.
fn cycle_from(deps: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((file, trail)) = stack.pop() {
        for next in deps.get(&file).into_iter().flatten() {
            if next == start {
                let mut cycle = trail.clone();
                cycle.push(start.to_string());
                return Some(cycle);
            }
            if seen.insert(next.clone()) {
                let mut t = trail.clone();
                t.push(next.clone());
                stack.push((next.clone(), t));
            }
        }
    }
    None
}

#[test]
fn no_two_files_of_the_library_depend_on_each_other() {
    let deps = dependencies();
    let cycles: BTreeSet<String> = deps.keys().filter_map(|f| cycle_from(&deps, f)).map(|c| c.join(" → ")).collect();
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.into_iter().collect::<Vec<_>>().join("\n"));
}

#[test]
fn the_core_depends_on_nothing_above_it() {
    let deps = dependencies();
    for (file, uses) in &deps {
        if file.starts_with("src/sim/") {
            let above: Vec<_> = uses.iter().filter(|u| !u.starts_with("src/sim/")).collect();
            assert!(above.is_empty(), "{file} uses {above:?}: the engine must stand alone");
        }
    }
}

#[test]
fn the_checker_sees_a_cycle_and_a_dependency_through_a_reexport() {
    let code = code_only(
        "use crate::sim::{Micros, params::{Config as C, self}};\n// use crate::ui;\nlet s = \"crate::x\";\nsuper::model::run();\nreading::f();",
    );
    let paths: Vec<_> = paths_in(&code).into_iter().map(|(p, _)| p.join("::")).collect();
    assert_eq!(
        paths,
        ["crate::sim::Micros", "crate::sim::params::Config", "crate::sim::params", "super::model::run", "reading::f"]
    );
    // rustfmt's trailing comma in a long group: the two names, not the module they are in.
    let grouped: Vec<_> =
        paths_in(&code_only("use super::{\n    Mode,\n    TICK,\n};")).into_iter().map(|(p, _)| p.join("::")).collect();
    assert_eq!(grouped, ["super::Mode", "super::TICK"]);
    let mut deps = BTreeMap::new();
    deps.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    deps.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycle_from(&deps, "a"), Some(vec!["a".into(), "b".into(), "a".into()]));
    let all = dependencies();
    assert!(all["src/sim/model.rs"].contains("src/sim/engine.rs"), "model.rs uses the engine through sim's re-exports");
    assert!(all["src/format.rs"].contains("src/sim/base.rs"), "format.rs reaches Value through `pub use base::Value`");
}

/// Every scenario is in small files (issue 26): spec, model, chapter, components, reading.
#[test]
fn no_scenario_file_is_longer_than_500_lines() {
    let modules = library_modules();
    let length =
        |file: &str| fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap().lines().count();
    let long: Vec<String> = modules
        .iter()
        .filter(|m| m.file.starts_with("src/scenarios/"))
        .filter(|m| length(&m.file) > 500)
        .map(|m| format!("{} ({} lines)", m.file, length(&m.file)))
        .collect();
    assert!(long.is_empty(), "split these into smaller files (spec, model, chapter, components, reading): {long:?}");
}

/// Every scenario folder has the same files in the same places (README, "Adding a simulation"),
/// found from the registry, so a ninth is checked too.
#[test]
fn every_scenario_folder_has_the_same_layout() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/scenarios");
    for spec in resilience_lab::scenarios::ALL {
        let folder = src.join(spec.id.replace('-', "_"));
        let has = |path: &str| folder.join(path).is_file();
        for file in ["mod.rs", "spec.rs", "model/mod.rs", "reading/mod.rs"] {
            assert!(has(file), "{}: no {file}", spec.id);
        }
        assert!(has("facts.rs") || has("facts/mod.rs"), "{}: no facts.rs or facts/mod.rs", spec.id);
        for flat in ["model.rs", "reading.rs"] {
            assert!(!has(flat), "{}: {flat} beside the folder the others use", spec.id);
        }
    }
}
