//! Errors as the Python exceptions PyTorch raises for them.

use opgen_core::dispatch::{Error, ErrorKind};
use opgen_python_core::ParseError;
use pyo3::PyErr;
use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError, PyTypeError};

/// A dispatcher error: `NotImplementedError` where PyTorch raises it (no kernel for the
/// backend, as c10's "Could not run ... with arguments from the ... backend"; a tensor hook
/// the type does not implement), `RuntimeError` otherwise (PyTorch's `TORCH_CHECK`).
pub(crate) fn dispatch_error(err: Error) -> PyErr {
    let err = match python_exception(err) {
        Ok(exception) => return exception,
        Err(err) => err,
    };
    let message = err.to_string();
    match err.kind() {
        ErrorKind::MissingKernel { .. }
        | ErrorKind::StaticDispatchMissingKernel { .. }
        | ErrorKind::Unsupported { .. } => PyNotImplementedError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// The Python exception inside a kernel error, when Python code called from Rust raised it
/// (a tensor hook, a custom function's `backward`): it comes out as it was raised.
fn python_exception(err: Error) -> Result<PyErr, Error> {
    if !matches!(err.kind(), ErrorKind::Kernel { source, .. } if source.is::<PyErr>()) {
        return Err(err);
    }
    match err.into_kind() {
        ErrorKind::Kernel { source, .. } => match source.downcast::<PyErr>() {
            Ok(exception) => Ok(*exception),
            Err(source) => Err(Error::kernel(source)),
        },
        other => Err(other.into()),
    }
}

/// A Python exception carried through Rust code (the engine) as a kernel error, for
/// [`dispatch_error`] to raise unchanged.
pub(crate) fn carry(exception: PyErr) -> Error {
    Error::kernel(exception)
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
