//! A view operator with several returns, each a view of `self` (PyTorch's multi-output
//! views): its Autograd kernel records each output as a view, replayed by calling the
//! operator and taking the output at its place.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function(
    "halves(Tensor(a) self) -> (Tensor(a) first, Tensor(a) second)",
    dispatch = "CPU",
    derivatives(self = "rust: grads[0].clone()")
)]
fn halves_cpu(self_: &MyTensor) -> (MyTensor, MyTensor) {
    (self_.clone(), self_.clone())
}

fn main() {
    let op = Dispatcher::global().find("aten::halves", "").expect("declared");
    assert!(op.keys_with_kernels().contains(&DispatchKey::Autograd));
}
