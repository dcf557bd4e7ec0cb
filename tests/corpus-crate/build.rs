//! With the feature `translated-formulas`: writes `$OUT_DIR/formulas.rs`, PyTorch's
//! backward formulas (`derivatives.yaml`) translated into Rust calls of this crate's API
//! (`opgen_core::formula::translate::emit_module_for`), one function per formula, calling
//! the operators by the names `include_native_functions!` gives them in `src/lib.rs`
//! (`opgen_core::codegen::included_names`), for `examples/formulas.rs` to type-check.
//! Without the feature: nothing.

use std::path::Path;

use opgen_core::codegen::included_names;
use opgen_core::formula::translate::{ApiIndex, Options, emit_module_for};
use opgen_core::native::derivatives::load_derivatives;
use opgen_core::native::load_native_functions_from_paths;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_TRANSLATED_FORMULAS").is_none() {
        return;
    }
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../opgen-core/tests/data");
    let natives = load_native_functions_from_paths(
        &data.join("native_functions.yaml"),
        &data.join("tags.yaml"),
    )
    .unwrap_or_else(|e| panic!("the corpus does not load: {e:?}"));
    let path = data.join("derivatives.yaml");
    println!("cargo::rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).expect("derivatives.yaml");
    let d = load_derivatives("derivatives.yaml", &text, &natives)
        .unwrap_or_else(|e| panic!("derivatives.yaml does not load: {e:?}"));
    let options = Options {
        runtime: "::opgen".into(),
        api_path: String::new(),
        tensor: "CpuTensor".into(),
    };
    let api = ApiIndex::with_names(&natives, &included_names(&natives, &options.tensor));
    let module = emit_module_for(&d, &api, &options);
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("formulas.rs");
    std::fs::write(&out, module).expect("writes formulas.rs");
}
