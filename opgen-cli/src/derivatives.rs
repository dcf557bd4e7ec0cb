//! `opgen check --derivatives` and `opgen json --derivatives`: a `derivatives.yaml` file
//! checked against the `native_functions.yaml` it names.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use opgen_core::native::NativeFunctions;
use opgen_core::native::derivatives::{self, Derivatives};

use super::read;

/// The native functions: FILE if given, else `native_functions.yaml` beside the derivatives.
fn natives_path(derivatives: &Path, file: Option<&Path>) -> PathBuf {
    file.map_or_else(
        || derivatives.with_file_name("native_functions.yaml"),
        Path::to_path_buf,
    )
}

/// Loads both files; `Ok(Err(code))` when either has errors (already printed).
fn load(
    derivatives: &Path,
    file: Option<&Path>,
    tags: Option<&Path>,
) -> Result<Result<(Derivatives, NativeFunctions), ExitCode>, String> {
    let natives_path = natives_path(derivatives, file);
    let natives = match super::yaml::load(&natives_path, tags)?.1 {
        Ok(n) => n,
        Err(errors) => return Ok(Err(super::yaml::print_errors(&errors))),
    };
    let text = read(derivatives)?;
    match derivatives::load_derivatives(&derivatives.display().to_string(), &text, &natives) {
        Ok(d) => Ok(Ok((d, natives))),
        Err(errors) => {
            for e in &errors {
                println!("{}", e.render());
            }
            let s = if errors.len() == 1 { "" } else { "s" };
            println!("{} error{s}", errors.len());
            Ok(Err(ExitCode::from(1)))
        }
    }
}

/// `opgen check --derivatives DERIVATIVES [FILE]`.
pub fn check(
    derivatives: &Path,
    file: Option<&Path>,
    tags: Option<&Path>,
) -> Result<ExitCode, String> {
    let (d, natives) = match load(derivatives, file, tags)? {
        Ok(loaded) => loaded,
        Err(code) => return Ok(code),
    };
    let nodes = (d.entries.iter())
        .flat_map(|e| &e.infos)
        .filter(|(_, i)| i.op.is_some())
        .count();
    let served = derivatives::match_functions(&d, &natives).len();
    println!(
        "ok: {} entries, {nodes} backward nodes, {served} native functions with formulas",
        d.entries.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `opgen json --derivatives DERIVATIVES [FILE]`: the differentiability catalog.
pub fn json(
    derivatives: &Path,
    file: Option<&Path>,
    tags: Option<&Path>,
) -> Result<ExitCode, String> {
    let (d, natives) = match load(derivatives, file, tags)? {
        Ok(loaded) => loaded,
        Err(code) => return Ok(code),
    };
    let json = derivatives::catalog_json(&d, &natives);
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
