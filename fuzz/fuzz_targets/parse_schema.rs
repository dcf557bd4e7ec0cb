//! Feeds arbitrary UTF-8 to `parse_schema`. A schema that parses must print back to the
//! input (R2) and parse again to the same model; every error must render, and its range must
//! lie within the input on character boundaries. Accepted schemas also go through the
//! R84–R89 checks and the layout, whose ranges must point into the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use opgen_core::schema::{layout, parse_schema};
use opgen_core::validate::check_rust_mapping;

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
                for e in check_rust_mapping(&schema, method) {
                    assert!(text.get(e.range.clone()).is_some(), "{e:?}");
                    let _ = e.render(text);
                }
            }
        }
        Err(errors) => {
            assert!(
                !errors.is_empty(),
                "a rejected schema has at least one error"
            );
            for e in &errors {
                assert!(
                    text.get(e.range.clone()).is_some(),
                    "error range {:?} is not a slice of the input: {e:?}",
                    e.range
                );
                let _ = e.render(text);
            }
        }
    }
});
