//! Feeds arbitrary text to the `native_functions.yaml` loader, as `include_native_functions!`
//! and `opgen check` do with a user's file: it must load or return errors, never panic;
//! every error names a line of the input (1-based, within it) and renders (for the CLI and
//! for a compiler) within the renderers' bound; a file that loads gives functions whose
//! schemas print back and parse again. The text is also read as a `tags.yaml`.
#![no_main]

#[path = "bounds.rs"]
mod bounds;

use libfuzzer_sys::fuzz_target;
use opgen_core::native::{LoadError, load_native_functions};
use opgen_core::schema::{parse_schema, shown_errors};

/// PyTorch's tags, so that entries copied from the corpus load.
const TAGS: &str = include_str!("../../opgen-core/tests/data/tags.yaml");

fn check_errors(text: &str, errors: &[LoadError]) {
    assert!(!errors.is_empty());
    // Lines as YAML counts them: `\r\n`, a lone `\r` and `\n` each end one.
    let lines = text.replace("\r\n", "\n").matches(['\n', '\r']).count() + 1;
    for e in errors {
        assert!(e.line >= 1 && e.line <= lines + 1, "{e:?} in {lines} lines");
    }
    let (shown, _) = shown_errors(errors, |e| (e.file.as_str(), e.line));
    for e in shown {
        bounds::check_rendered(&e.render());
        bounds::check_rendered(&e.render_for_compiler());
    }
}

fuzz_target!(|text: &str| {
    match load_native_functions(text, TAGS) {
        Ok(nfs) => {
            for f in nfs.functions() {
                let printed = f.func.to_string();
                assert!(parse_schema(&printed).is_ok(), "{printed}");
            }
        }
        Err(errors) => check_errors(text, &errors),
    }
    if let Err(errors) = load_native_functions("", text) {
        check_errors(text, &errors);
    }
});
