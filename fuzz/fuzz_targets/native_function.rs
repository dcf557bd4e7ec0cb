//! Feeds arbitrary text to the `#[native_function]` expansion: the first line is the
//! attribute's arguments, the rest the annotated item. Whatever the input, the expansion
//! must return tokens (the item and `compile_error!`s, or the expansion), never panic, and
//! an expansion without errors of an item that is valid Rust must be valid Rust (the
//! kernel's body is passed through unparsed, so a broken body stays the user's error).
//! The errors are bounded: at most `MAX_ERRORS` of them (and one counting the rest), each
//! within the renderers' bound.
#![no_main]

#[path = "bounds.rs"]
mod bounds;

use libfuzzer_sys::fuzz_target;
use opgen_core::schema::MAX_ERRORS;
use proc_macro2::TokenStream;

fuzz_target!(|text: &str| {
    let (args, item) = text.split_once('\n').unwrap_or((text, ""));
    let (Ok(args), Ok(item)) = (args.parse::<TokenStream>(), item.parse::<TokenStream>()) else {
        return;
    };
    let valid_item = syn::parse2::<syn::Item>(item.clone()).is_ok();
    let item_len = item.to_string().len();
    let out = opgen_core::codegen::native_function(args, item);
    let printed = out.to_string();
    let errors = printed.matches("compile_error").count();
    if errors == 0 {
        if valid_item {
            assert!(
                syn::parse2::<syn::File>(out).is_ok(),
                "an expansion without errors is valid Rust: {printed}"
            );
        }
        return;
    }
    assert!(errors <= MAX_ERRORS + 1, "{errors} compile errors");
    assert!(
        printed.len() <= item_len + bounds::MAX_COMPILE_ERRORS_CHARS,
        "{} bytes of errors",
        printed.len() - item_len
    );
});
