//! Errors as the Python exceptions PyTorch raises for them.

use opgen_core::dispatch::{Error, ErrorKind};
use opgen_python_core::ParseError;
use pyo3::PyErr;
use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError, PyTypeError};

/// A dispatcher error: `NotImplementedError` where PyTorch raises it (no kernel for the
/// backend, as c10's "Could not run ... with arguments from the ... backend"; a tensor hook
/// the type does not implement), `RuntimeError` otherwise (PyTorch's `TORCH_CHECK`).
pub(crate) fn dispatch_error(err: Error) -> PyErr {
    let message = err.to_string();
    match err.kind() {
        ErrorKind::MissingKernel { .. }
        | ErrorKind::StaticDispatchMissingKernel { .. }
        | ErrorKind::Unsupported { .. } => PyNotImplementedError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// An argument error: a `TypeError` (PyTorch's), except a value that does not convert
/// (PyTorch's `RuntimeError`s "Overflow when unpacking long", a bad device string).
pub(crate) fn parse_error(err: ParseError) -> PyErr {
    match err {
        ParseError::Value(_) | ParseError::Internal(_) => PyRuntimeError::new_err(err.to_string()),
        other => PyTypeError::new_err(other.to_string()),
    }
}

/// Any other runtime error (a tensor hook that failed).
pub(crate) fn runtime_error(err: Error) -> PyErr {
    dispatch_error(err)
}
