//! `include_native_functions!` beside items named as what it generates (the function `eq`,
//! the arguments struct `CloneArgs`, the methods trait): one error, at the yaml path, naming
//! them and the operators to skip.

mod aten {
    #![allow(dead_code, unused_imports)] // the macro fails before it uses them
    use opgen_ui_tests::MyTensor;

    fn eq() {}
    struct CloneArgs {}
    trait AtenOps {}

    opgen::include_native_functions!(
        "../../../tmp/opgen-ui/std_names.yaml",
        tensor = "MyTensor",
        methods = "trait AtenOps"
    );
}

fn main() {}
