//! `#[native_function]` beside `include_native_functions!` in one module, declaring one of
//! its operators (`max`) or named as one (`name = "ne"`): one error, at the yaml path,
//! naming the kernels, with the fixes; the attributes' own items stand.

mod aten {
    use opgen::prelude::*;
    use opgen_ui_tests::MyTensor;

    opgen::include_native_functions!(
        "../../../tmp/opgen-ui/std_names.yaml",
        tensor = "MyTensor",
        methods = "trait AtenOps"
    );

    #[native_function("max(Tensor self) -> Tensor", dispatch = "CPU")]
    fn max_cpu(self_: &MyTensor) -> MyTensor {
        self_.clone()
    }

    #[native_function("not_equal(Tensor self) -> Tensor", dispatch = "CPU", name = "ne")]
    fn not_equal_cpu(self_: &MyTensor) -> MyTensor {
        self_.clone()
    }
}

fn main() {}
