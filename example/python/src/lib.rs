//! The example operator library as a Python module, `opgen_example._C` (the Python package
//! `opgen_example` re-exports it): every operator of `opgen-example` as a function, a tensor
//! method and `ops.aten.<op>.<overload>`, with `MiniTensor`s converted to and from NumPy
//! arrays (dtype and device kept).
//!
//! Built by `example/python/run.sh` (maturin, in a virtual environment it makes).

mod numpy_conv;
mod testing;

use opgen::dispatch::{DispatchKey, Scalar};
use opgen::native::Variants;
use opgen::prelude::*;
use opgen_example::MiniTensor;
use opgen_python::{Options, PyTensor, TensorFacts, bind};
use pyo3::prelude::*;

pub use numpy_conv::Mini;

/// `bench::noop(Tensor self) -> Tensor`: a kernel that returns its argument, to measure the
/// cost of a call from Python (`bench.py`). Defined at run time on the global dispatcher, with
/// the function and method variants.
fn define_noop() -> Result<(), Error> {
    let lib = Dispatcher::global().library("bench")?;
    lib.def_with_variants(
        "noop(Tensor self) -> Tensor",
        Variants {
            function: true,
            method: true,
        },
    )?
    .forget();
    lib.impl_("noop", DispatchKey::CPU, |t: &MiniTensor| t.share())?
        .forget();
    // A kernel that makes a new handle (a view of the same storage): the cost of wrapping a
    // new tensor object.
    lib.def_with_variants(
        "alias_noop(Tensor(a) self) -> Tensor(a)",
        Variants {
            function: true,
            method: true,
        },
    )?
    .forget();
    lib.impl_(
        "alias_noop",
        DispatchKey::CPU,
        opgen_example::kernels::views::alias,
    )?
    .forget();
    std::mem::forget(lib);
    Ok(())
}

fn to_py(err: Error) -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err(err.to_string())
}

/// The module: the example's operators on the global dispatcher, the benchmark operators, and
/// `_testing` (a second dispatcher with an operator per schema type).
#[pymodule(name = "_C")]
fn c_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    opgen_example::install().map_err(to_py)?;
    define_noop().map_err(to_py)?;
    if let Some(error) = Dispatcher::global_errors().first() {
        return Err(to_py(Error::from(error.to_string())));
    }
    let options = Options {
        package: Some("opgen_example".into()),
        ..Options::default()
    };
    bind::<Mini>(m, Dispatcher::global(), &options)?;
    testing::add(m)?;
    Ok(())
}

impl TensorFacts for Mini {
    type Tensor = MiniTensor;

    fn item(t: &MiniTensor) -> Result<Scalar, Error> {
        Ok(match t.dtype() {
            ScalarType::Bool => Scalar::Bool(t.item::<bool>()?),
            ScalarType::Long => Scalar::Int(t.item::<i64>()?),
            _ => Scalar::Float(t.item::<f64>()?),
        })
    }
}

impl PyTensor for Mini {
    fn from_python(
        data: &Bound<'_, PyAny>,
        dtype: Option<ScalarType>,
        device: Option<Device>,
    ) -> PyResult<MiniTensor> {
        numpy_conv::from_python(data, dtype, device)
    }

    fn to_python<'py>(t: &MiniTensor, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        numpy_conv::to_numpy(t, py)
    }

    fn repr(t: &MiniTensor) -> String {
        numpy_conv::repr(t)
    }

    /// `MiniTensor` takes part in autograd.
    fn autograd() -> Option<&'static dyn opgen_python::Autograd<MiniTensor>> {
        Some(opgen_python::autograd())
    }
}
