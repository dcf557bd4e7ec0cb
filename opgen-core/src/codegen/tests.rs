//! Expansion snapshots (prettyplease), error messages, and the whole corpus.

mod autograd;
mod corpus;
mod errors;
mod hygiene;
mod snapshots;

use proc_macro2::TokenStream as TokenStream2;

/// The expansion, pretty-printed; panics if it is not valid Rust.
pub(super) fn expand(args: TokenStream2, item: TokenStream2) -> String {
    let out = super::native_function(args, item);
    let file: syn::File =
        syn::parse2(out.clone()).unwrap_or_else(|e| panic!("invalid expansion: {e}\n{out}"));
    prettyplease::unparse(&file)
}

/// The error messages of a failing expansion, in order.
pub(super) fn errors(args: TokenStream2, item: TokenStream2) -> Vec<String> {
    let Err(err) = super::run(args, item) else {
        panic!("expected errors")
    };
    err.into_iter().map(|e| e.to_string()).collect()
}
