//! `include_native_functions!` with inherent methods (the default) on a tensor type of
//! another crate: one error, at `tensor`, naming the operators with methods and the fix
//! (`methods = "trait NAME"`), by the attribute's rule (`method_on_foreign_tensor`).

mod aten {
    #[allow(unused_imports)] // the macro fails before it uses the type
    use opgen_ui_tests::MyTensor;
    opgen::include_native_functions!(
        "../../../tmp/opgen-ui/std_names.yaml",
        tensor = "MyTensor"
    );
}

fn main() {}
