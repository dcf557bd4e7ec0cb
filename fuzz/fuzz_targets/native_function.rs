//! Feeds arbitrary text to the `#[native_function]` expansion: the first line is the
//! attribute's arguments, the rest the annotated item. Whatever the input, the expansion
//! must return tokens (the item and `compile_error!`s, or the expansion), never panic, and
//! an expansion without errors of an item that is valid Rust must be valid Rust (the
//! kernel's body is passed through unparsed, so a broken body stays the user's error).
#![no_main]

use libfuzzer_sys::fuzz_target;
use proc_macro2::TokenStream;

fuzz_target!(|text: &str| {
    let (args, item) = text.split_once('\n').unwrap_or((text, ""));
    let (Ok(args), Ok(item)) = (args.parse::<TokenStream>(), item.parse::<TokenStream>()) else {
        return;
    };
    let valid_item = syn::parse2::<syn::Item>(item.clone()).is_ok();
    let out = opgen_core::codegen::native_function(args, item);
    let printed = out.to_string();
    if valid_item && !printed.contains("compile_error") {
        assert!(
            syn::parse2::<syn::File>(out).is_ok(),
            "an expansion without errors is valid Rust: {printed}"
        );
    }
});
