//! Feeds arbitrary text to `Library::def`, as a program that defines operators from strings
//! (a plugin, a binding) does: it must define the operator or return an error, never panic
//! or abort, with a bounded message. A defined operator is found by name, its schema prints
//! back as written (with the library's namespace), and a second `def` of it is refused.
#![no_main]

#[path = "bounds.rs"]
mod bounds;

use libfuzzer_sys::fuzz_target;
use opgen_core::Dispatcher;
use opgen_core::schema::MAX_ERRORS;

fuzz_target!(|text: &str| {
    let dispatcher = Dispatcher::new();
    let Ok(lib) = dispatcher.library("fuzz") else {
        panic!("a fresh dispatcher has no namespace `fuzz`");
    };
    match lib.def(text) {
        Ok(registration) => {
            let schema = opgen_core::schema::parse_schema(text).expect("a defined schema parses");
            let name = format!("fuzz::{}", schema.name.operator_name());
            let overload = schema.name.overload.as_deref().unwrap_or("");
            let op = dispatcher
                .find(&name, overload)
                .expect("a defined operator is found by name");
            let defined = op.schema().expect("a defined operator has its schema");
            assert_eq!(defined.to_string(), text);
            assert!(lib.def(text).is_err(), "a second def of `{text}` is refused");
            drop(registration);
        }
        Err(e) => {
            let message = e.to_string();
            // The site, then at most so many rendered schema errors.
            assert!(
                message.chars().count() <= 500 + MAX_ERRORS * bounds::MAX_RENDERED_CHARS,
                "{} characters",
                message.chars().count()
            );
        }
    }
});
