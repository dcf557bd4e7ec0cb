//! The subcommands that read a `native_functions.yaml` file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use opgen_core::catalog;
use opgen_core::native::{self, LoadError, NativeFunctions};
use opgen_core::schema::{more_errors, shown_errors};
use std::io::Write;

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::read;
use crate::out::{self, outln};

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

/// The file's text and what loading it gave.
type Loaded = (String, Result<NativeFunctions, Vec<LoadError>>);

pub(crate) fn load(file: &Path, tags: Option<&Path>) -> Result<Loaded, String> {
    let text = read(file)?;
    let (tags_name, tags) = tags_text(file, tags)?;
    let loaded = native::load_native_functions_with_names(
        &file.display().to_string(),
        &text,
        &tags_name,
        &tags,
    );
    Ok((text, loaded))
}

pub(crate) fn print_errors(errors: &[LoadError]) -> ExitCode {
    // Bounded whatever the file: at most so many errors per line and in all.
    let (shown, more) = shown_errors(errors, |e| (e.file.as_str(), e.line));
    for e in shown {
        outln!("{}", e.render());
    }
    if more > 0 {
        outln!("{}\n", more_errors(more));
    }
    outln!(
        "{} error{}",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    );
    ExitCode::from(1)
}

/// `opgen check FILE.yaml`: loading (the YAML, R1–R83), then R84–R89 on every
/// function, so that every function of a file that passes has a Rust API.
pub fn check(file: &Path, tags: Option<&Path>) -> Result<ExitCode, String> {
    let (text, loaded) = load(file, tags)?;
    match loaded {
        Ok(nf) => {
            let errors = native::check_rust_api(&nf, &file.display().to_string(), &text);
            if !errors.is_empty() {
                return Ok(print_errors(&errors));
            }
            outln!(
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

/// `opgen json FILE.yaml`: the catalog, written one function at a time (the whole document
/// as one JSON value took about a hundred times the file's size in memory).
pub fn json(file: &Path, tags: Option<&Path>) -> Result<ExitCode, String> {
    match load(file, tags)?.1 {
        Ok(nf) => {
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            out::write_or_exit(
                serde_json::to_writer_pretty(&mut stdout, &Catalog(&nf))
                    .map_err(std::io::Error::from)
                    .and_then(|()| writeln!(stdout))
                    .and_then(|()| stdout.flush()),
            );
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
