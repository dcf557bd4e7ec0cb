//! `derivatives(functional)`: in-place and out operators take their functional operator's
//! formulas (torchgen's rule), by the marker the rule names or by a path.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

mod ops {
    use opgen::prelude::*;
    use opgen_ui_tests::MyTensor;

    #[native_function(
        "mul.Tensor(Tensor self, Tensor other) -> Tensor",
        dispatch = "CPU",
        derivatives(self = "grad * other", other = "grad * self")
    )]
    pub fn mul_cpu(self_: &MyTensor, _other: &MyTensor) -> MyTensor {
        self_.clone()
    }

    #[native_function(
        "mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
        dispatch = "CPU",
        derivatives(functional)
    )]
    pub fn mul_inplace_cpu(_self: &mut MyTensor, _other: &MyTensor) {}
}

// Another module: the functional operator by path.
#[native_function(
    "mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU",
    derivatives(functional = ops::mul)
)]
fn mul_out_cpu(_self: &MyTensor, _other: &MyTensor, _out: &mut MyTensor) {}

fn main() {
    let dispatcher = Dispatcher::global();
    for (name, overload) in [("mul", "Tensor"), ("mul_", "Tensor"), ("mul", "out")] {
        let op = dispatcher.find(&format!("aten::{name}"), overload).expect("declared");
        assert!(op.keys_with_kernels().contains(&DispatchKey::Autograd), "{name}.{overload}");
    }
}
