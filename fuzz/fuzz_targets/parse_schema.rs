//! Feeds arbitrary UTF-8 to `parse_schema`. A schema that parses must print back to the
//! input (R2) and parse again to the same model; every error must render (for the CLI and
//! for a compiler, and as `Display`) within the renderers' bound, and its range must lie
//! within the input on character boundaries; a renderer showing every error stays bounded.
//! Accepted schemas also go through the R84–R89 checks and the layout, whose ranges must
//! point into the text.
#![no_main]

#[path = "bounds.rs"]
mod bounds;

use libfuzzer_sys::fuzz_target;
use opgen_core::schema::{SchemaError, layout, parse_schema, shown_errors};
use opgen_core::validate::check_rust_mapping;

fn check_errors(text: &str, errors: &[SchemaError]) {
    for e in errors {
        assert!(
            text.get(e.range.clone()).is_some(),
            "error range {:?} is not a slice of the input: {e:?}",
            e.range
        );
    }
    // Rendering is bounded per error, and a renderer shows a bounded number of them: only
    // those are rendered (rendering all of thousands would be quadratic in the input).
    let (shown, _) = shown_errors(errors, |_| ());
    for e in shown {
        bounds::check_rendered(&e.render(text));
        bounds::check_rendered(&e.render_for_compiler(text));
        bounds::check_rendered(&e.to_string());
    }
}

fuzz_target!(|text: &str| {
    match parse_schema(text) {
        Ok(schema) => {
            let printed = schema.to_string();
            assert_eq!(printed, text, "an accepted schema prints back as written");
            assert_eq!(parse_schema(&printed).as_ref(), Ok(&schema));
            let at = layout(&schema);
            for (arg, place) in schema.arguments.iter().zip(&at.arguments) {
                assert_eq!(&text[place.whole.clone()], arg.to_string());
                assert_eq!(&text[place.name.clone()], arg.name);
            }
            for (ret, place) in schema.returns.iter().zip(&at.returns) {
                assert_eq!(&text[place.whole.clone()], ret.to_string());
            }
            for method in [false, true] {
                check_errors(text, &check_rust_mapping(&schema, method));
            }
        }
        Err(errors) => {
            assert!(
                !errors.is_empty(),
                "a rejected schema has at least one error"
            );
            check_errors(text, &errors);
        }
    }
});
