//! A tour of opgen's example operator library, for a new user:
//!
//! ```sh
//! cargo run -p opgen-example --example tour
//! ```
//!
//! The text comes from [`opgen_example::tour::tour`]; `example/tour.txt` is a copy of it
//! that a test keeps up to date.

fn main() -> Result<(), opgen::Error> {
    print!("{}", opgen_example::tour::tour()?);
    Ok(())
}
