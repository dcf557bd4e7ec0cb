//! The subcommands that read a `native_functions.yaml` file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use opgen_core::catalog;
use opgen_core::native::{self, LoadError, NativeFunctions};
use serde_json::Value;

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
    for e in errors {
        outln!("{}", e.render());
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

/// `opgen json FILE.yaml`.
pub fn json(file: &Path, tags: Option<&Path>) -> Result<ExitCode, String> {
    match load(file, tags)?.1 {
        Ok(nf) => {
            let doc = catalog_json(&nf);
            let mut text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
            text.push('\n');
            out::all(&text);
            Ok(ExitCode::SUCCESS)
        }
        Err(errors) => Ok(print_errors(&errors)),
    }
}

/// The whole catalog of a loaded file (the same code and format as the runtime catalog,
/// `Dispatcher::catalog_json`).
pub fn catalog_json(nf: &NativeFunctions) -> Value {
    catalog::native_catalog_json(nf)
}
