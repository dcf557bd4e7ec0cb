//! All of ATen from PyTorch's `native_functions.yaml`, declared in one macro call, over a
//! small CPU tensor type; kernels for a handful of operators attach by name.

use std::sync::Arc;

use opgen::prelude::*;

/// A one-dimensional CPU tensor of `f64` values.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuTensor(pub Arc<Vec<f64>>);

impl CpuTensor {
    /// A tensor holding `data`.
    pub fn new(data: &[f64]) -> CpuTensor {
        CpuTensor(Arc::new(data.to_vec()))
    }

    /// The values.
    pub fn data(&self) -> &[f64] {
        &self.0
    }
}

impl Tensor for CpuTensor {
    fn key_set(&self) -> DispatchKeySet {
        DispatchKey::CPU.into()
    }
}

/// Every operator of the corpus: free functions, methods on [`CpuTensor`], redispatch
/// functions, and their schemas registered with the global dispatcher.
pub mod aten {
    use super::CpuTensor;

    opgen::include_native_functions!(
        "../../opgen-core/tests/data/native_functions.yaml",
        tensor = "CpuTensor",
        // More arguments than typed calls take: callable by name only.
        registered_only =
            "_cudnn_rnn_backward.out, mkldnn_rnn_layer_backward.out, miopen_rnn_backward.out",
    );
}

/// Kernels of a few included operators, registered by name.
pub mod kernels;
