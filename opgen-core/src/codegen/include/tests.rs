//! The include macro on the corpus and on small files.

use std::path::Path;

use quote::quote;

use super::include_native_functions_in;

fn data() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data"))
}

#[test]
fn the_whole_corpus_expands() {
    let out =
        include_native_functions_in(data(), quote!("native_functions.yaml", tensor = "MyTensor"));
    let text = out.to_string();
    assert!(
        !text.contains("compile_error"),
        "{}",
        &text[..text.len().min(3000)]
    );
    let file: syn::File = syn::parse2(out).expect("the expansion parses as items");
    eprintln!("{} items", file.items.len());
}
