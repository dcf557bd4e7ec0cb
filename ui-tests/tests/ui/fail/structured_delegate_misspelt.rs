//! A misspelt `structured_delegate`: the operator meant is named.

use opgen::prelude::*;
use opgen::structured::StructuredMeta;
use opgen_ui_tests::MyTensor;

#[native_function("relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", structured)]
fn relu_meta(meta: &mut StructuredMeta<'_, MyTensor>, self_: &MyTensor) -> Result<(), Error> {
    meta.set_output(0, &self_.sizes()?, self_.options()?)
}

#[native_function("relu(Tensor self) -> Tensor", structured_delegate = "relu.ot", tensor = "MyTensor")]
fn relu();

fn main() {}
