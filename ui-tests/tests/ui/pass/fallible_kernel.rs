//! A kernel returning `Result`: its error reaches `try_` callers as a value.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("checked_neg(Tensor self, bool ok) -> Tensor", dispatch = "CPU")]
fn checked_neg_cpu(self_: &MyTensor, ok: bool) -> Result<MyTensor, String> {
    if ok { Ok(self_.clone()) } else { Err("refused".to_string()) }
}

fn main() {
    let t = MyTensor::cpu();
    assert!(try_checked_neg(&t, true).is_ok());
    let err = try_checked_neg(&t, false).unwrap_err();
    assert!(err.to_string().contains("refused"), "{err}");
}
