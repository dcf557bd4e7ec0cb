//! Inherent methods on a tensor type written with the path of another crate, in a block.

use opgen::prelude::*;

fn main() {
    #[native_function("neg(Tensor self) -> Tensor", variants = "function, method")]
    fn neg_kernel(self_: &opgen_ui_tests::MyTensor) -> opgen_ui_tests::MyTensor {
        self_.clone()
    }
}
