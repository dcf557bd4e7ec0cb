//! The size of `include_native_functions!`'s expansion of the whole corpus: tokens, items
//! by kind, and lines once formatted with prettyplease (what `cargo expand` would show).
//!
//! ```text
//! cargo run --release -p opgen-core --features codegen --example include_size [OUT.rs]
//! ```
//!
//! With `OUT.rs`, the formatted expansion is written there too.

use std::collections::BTreeMap;
use std::path::Path;

use opgen_core::codegen::include_native_functions_in;
use proc_macro2::{TokenStream, TokenTree};

fn count(ts: TokenStream, n: &mut usize) {
    for t in ts {
        *n += 1;
        if let TokenTree::Group(g) = t {
            count(g.stream(), n);
        }
    }
}

fn main() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data"));
    let input: TokenStream = r#""native_functions.yaml", tensor = "MyTensor",
        registered_only = "_cudnn_rnn_backward.out, mkldnn_rnn_layer_backward.out, miopen_rnn_backward.out""#
        .parse()
        .expect("input lexes");
    let start = std::time::Instant::now();
    let out = include_native_functions_in(dir, input);
    let elapsed = start.elapsed();
    let mut tokens = 0;
    count(out.clone(), &mut tokens);
    let file: syn::File = match syn::parse2(out) {
        Ok(f) => f,
        Err(e) => panic!("the expansion does not parse: {e}"),
    };
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut methods = 0;
    for item in &file.items {
        let kind = match item {
            syn::Item::Fn(_) => "fn",
            syn::Item::Struct(_) => "struct",
            syn::Item::Impl(i) => {
                methods += i.items.len();
                "impl"
            }
            syn::Item::Static(_) => "static",
            syn::Item::Const(_) => "const",
            syn::Item::Trait(_) => "trait",
            _ => "other",
        };
        *kinds.entry(kind).or_default() += 1;
    }
    let text = prettyplease::unparse(&file);
    let lines = text.lines().count();
    let doc_lines = text
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("///") || l.starts_with("#[doc") || l.starts_with("/**")
        })
        .count();
    println!("expansion: {elapsed:?} (one run, includes reading and loading the yaml)");
    println!("tokens: {tokens}");
    println!("items: {kinds:?}; impl items (methods, Default impls): {methods}");
    println!(
        "formatted: {lines} lines, {} bytes; lines starting a doc: {doc_lines}",
        text.len()
    );
    if let Some(path) = std::env::args().nth(1) {
        std::fs::write(&path, &text).expect("writes the expansion");
    }
}
