//! The trait a user's tensor type implements.

use super::keyset::DispatchKeySet;

/// What the dispatcher needs from a tensor type: the runtime works with any type that
/// implements it, typically a reference-counted handle (`Arc`-backed), whose `clone` is cheap.
///
/// A tensor's key set names its backend (`CPU`, `SparseCUDA`, ...) and the functionality keys
/// that apply to it, such as its autograd key when it takes part in autograd
/// (`AutogradCPU` for a CPU tensor).
///
/// The trait is kept minimal; later features (device transfer, version counters) will
/// arrive as methods with default bodies, so implementations keep compiling.
///
/// ```
/// use std::sync::Arc;
/// use opgen_core::dispatch::{DispatchKey, DispatchKeySet, Tensor};
///
/// #[derive(Clone)]
/// struct MyTensor(Arc<MyImpl>);
/// struct MyImpl { keys: DispatchKeySet, data: Vec<f32> }
///
/// impl Tensor for MyTensor {
///     fn key_set(&self) -> DispatchKeySet { self.0.keys }
/// }
///
/// let t = MyTensor(Arc::new(MyImpl { keys: DispatchKey::CPU.into(), data: vec![1.0] }));
/// assert_eq!(t.key_set().highest(), Some(DispatchKey::CPU));
/// ```
pub trait Tensor: Clone + Send + Sync + 'static {
    /// The dispatch keys of this tensor. Called on every dispatched call, so it should be a
    /// field read.
    fn key_set(&self) -> DispatchKeySet;
}
