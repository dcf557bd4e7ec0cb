//! A kernel attached by path with one parameter too many: one error, at that parameter.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

mod ops {
    use opgen::prelude::*;
    use opgen_ui_tests::MyTensor;

    #[native_function("sum.dim(Tensor self, int dim, bool keepdim=False) -> Tensor", dispatch = "CPU")]
    pub fn sum_cpu(self_: &MyTensor, dim: i64, keepdim: bool) -> MyTensor {
        let _ = (dim, keepdim);
        self_.clone()
    }
}

#[native_function(op = ops::sum_dim, dispatch = "Meta")]
fn sum_meta(self_: &MyTensor, dim: i64, keepdim: bool, scale: f64) -> MyTensor {
    let _ = (dim, keepdim, scale);
    self_.clone()
}

fn main() {}
