//! Expansions of operators with derivative formulas.

use quote::quote;

use super::expand;

#[test]
fn dump_mul() {
    let out = expand(
        quote!(
            "mul.Tensor(Tensor self, Tensor other) -> Tensor",
            dispatch = "CPU",
            derivatives(
                self = "mul_tensor_backward(grad, other, self.scalar_type())",
                other = "mul_tensor_backward(grad, self, other.scalar_type())",
                result = "other_t * self_p + self_t * other_p",
            )
        ),
        quote!(
            fn mul_cpu(a: &MyTensor, b: &MyTensor) -> MyTensor {
                a.clone()
            }
        ),
    );
    std::fs::write("/tmp/ag/mul.rs", &out).unwrap();
}
