//! No schema: it is inferred from the kernel's signature, `scale(Tensor self, float factor,
//! int[]? dims) -> Tensor`, named after the kernel without its key.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function(dispatch = "CPU", namespace = "ui")]
pub fn scale_cpu(self_: &MyTensor, factor: f64, dims: Option<&[i64]>) -> MyTensor {
    let _ = (factor, dims);
    self_.clone()
}

fn main() {
    let t = MyTensor::cpu();
    let _ = scale(&t, 2.0, Some(&[0]));
    let op = Dispatcher::global().find("ui::scale", "").unwrap();
    assert_eq!(
        op.schema().unwrap().to_string(),
        "scale(Tensor self, float factor, int[]? dims) -> Tensor"
    );
}
