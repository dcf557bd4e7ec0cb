//! A kernel taking the call's key set first, redispatching below its key.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("ident(Tensor self) -> Tensor", dispatch = "CPU")]
fn ident_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

#[native_function(op = "ident", dispatch = "AutogradCPU")]
fn ident_autograd(keys: DispatchKeySet, self_: &MyTensor) -> Result<MyTensor, Error> {
    ident::redispatch(keys.below(DispatchKey::AutogradCPU), (self_,))
}

fn main() {
    let t = MyTensor(DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU]));
    assert_eq!(ident(&t).0, t.0);
}
