//! `opgen`: check, format and dump PyTorch operator schemas and `native_functions.yaml` files.
#![deny(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod yaml;

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
        #[arg(required_unless_present = "schema")]
        file: Option<PathBuf>,
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
        /// Rewrite the file in place.
        #[arg(long)]
        write: bool,
    },
    /// Print every function (written and generated) and the groups as one JSON document.
    Json {
        /// The native_functions.yaml file.
        file: PathBuf,
        /// The tags.yaml file (default: tags.yaml next to FILE, if present).
        #[arg(long)]
        tags: Option<PathBuf>,
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
            file: Some(file),
            tags,
            ..
        } => yaml::check(&file, tags.as_deref()),
        Command::Check { .. } => Err("give a FILE or --schema".to_string()),
        Command::Fmt { file, write } => yaml::fmt(&file, write),
        Command::Json { file, tags } => yaml::json(&file, tags.as_deref()),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
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
                println!("ok: {}", parsed.name);
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
    for e in errors {
        let col = schema[..e.range.start.min(schema.len())].chars().count() + 1;
        println!("<schema>:1:{col}: {}", e.render(schema));
    }
}

/// Reads a file, naming it in the error.
fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))
}
