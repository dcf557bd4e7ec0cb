//! `tracing(*inputs)`: a context manager that records the calls made inside it with the
//! dispatcher's tracer (`opgen_core::cross::start_tracing`) and keeps the graph as text.

use std::marker::PhantomData;

use opgen_core::cross::{TracingGuard, start_tracing};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::runtime_error;
use crate::tensor::{PyTensor, TensorObject};

/// A trace being recorded, for any tensor type.
pub(crate) trait DynTracing {
    fn input(&self, tensor: &TensorObject) -> PyResult<()>;
    fn current(&self) -> PyResult<String>;
    fn finish(self: Box<Self>) -> String;
}

struct Tracing<B: PyTensor>(TracingGuard<B::Tensor>);

impl<B: PyTensor> DynTracing for Tracing<B> {
    fn input(&self, tensor: &TensorObject) -> PyResult<()> {
        let t = tensor
            .get::<B>()
            .ok_or_else(|| PyTypeError::new_err("tracing(): an input of another tensor type"))?;
        self.0.input(t).map(|_| ()).map_err(runtime_error)
    }
    fn current(&self) -> PyResult<String> {
        Ok(self.0.trace().map_err(runtime_error)?.to_string())
    }
    fn finish(self: Box<Self>) -> String {
        self.0.finish().to_string()
    }
}

/// Starts a trace of `T` calls on this thread.
pub(crate) fn start<B: PyTensor>() -> Box<dyn DynTracing> {
    Box::new(Tracing::<B>(start_tracing::<B::Tensor>()))
}

/// `with tracing(a, b) as t: ...; print(t.graph)`. The inputs given are numbered first
/// (`%0`, `%1`, ...), in that order.
#[pyclass(unsendable, name = "tracing", module = "opgen")]
pub struct TraceContext {
    pub(crate) start: fn() -> Box<dyn DynTracing>,
    pub(crate) inputs: Py<PyTuple>,
    pub(crate) running: Option<Box<dyn DynTracing>>,
    pub(crate) graph: Option<String>,
    pub(crate) _not_send: PhantomData<*const ()>,
}

#[pymethods]
impl TraceContext {
    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        {
            let mut this = slf.borrow_mut();
            if this.running.is_some() {
                return Err(PyRuntimeError::new_err("this trace is already recording"));
            }
            let tracing = (this.start)();
            let py = slf.py();
            for input in this.inputs.bind(py).iter() {
                let t = input
                    .cast::<TensorObject>()
                    .map_err(|_| PyTypeError::new_err("tracing(): the inputs must be tensors"))?;
                tracing.input(t.get())?;
            }
            this.running = Some(tracing);
            this.graph = None;
        }
        Ok(slf)
    }

    fn __exit__(
        &mut self,
        _ty: Option<&Bound<'_, PyAny>>,
        _value: Option<&Bound<'_, PyAny>>,
        _tb: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        if let Some(tracing) = self.running.take() {
            self.graph = Some(tracing.finish());
        }
        false
    }

    /// The graph recorded: `graph(%0 : [2, 3]):\n  %1 : [2, 3] = aten::neg(%0)\n`.
    #[getter]
    fn graph(&self) -> PyResult<String> {
        match (&self.running, &self.graph) {
            (Some(t), _) => t.current(),
            (None, Some(g)) => Ok(g.clone()),
            (None, None) => Ok(String::new()),
        }
    }
}
