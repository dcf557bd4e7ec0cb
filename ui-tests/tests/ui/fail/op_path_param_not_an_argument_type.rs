//! A kernel attached by path with a parameter of a type no schema argument has: one error,
//! at that parameter (its registration adds none).

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
fn sum_meta(self_: &MyTensor, dim: String, keepdim: bool) -> MyTensor {
    let _ = (dim, keepdim);
    self_.clone()
}

fn main() {}
