//! A tensor type that does not implement `Tensor`: reported at the user's type first, in
//! opgen's words, with the fix. (The generated items that use the type fail too: rustc
//! reports each unmet bound; see the note in docs/MACROS.md.)

use opgen::prelude::*;

#[derive(Clone)]
pub struct NotTensor;

#[native_function("relu(Tensor self) -> Tensor", dispatch = "CPU")]
fn relu_cpu(self_: &NotTensor) -> NotTensor {
    self_.clone()
}

fn main() {}
