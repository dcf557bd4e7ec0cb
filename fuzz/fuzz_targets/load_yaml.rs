//! Feeds arbitrary text to the `native_functions.yaml` loader, as `include_native_functions!`
//! and `opgen check` do with a user's file: it must load or return errors, never panic;
//! every error names a line of the input (1-based, within it) and renders; a file that loads
//! gives functions whose schemas print back and parse again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use opgen_core::native::load_native_functions;
use opgen_core::schema::parse_schema;

/// PyTorch's tags, so that entries copied from the corpus load.
const TAGS: &str = include_str!("../../opgen-core/tests/data/tags.yaml");

fuzz_target!(|text: &str| {
    match load_native_functions(text, TAGS) {
        Ok(nfs) => {
            for f in nfs.functions() {
                let printed = f.func.to_string();
                assert!(parse_schema(&printed).is_ok(), "{printed}");
            }
        }
        Err(errors) => {
            assert!(!errors.is_empty());
            // Lines as YAML counts them: a lone `\r` ends one too.
            let lines = text.replace("\r\n", "\n").matches(['\n', '\r']).count() + 1;
            for e in &errors {
                assert!(e.line >= 1 && e.line <= lines + 1, "{e:?} in {lines} lines");
                let _ = e.render();
            }
        }
    }
});
