//! The schema benchmarks of `benches/schema.rs` as a plain loop, for counting instructions
//! with callgrind (criterion's own work would swamp the counts) and for quick timings:
//!
//! ```text
//! cargo build --release --example schema_callgrind
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/schema_callgrind parse 10
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/schema_callgrind parse 20
//! target/release/examples/schema_callgrind parse 300
//! ```
//!
//! Instructions per schema = (total of the second run - total of the first) / (10 × 2,590),
//! which cancels start-up. Modes: `parse` (`parse_schema` on each of the 2,590 corpus
//! schemas, as `schema/parse_all`) and `load` (`load_native_functions` on the whole yaml, as
//! `native/load_all`). Each run also prints the time per schema or per load.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use opgen_core::native::load_native_functions;
use opgen_core::schema::parse_schema;

const YAML: &str = include_str!("../tests/data/native_functions.yaml");
const TAGS: &str = include_str!("../tests/data/tags.yaml");

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, count) = match args.as_slice() {
        [mode, count] => match count.parse::<usize>() {
            Ok(n) => (mode.as_str(), n),
            Err(_) => return usage(),
        },
        _ => return usage(),
    };
    match mode {
        "parse" => {
            let schemas: Vec<&str> = YAML
                .lines()
                .filter_map(|line| line.strip_prefix("- func: "))
                .collect();
            let start = Instant::now();
            let mut accepted = 0;
            for _ in 0..count {
                for s in &schemas {
                    accepted += usize::from(black_box(parse_schema(black_box(s))).is_ok());
                }
            }
            let per = start.elapsed().as_secs_f64() * 1e6 / (count * schemas.len()).max(1) as f64;
            eprintln!("{per:.3} µs per schema ({accepted} accepted)");
        }
        "load" => {
            let start = Instant::now();
            for _ in 0..count {
                if black_box(load_native_functions(black_box(YAML), TAGS)).is_err() {
                    eprintln!("the corpus does not load");
                    return ExitCode::FAILURE;
                }
            }
            let per = start.elapsed().as_secs_f64() * 1e3 / count.max(1) as f64;
            eprintln!("{per:.3} ms per load");
        }
        _ => return usage(),
    }
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("usage: schema_callgrind parse|load COUNT");
    ExitCode::FAILURE
}
