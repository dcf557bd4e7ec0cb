//! `opgen`: check, format and dump PyTorch operator schemas and `native_functions.yaml` files,
//! and explain the rules they are checked against.
#![deny(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod derivatives;
mod explain;
mod fmt;
mod out;
mod yaml;

use out::outln;

/// Check, format and dump PyTorch operator schemas and native_functions.yaml files.
#[derive(Parser)]
#[command(name = "opgen", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a yaml file (or one schema) against every rule; exit 1 on any error.
    Check {
        /// The native_functions.yaml file.
        #[arg(required_unless_present_any = ["schema", "derivatives"])]
        file: Option<PathBuf>,
        /// Check this derivatives.yaml against FILE (default: native_functions.yaml beside it).
        #[arg(long, conflicts_with = "schema")]
        derivatives: Option<PathBuf>,
        /// Check this schema string instead of a file.
        #[arg(long, conflicts_with = "file")]
        schema: Option<String>,
        /// The tags.yaml file (default: tags.yaml next to FILE, if present).
        #[arg(long)]
        tags: Option<PathBuf>,
    },
    /// Print the canonical form of every schema that is not canonical, or confirm that all are.
    Fmt {
        /// The native_functions.yaml file.
        file: PathBuf,
        /// Rewrite the schemas in place (nothing else in the file changes).
        #[arg(long)]
        write: bool,
    },
    /// Print every function (written and generated) and the groups as one JSON document.
    Json {
        /// The native_functions.yaml file.
        #[arg(required_unless_present = "derivatives")]
        file: Option<PathBuf>,
        /// Print the differentiability catalog of this derivatives.yaml instead (see
        /// docs/AUTOGRAD.md), against FILE (default: native_functions.yaml beside it).
        #[arg(long)]
        derivatives: Option<PathBuf>,
        /// The tags.yaml file (default: tags.yaml next to FILE, if present).
        #[arg(long)]
        tags: Option<PathBuf>,
    },
    /// Explain a rule (`opgen explain R16`): what it means, an example that breaks it, the fix.
    /// Without a rule, list every rule.
    Explain {
        /// The rule id, such as `R16` (or `16`).
        rule: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check {
            schema: Some(schema),
            ..
        } => Ok(check_schema(&schema)),
        Command::Check {
            derivatives: Some(d),
            file,
            tags,
            ..
        } => derivatives::check(&d, file.as_deref(), tags.as_deref()),
        Command::Check {
            file: Some(file),
            tags,
            ..
        } => yaml::check(&file, tags.as_deref()),
        Command::Check { .. } => Err("give a FILE or --schema".to_string()),
        Command::Fmt { file, write } => fmt::fmt(&file, write),
        Command::Json {
            derivatives: Some(d),
            file,
            tags,
        } => derivatives::json(&d, file.as_deref(), tags.as_deref()),
        Command::Json {
            file: Some(file),
            tags,
            ..
        } => yaml::json(&file, tags.as_deref()),
        Command::Json { .. } => Err("give a FILE or --derivatives".to_string()),
        Command::Explain { rule } => explain::explain(rule.as_deref()),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            out::error(format_args!("{message}"));
            ExitCode::from(2)
        }
    }
}

/// `opgen check --schema`: errors as `<schema>:1:COL: error[RULE]: message`.
fn check_schema(schema: &str) -> ExitCode {
    match opgen_core::schema::parse_schema(schema) {
        Ok(parsed) => {
            let rust = opgen_core::validate::check_rust_mapping(&parsed, false);
            if rust.is_empty() {
                outln!("ok: {}", parsed.name);
                return ExitCode::SUCCESS;
            }
            print_schema_errors(schema, &rust);
            ExitCode::from(1)
        }
        Err(errors) => {
            print_schema_errors(schema, &errors);
            ExitCode::from(1)
        }
    }
}

fn print_schema_errors(schema: &str, errors: &[opgen_core::schema::SchemaError]) {
    // A schema is one line: at most so many of its errors are shown (schema::shown_errors).
    let (shown, more) = opgen_core::schema::shown_errors(errors, |_| ());
    for e in shown {
        let col = schema[..e.range.start.min(schema.len())].chars().count() + 1;
        outln!("<schema>:1:{col}: {}", e.render(schema));
    }
    if more > 0 {
        println!("{}\n", opgen_core::schema::more_errors(more));
    }
}

/// Reads a yaml file as `include_native_functions!` does (a regular file, at most
/// `native::MAX_FILE_SIZE` bytes of UTF-8), naming it (and where it is not UTF-8, the
/// position) in the error.
fn read(path: &Path) -> Result<String, String> {
    opgen_core::native::read_yaml_file(path).map_err(|e| format!("{}: {}", e.location(), e.message))
}
