//! `ops.<ns>.<op>.<overload>`, as PyTorch's `torch.ops`: namespaces, overload packets (which
//! pick the overload as PyTorch's argument parser picks one), and overloads (one schema
//! each, `default` for the overload without a name).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// `ops`: an attribute per namespace.
#[pyclass(dict, frozen, name = "_Ops", module = "opgen")]
pub struct Ops;

#[pymethods]
impl Ops {
    fn __repr__(&self) -> &'static str {
        "<ops>"
    }
}

/// `ops.<ns>`: an attribute per operator name.
#[pyclass(dict, frozen, name = "_OpNamespace", module = "opgen")]
pub struct OpNamespace {
    pub(crate) name: String,
}

#[pymethods]
impl OpNamespace {
    fn __repr__(&self) -> String {
        format!("<ops.{}>", self.name)
    }
}

/// `ops.<ns>.<op>`: an attribute per overload (`default` for the unnamed one); calling it
/// picks the overload.
#[pyclass(dict, frozen, name = "OpOverloadPacket", module = "opgen")]
pub struct OpPacket {
    pub(crate) qualname: String,
    pub(crate) overload_names: Vec<String>,
    /// The callable that parses against every overload.
    pub(crate) call: Py<PyAny>,
}

#[pymethods]
impl OpPacket {
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.call.bind(py).call(args, kwargs)
    }

    /// The overload names (`default` for the unnamed one).
    fn overloads<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, &self.overload_names)
    }

    /// `ns::op`.
    #[getter]
    fn _qualified_op_name(&self) -> &str {
        &self.qualname
    }

    fn __repr__(&self) -> String {
        format!(
            "<OpOverloadPacket(op='{}')>",
            self.qualname.replace("::", ".")
        )
    }
}
