//! Every operator of an opgen dispatcher callable from Python, with PyTorch's argument
//! rules: one call, [`bind`], fills a PyO3 module with
//!
//! * a function per operator name with the `function` variant, in submodules by
//!   `python_module` (`nn.functional`, `linalg`, `fft`, `special`), taking arguments as
//!   `torch.*` does (overloads tried in PyTorch's order, `out=`, `dtype=`/`device=` for
//!   factories, named tuples back);
//! * a `Tensor` class wrapping the tensor type (a handle, no copy) with a method per
//!   `method` variant and PyTorch's dunder operators (`+`, `+=`, `@`, `-t`, ...);
//! * `ops.<ns>.<op>.<overload>` for every operator, as `torch.ops` (`default` for the
//!   unnamed overload), and the packet `ops.<ns>.<op>(...)` picking the overload;
//! * `dtype`, `device`, `layout`, `memory_format` objects (`float32`, `strided`, ...),
//!   `tensor(data, dtype=, device=)`, `tracing(*inputs)` and `_stubs` (the `.pyi` files);
//! * autograd, as `torch`'s: `requires_grad=` on factories, the tensor's `requires_grad`,
//!   `requires_grad_()`, `grad`, `grad_fn`, `is_leaf`, `retain_grad()`, `detach()`,
//!   `backward()`, the context managers (and decorators) `no_grad()`, `enable_grad()`,
//!   `set_grad_enabled()`, `inference_mode()`, `t.register_hook()`, custom
//!   `autograd.Function`s, and `autograd.grad`, `autograd.backward`, `autograd.graph.Node`.
//!
//! The tensor type implements [`PyTensor`] (conversion from and to Python objects; its
//! [`autograd`] engine if it takes part in autograd) and [`TensorFacts`]; the argument rules
//! themselves are plain Rust in `opgen-python-core`.
//! Errors are Python exceptions with PyTorch's wording; the GIL is released while a kernel
//! runs.
//!
//! ```ignore
//! use opgen_python::pyo3::prelude::*;
//!
//! #[pymodule]
//! fn _C(m: &Bound<'_, PyModule>) -> PyResult<()> {
//!     opgen_python::bind::<MyTensor>(m, Dispatcher::global(), &opgen_python::Options::default())
//! }
//! ```
//!
//! `example/python` in the repository is the complete example (NumPy arrays in and out).

#![warn(missing_docs)]

mod autograd;
mod autograd_fns;
mod call;
mod classify;
mod errors;
mod fast;
mod ffi;
mod function;
mod grad_mode;
mod graph;
mod helpers;
mod hooks;
mod module;
mod ops;
mod returns;
mod tensor;
mod trace;
mod values;

pub use autograd::{Autograd, BackwardFn, ForwardFn, autograd};
pub use module::{Options, bind, python_modules_of};
pub use opgen_python_core::{self as core, TensorFacts};
pub use pyo3;
pub use tensor::{PyTensor, TensorObject};
