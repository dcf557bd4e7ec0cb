//! The cross-cutting kernels of this library, enabled with one call: [`install`].

use std::sync::{Mutex, OnceLock, PoisonError};

use opgen::cross::{self, Installed};
use opgen::prelude::*;

use crate::MiniTensor;

/// The namespace of this library's operators.
const NAMESPACE: &str = "aten";

/// What [`install`] registered on [`Dispatcher::global`]; kept for the life of the program.
#[derive(Debug)]
pub struct CrossKernels {
    inplace_or_view: Installed,
    tracer: Installed,
    cpu_fallback: Installed,
}

impl CrossKernels {
    /// The `ADInplaceOrView` kernels (one per operator that writes or views).
    pub fn inplace_or_view(&self) -> &Installed {
        &self.inplace_or_view
    }

    /// The `Tracer` kernels (one per operator with tensor returns).
    pub fn tracer(&self) -> &Installed {
        &self.tracer
    }

    /// The CPU fallback at `PrivateUse1` (one backend fallback).
    pub fn cpu_fallback(&self) -> &Installed {
        &self.cpu_fallback
    }
}

static INSTALLED: OnceLock<CrossKernels> = OnceLock::new();
static INSTALLING: Mutex<()> = Mutex::new(());

/// Installs, once per program, the in-place-or-view kernels, the tracer and the CPU fallback
/// of `PrivateUse1` for this library's operators on [`Dispatcher::global`], and gives every
/// `MiniTensor` the `ADInplaceOrView` key from then on. Later calls return the same
/// installation.
///
/// An error if the global dispatcher already has a backend fallback at `PrivateUse1` (from
/// another library).
///
/// PyTorch leaves three jobs to kernels that torchgen generates per operator, not to the
/// operators' own kernels; `opgen::cross` provides them for every operator of a dispatcher,
/// and [`install`] enables them on [`Dispatcher::global`] for the `aten` operators:
///
/// | feature | key | what it does for `MiniTensor` |
/// |---|---|---|
/// | in-place or view | `ADInplaceOrView` | bumps the version counter of every tensor an operator writes (`Tensor(a!)`), and makes the outputs of view operators share their base's counter and remember the base |
/// | tracer | `Tracer` | records the operators a program calls while [`opgen::cross::start_tracing`] is on |
/// | CPU fallback | `PrivateUse1` | runs operators on `privateuseone` tensors (which have kernels only for the views, which the fallback refuses) on the CPU, writes results back and moves them to the device |
///
/// The kernels of [`crate::ops`] neither bump version counters nor share them: before
/// [`install`], tensors carry no `ADInplaceOrView` key and have no version tracking (as
/// PyTorch's inference tensors); after it, every `MiniTensor` carries the key, as every
/// PyTorch tensor outside inference mode does.
///
/// ```
/// use opgen::prelude::*;
/// use opgen_example::MiniTensor;
/// # fn main() -> Result<(), Error> {
/// let installed = opgen_example::install()?;
/// assert!(installed.inplace_or_view().operators().contains(&"aten::add_.Tensor".to_string()));
/// let a = MiniTensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let mut row = a.select(0, 1); // a view: it shares a's version counter
/// row.neg_();
/// assert_eq!((a.version()?, row.version()?), (1, 1));
/// assert_eq!(a.to_vec::<f32>()?, [1.0, 2.0, -3.0, -4.0]);
/// # Ok(()) }
/// ```
pub fn install() -> Result<&'static CrossKernels, Error> {
    if let Some(installed) = INSTALLED.get() {
        return Ok(installed);
    }
    let _one_at_a_time = INSTALLING.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(installed) = INSTALLED.get() {
        return Ok(installed);
    }
    let d = Dispatcher::global();
    let kernels = CrossKernels {
        inplace_or_view: cross::install_inplace_or_view::<MiniTensor>(d, NAMESPACE)?,
        tracer: cross::install_tracer::<MiniTensor>(d, NAMESPACE)?,
        cpu_fallback: cross::install_cpu_fallback::<MiniTensor>(
            d,
            DispatchKey::PrivateUse1,
            NAMESPACE,
        )?,
    };
    crate::tensor::track_versions();
    Ok(INSTALLED.get_or_init(|| kernels))
}

/// Whether [`install`] has run.
pub fn is_installed() -> bool {
    INSTALLED.get().is_some()
}
