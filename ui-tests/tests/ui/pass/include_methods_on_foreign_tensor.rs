//! The fix of `fail/include_method_on_foreign_tensor.rs`: the methods of the operators
//! declared for a tensor type of another crate go in an extension trait, which callers
//! import.

mod aten {
    use opgen_ui_tests::MyTensor;
    opgen::include_native_functions!(
        "../../../tmp/opgen-ui/std_names.yaml",
        tensor = "MyTensor",
        methods = "trait MyTensorMethods"
    );
}

use aten::MyTensorMethods;
use opgen_ui_tests::MyTensor;

fn main() {
    let t = MyTensor::cpu();
    // No kernel is registered: the call reports the missing kernel as an error value.
    let err = t.try_max().expect_err("no kernel");
    assert!(err.to_string().contains("aten::max"), "{err}");
    let _: fn(&MyTensor, &MyTensor) -> MyTensor = <MyTensor as MyTensorMethods>::eq_op;
}
