//! The subcommands that read a `native_functions.yaml` file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use opgen_core::catalog;
use opgen_core::native::{self, LoadError, NativeFunctions};
use opgen_core::schema::{MAX_ERRORS, Rule, more_errors, shown_errors};
use std::io::Write;

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::read;

/// The tags file to use: the one given, else `tags.yaml` beside the yaml file, else
/// PyTorch's own tags (built in).
fn tags_text(file: &Path, tags: Option<&Path>) -> Result<(String, String), String> {
    let path = match tags {
        Some(t) => Some(t.to_path_buf()),
        None => {
            let beside: PathBuf = file.with_file_name("tags.yaml");
            beside.exists().then_some(beside)
        }
    };
    match path {
        Some(p) => Ok((p.display().to_string(), read(&p)?)),
        None => Ok((
            "<built-in tags>".into(),
            native::Tags::pytorch()
                .iter()
                .map(|t| format!("- tag: {t}\n  desc: built in\n"))
                .collect(),
        )),
    }
}

fn load(
    file: &Path,
    tags: Option<&Path>,
) -> Result<Result<NativeFunctions, Vec<LoadError>>, String> {
    let text = read(file)?;
    let (tags_name, tags) = tags_text(file, tags)?;
    Ok(native::load_native_functions_with_names(
        &file.display().to_string(),
        &text,
        &tags_name,
        &tags,
    ))
}

fn print_errors(errors: &[LoadError]) -> ExitCode {
    // Bounded whatever the file: at most so many errors per line and in all.
    let (shown, more) = shown_errors(errors, |e| (e.file.as_str(), e.line));
    for e in shown {
        println!("{}", e.render());
    }
    if more > 0 {
        println!("{}\n", more_errors(more));
    }
    println!(
        "{} error{}",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    );
    ExitCode::from(1)
}

/// `opgen check FILE.yaml`.
pub fn check(file: &Path, tags: Option<&Path>) -> Result<ExitCode, String> {
    match load(file, tags)? {
        Ok(nf) => {
            println!(
                "ok: {} entries, {} generated functions, {} groups, {} view groups",
                nf.entries().len(),
                nf.generated().len(),
                nf.groups().count(),
                nf.view_groups().count()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(errors) => Ok(print_errors(&errors)),
    }
}

/// `opgen fmt FILE.yaml [--write]`: every schema that breaks only R2 gets its canonical
/// form; any other error is reported as by `check`.
pub fn fmt(file: &Path, write: bool) -> Result<ExitCode, String> {
    let text = read(file)?;
    let mut rewritten = String::with_capacity(text.len());
    let mut changed = 0;
    let mut total = 0;
    let mut other_errors = Vec::new();
    let mut hidden = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let Some((prefix, func)) = split_func_line(line) else {
            rewritten.push_str(line);
            continue;
        };
        total += 1;
        let func_text = func.trim_end_matches(['\n', '\r']);
        let ending = &func[func_text.len()..];
        let (ns, schema) = match func_text
            .find('(')
            .and_then(|p| func_text[..p].rfind("::").map(|i| (i, p)))
        {
            Some((i, _)) => func_text.split_at(i + 2),
            None => ("", func_text),
        };
        match opgen_core::schema::canonicalize(schema) {
            Ok(canonical) if canonical != schema => {
                changed += 1;
                if !write {
                    println!("{}:{}:", file.display(), n + 1);
                    println!("  - {ns}{schema}");
                    println!("  + {ns}{canonical}");
                }
                rewritten.push_str(prefix);
                rewritten.push_str(ns);
                rewritten.push_str(&canonical);
                rewritten.push_str(ending);
            }
            Ok(_) => rewritten.push_str(line),
            Err(errors) => {
                let col = prefix.chars().count() + ns.chars().count();
                let errors: Vec<_> = errors
                    .into_iter()
                    .filter(|e| e.rule != Rule::NotCanonical)
                    .collect();
                // Bounded output: so many errors per line and in all, then a count.
                let (shown, more) = shown_errors(&errors, |_| ());
                let room = MAX_ERRORS.saturating_sub(other_errors.len());
                hidden += more + shown.len().saturating_sub(room);
                for e in shown.into_iter().take(room) {
                    let c = col + schema[..e.range.start.min(schema.len())].chars().count() + 1;
                    other_errors.push(format!(
                        "{}:{}:{c}: {}",
                        file.display(),
                        n + 1,
                        e.render(schema)
                    ));
                }
                rewritten.push_str(line);
            }
        }
    }
    for e in &other_errors {
        println!("{e}");
    }
    if hidden > 0 {
        println!("{}\n", more_errors(hidden));
    }
    if write && changed > 0 {
        std::fs::write(file, rewritten)
            .map_err(|e| format!("cannot write `{}`: {e}", file.display()))?;
        println!("rewrote {changed} of {total} schemas in canonical form");
    } else if changed == 0 && other_errors.is_empty() {
        println!("all {total} schemas are canonical");
    } else if changed > 0 {
        println!(
            "{changed} of {total} schemas are not canonical; `opgen fmt --write` rewrites them"
        );
    }
    Ok(if other_errors.is_empty() && (write || changed == 0) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Splits `- func: SCHEMA` (the form every entry of PyTorch's yaml uses) into the prefix and
/// the plain-scalar value.
fn split_func_line(line: &str) -> Option<(&str, &str)> {
    let start = line.find("func: ")?;
    let head = &line[..start];
    let ok = head
        .trim_start()
        .strip_prefix('-')
        .is_some_and(|rest| rest.trim().is_empty())
        || head.trim().is_empty();
    let value = &line[start + 6..];
    (ok && !value.starts_with(['"', '\''])).then(|| line.split_at(start + 6))
}

/// `opgen json FILE.yaml`: the catalog, written one function at a time (the whole document
/// as one JSON value took about a hundred times the file's size in memory).
pub fn json(file: &Path, tags: Option<&Path>) -> Result<ExitCode, String> {
    match load(file, tags)? {
        Ok(nf) => {
            let write = || -> std::io::Result<()> {
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                serde_json::to_writer_pretty(&mut out, &Catalog(&nf))?;
                writeln!(out)?;
                out.flush()
            };
            write().map_err(|e| format!("cannot write the catalog: {e}"))?;
            Ok(ExitCode::SUCCESS)
        }
        Err(errors) => Ok(print_errors(&errors)),
    }
}

/// `catalog::native_catalog_json`'s document, serialized without building it: each
/// function's object is made, written and dropped in turn.
struct Catalog<'a>(&'a NativeFunctions);

/// The functions of a [`Catalog`], as a JSON array made one element at a time.
struct Functions<'a>(&'a NativeFunctions);

impl Serialize for Catalog<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("functions", &Functions(self.0))?;
        map.serialize_entry("groups", &catalog::native_groups_json(self.0))?;
        map.serialize_entry("view_groups", &catalog::native_view_groups_json(self.0))?;
        map.end()
    }
}

impl Serialize for Functions<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.functions().iter().map(catalog::native_function_json))
    }
}
