//! The dispatcher's place in the crate (docs/ARCHITECTURE.md): its code names its own
//! module and the std-only layers below it (`schema`, `plan`), never a module built on it
//! (`native`, `structured`, `__private`, `cross`, `codegen`, ...). What those modules add at
//! run time reaches the dispatcher through hooks wired at the crate root (`POST_LINK`,
//! `derive_kernel`). The dispatcher's tests are not its code: they may exercise the whole
//! crate, as generated code does.

use std::path::{Path, PathBuf};

/// The crate-root names the dispatcher's code may use.
const ALLOWED: &[&str] = &[
    "dispatch",
    "schema",
    "plan",
    // The hooks that modules above the dispatcher provide, wired at the crate root.
    "POST_LINK",
    "derive_kernel",
    // The one exception: the tensor trait's `autograd_meta` and `Error::Autograd` name the
    // autograd state of a tensor that opts in (as c10's `TensorImpl` holds its autograd
    // meta), so that a tensor type implements one trait.
    "autograd",
];

/// The crate-root names that `text` (the source of a module `depth` levels below the crate
/// root) uses through `crate::` or through as many `super::` as reach the root, comments
/// left out.
fn root_names(text: &str, depth: usize) -> Vec<String> {
    let code: String = (text.lines())
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut names = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find(['c', 's']) {
        let start = at + found;
        at = start + 1;
        if code[..start].ends_with(|c: char| is_ident(c) || c == '$') {
            continue;
        }
        let rest = &code[start..];
        let after_root = if let Some(after) = rest.strip_prefix("crate::") {
            after
        } else {
            let mut after = rest;
            let mut supers = 0;
            while let Some(next) = after.strip_prefix("super::") {
                after = next;
                supers += 1;
            }
            if supers == 0 || supers < depth {
                continue;
            }
            after
        };
        names.extend(first_segments(after_root));
    }
    names
}

/// The first segment of a path (`structured` of `structured::Foo`), or of every path of a
/// group (`{dispatch::A, native::B}`).
fn first_segments(path: &str) -> Vec<String> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let path = path.trim_start();
    let Some(group) = path.strip_prefix('{') else {
        let name: String = path
            .chars()
            .take_while(|&c| is_ident(c) || c == '*')
            .collect();
        return vec![name];
    };
    // The top-level items of the group.
    let mut items = Vec::new();
    let (mut depth, mut item) = (0usize, String::new());
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => items.push(std::mem::take(&mut item)),
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    (items.iter())
        .map(|i| i.trim_start_matches(',').trim())
        .filter(|i| !i.is_empty())
        .flat_map(first_segments)
        .collect()
}

/// The dispatcher's source files (not its tests), each with its module depth below the
/// crate root (`dispatch/mod.rs` 1, `dispatch/kernel.rs` 2, `dispatch/registry/entry.rs` 3).
fn dispatch_sources() -> Vec<(PathBuf, usize)> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<(PathBuf, usize)>) {
        let mut entries: Vec<PathBuf> = (std::fs::read_dir(dir).expect("lists a source folder"))
            .map(|e| e.expect("reads a folder entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if path.is_dir() {
                if name != "tests" {
                    walk(&path, depth + 1, out);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" {
                let file_depth = if name == "mod.rs" { depth } else { depth + 1 };
                out.push((path, file_depth));
            }
        }
    }
    let dispatch = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/dispatch");
    let mut out = Vec::new();
    walk(&dispatch, 1, &mut out);
    out
}

#[test]
fn the_dispatcher_names_no_module_built_on_it() {
    let sources = dispatch_sources();
    assert!(
        sources.len() > 20,
        "found only {} files of src/dispatch",
        sources.len()
    );
    let mut wrong = Vec::new();
    for (path, depth) in &sources {
        let text = std::fs::read_to_string(path).expect("reads a source file");
        for name in root_names(&text, *depth) {
            if !ALLOWED.contains(&name.as_str()) {
                wrong.push(format!("{}: crate::{name}", path.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the dispatcher names modules above it:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_way_of_naming_a_module_is_seen() {
    let names = |text: &str, depth: usize| root_names(text, depth);
    assert_eq!(
        names("use crate::structured::derive_kernel;", 2),
        ["structured"]
    );
    assert_eq!(
        names(
            "use crate::{dispatch::{A, B}, native::Kernel, __private};",
            2
        ),
        ["dispatch", "native", "__private"]
    );
    assert_eq!(
        names("let k = super::super::__private::call::<O>(x);", 2),
        ["__private"]
    );
    assert_eq!(
        names("use super::super::structured;", 3),
        Vec::<String>::new()
    );
    assert_eq!(
        names("use super::super::super::structured;", 3),
        ["structured"]
    );
    assert_eq!(
        names("    derive: Some(crate::cross::x), // crate::native", 1),
        ["cross"]
    );
    assert_eq!(
        names("/// see [`crate::structured`]\nuse crate::*;", 2),
        ["*"]
    );
    assert_eq!(
        names("$crate::x; my_crate::y; supersuper::z", 2),
        Vec::<String>::new()
    );
}
