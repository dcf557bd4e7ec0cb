//! `include_native_functions!` with `derivatives = "..."`: every declared operator an entry
//! of the file serves gets its Autograd kernel and backward node, PyTorch's formulas
//! translated into calls of the operators declared here (in-place and out variants through
//! their functional operator's entry; views record their base; a list of views; a formula of
//! `grads`; a non-differentiable input; a formula with `Scalar` arguments).

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

opgen::include_native_functions!(
    "../../../tmp/opgen-ui/autograd.yaml",
    tensor = "MyTensor",
    methods = "trait Ops",
    derivatives = "../../../tmp/opgen-ui/autograd_derivatives.yaml"
);

fn main() {
    let dispatcher = Dispatcher::global();
    for (name, overload) in [("mul", "Tensor"), ("mul_", "Tensor"), ("mul", "out"), ("exp_", ""), ("unbind", "int")] {
        let op = dispatcher.find(&format!("aten::{name}"), overload).expect("declared");
        assert!(op.keys_with_kernels().contains(&DispatchKey::Autograd), "{name}.{overload}");
    }
}
