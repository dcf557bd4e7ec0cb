//! The tensor type the compile-fail cases share (`tests/ui/fail`); the compile-pass cases
//! (`tests/ui/pass`) define their own, so that they can add inherent methods to it.

use opgen::dispatch::{DispatchKey, DispatchKeySet, Tensor};

/// A tensor that is only its dispatch keys.
#[derive(Clone, Debug)]
pub struct MyTensor(pub DispatchKeySet);

impl Tensor for MyTensor {
    fn key_set(&self) -> DispatchKeySet {
        self.0
    }
}

impl MyTensor {
    /// A CPU tensor.
    pub fn cpu() -> MyTensor {
        MyTensor(DispatchKey::CPU.into())
    }
}
