//! The crate's layers, bottom up: each module may use only modules of a lower layer (or itself),
//! so the engine reads bottom-up and a layer changes without touching the ones below. Checked
//! over the source text: every `crate::<module>` outside comments. Inside a folder the same
//! holds file by file: no two files import each other, directly or round a longer circle (a
//! file's `super::<sibling>`), and no file but the tests takes its folder's names wholesale
//! (`use super::*`), so that each file says what it needs.

use std::path::Path;

/// Layers, lowest first; modules in one layer do not use each other.
const LAYERS: &[&[&str]] = &[
    &["types", "rng", "memory", "files", "interrupt", "cpu", "clock"],
    &["tables", "zobrist", "weights", "movelist"],
    &["position"],
    &["perft", "book", "syzygy"],
    &["eval"],
    &["nnue"],
    &["tt"],
    &["search"],
    &["bench", "genfens"],
    &["uci"],
    &["tools"],
    &["play"],
    &["cli", "web"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level module a source file belongs to (`src/search/picker.rs` -> `search`).
fn module_of(path: &Path, src: &Path) -> String {
    let rel = path.strip_prefix(src).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_string()
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `crate::<module>` names a line of code uses (comments and strings' contents aside from
/// code are not told apart; comments are dropped).
fn uses(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        found.push(name);
    }
    // `use crate::{a, b::c}` groups.
    if let Some(group) = code.trim_start().strip_prefix("use crate::{") {
        for item in group.split([',', '}']) {
            let name: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            // Lower case: a module (an item of a nested group, `a::{B, C}`, is not one).
            if name.starts_with(|c: char| c.is_ascii_lowercase()) {
                found.push(name);
            }
        }
    }
    // The `{` of a group is not a module name.
    found.retain(|n| !n.is_empty());
    found
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut violations = Vec::new();
    for path in &all {
        let module = module_of(path, &src);
        if module == "lib" || module == "main" {
            continue;
        }
        let Some(own) = layer(&module) else {
            violations.push(format!("{}: module '{module}' has no layer in tests/layers.rs", path.display()));
            continue;
        };
        let text = std::fs::read_to_string(path).unwrap();
        for (n, line) in text.lines().enumerate() {
            for used in uses(line) {
                if used == module || used.is_empty() {
                    continue;
                }
                match layer(&used) {
                    Some(l) if l < own => {}
                    _ => violations.push(format!("{}:{}: {module} uses {used}", path.display(), n + 1)),
                }
            }
        }
    }
    assert!(violations.is_empty(), "layering broken:\n{}", violations.join("\n"));
}

#[test]
fn the_checker_sees_uses() {
    assert_eq!(uses("use crate::search::{Limits, Worker};"), vec!["search"]);
    assert_eq!(uses("use crate::{eval, nnue::Base};"), vec!["eval", "nnue"]);
    assert_eq!(uses("    let x = crate::tt::MATE; // crate::cli"), vec!["tt"]);
    assert!(uses("//! see crate::cli").is_empty());
    assert_eq!(uses("use crate::{eval::{Score, W}, tt};"), vec!["eval", "tt"]);
    assert_eq!(uses("use crate::Position;"), vec!["Position"], "a root re-export has no layer: refused");
}

/// The sibling files of `dir` (not `mod.rs`, the folder's own face, nor the tests) that each
/// file names through `super::`, and the files that `use super::*`.
fn sibling_uses(dir: &Path) -> (Vec<(String, Vec<String>)>, Vec<String>) {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() && path.join("mod.rs").exists() {
            names.push((stem, path.join("mod.rs")));
        } else if path.extension().is_some_and(|e| e == "rs") && stem != "mod" && stem != "tests" {
            names.push((stem, path));
        }
    }
    let siblings: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
    let mut graph = Vec::new();
    let mut wholesale = Vec::new();
    for (name, path) in &names {
        let text = std::fs::read_to_string(path).unwrap();
        let mut used = Vec::new();
        // A `mod tests` at the end of a file is the tests' own: its imports are not the file's.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        for line in code.lines() {
            let line = line.split("//").next().unwrap_or("");
            if line.trim() == "use super::*;" {
                wholesale.push(path.display().to_string());
            }
            let mut rest = line;
            while let Some(i) = rest.find("super::") {
                rest = &rest[i + "super::".len()..];
                let group = rest.strip_prefix('{').unwrap_or(rest);
                for item in group.split([',', '}']) {
                    let word: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if siblings.contains(&word.as_str()) && word != *name && !used.contains(&word) {
                        used.push(word);
                    }
                    if !rest.starts_with('{') {
                        break;
                    }
                }
            }
        }
        graph.push((name.clone(), used));
    }
    (graph, wholesale)
}

/// The files of `graph` that reach themselves through the files they use.
fn on_a_circle(graph: &[(String, Vec<String>)]) -> Vec<String> {
    let uses = |n: &str| graph.iter().find(|(m, _)| m == n).map(|(_, u)| u.clone()).unwrap_or_default();
    let mut circled = Vec::new();
    for (start, _) in graph {
        let mut seen: Vec<String> = Vec::new();
        let mut todo = uses(start);
        while let Some(next) = todo.pop() {
            if next == *start {
                circled.push(start.clone());
                break;
            }
            if !seen.contains(&next) {
                todo.extend(uses(&next));
                seen.push(next);
            }
        }
    }
    circled
}

#[test]
fn no_two_files_of_a_folder_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut dirs = vec![src];
    let mut problems = Vec::new();
    while let Some(dir) = dirs.pop() {
        let (graph, wholesale) = sibling_uses(&dir);
        let circled = on_a_circle(&graph);
        if !circled.is_empty() {
            problems.push(format!("{}: a circle through {}: {graph:?}", dir.display(), circled.join(", ")));
        }
        problems.extend(wholesale.into_iter().map(|f| format!("{f}: use super::* (name what it uses)")));
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_circle_check_sees_circles() {
    let g = |edges: &[(&str, &[&str])]| -> Vec<(String, Vec<String>)> {
        edges.iter().map(|(a, b)| (a.to_string(), b.iter().map(|s| s.to_string()).collect())).collect()
    };
    assert_eq!(on_a_circle(&g(&[("a", &["b"]), ("b", &["a"])])), vec!["a", "b"]);
    assert_eq!(on_a_circle(&g(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"]), ("d", &["a"])])), vec!["a", "b", "c"]);
    assert!(on_a_circle(&g(&[("a", &["b", "c"]), ("b", &["c"]), ("c", &[])])).is_empty());
}
