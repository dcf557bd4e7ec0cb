//! Typed handles that do not keep their operator alive: what kernels of the operator itself
//! hold to redispatch.

use std::marker::PhantomData;
use std::sync::{Arc, OnceLock, Weak};

use super::{OperatorHandle, TypedOperator};
use crate::dispatch::erased::Shared;
use crate::dispatch::error::Error;
use crate::dispatch::kernel::{ArgList, SignatureMarker};
use crate::dispatch::registry::operator::OperatorEntry;
use crate::dispatch::registry::{Dispatcher, Inner};
use crate::dispatch::returns::RetValue;
use crate::dispatch::tensor::Tensor;

/// A [`TypedOperator`] that does not keep its operator alive: what a kernel of the
/// operator itself holds to redispatch (a strong handle there would be a reference cycle
/// through the operator's table).
pub(crate) struct WeakTypedOperator<T, L, R> {
    entry: WeakEntry,
    _signature: SignatureMarker<T, L, R>,
}

/// An entry of the global dispatcher (which lives for the whole program), or a weak
/// reference to an entry of another.
enum WeakEntry {
    Static(Shared<OperatorEntry>),
    Weak(Weak<OperatorEntry>),
}

impl<T: Tensor, L: ArgList<T>, R: RetValue<T>> WeakTypedOperator<T, L, R> {
    /// The typed handle of `op`, checked against its schema.
    pub(crate) fn new(op: &OperatorHandle) -> Result<Self, Error> {
        let typed = op.typed_families::<T, L, R>()?;
        let entry = match typed.op.entry.owner().owner() {
            Some(owner) => WeakEntry::Weak(Arc::downgrade(owner)),
            None => WeakEntry::Static(typed.op.entry.owner().clone()),
        };
        Ok(WeakTypedOperator {
            entry,
            _signature: PhantomData,
        })
    }

    /// The typed handle, or an error if its dispatcher is gone.
    pub(crate) fn upgrade(&self) -> Result<TypedOperator<T, L, R>, Error> {
        let entry = match &self.entry {
            WeakEntry::Static(entry) => Some(entry.clone()),
            WeakEntry::Weak(weak) => weak.upgrade().map(Shared::from_arc),
        };
        match entry.and_then(OperatorHandle::new) {
            Some(op) => Ok(TypedOperator {
                op,
                _signature: PhantomData,
            }),
            None => Err(Error::internal(
                "a kernel outlived its operator's dispatcher",
            )),
        }
    }
}

/// A [`WeakTypedOperator`] looked up on its first use: what a generated `BackendSelect`
/// kernel redispatches through, so that registering the kernel (at link time, for every
/// factory) neither looks its operator up nor parses its schema.
pub(crate) struct LazyTypedOperator<T, L, R> {
    dispatcher: Weak<Inner>,
    name: Box<str>,
    overload: Box<str>,
    op: OnceLock<WeakTypedOperator<T, L, R>>,
}

impl<T: Tensor, L: ArgList<T>, R: RetValue<T>> LazyTypedOperator<T, L, R> {
    /// The operator `name` / `overload` of `dispatcher`, not looked up yet.
    pub(crate) fn new(dispatcher: &Dispatcher, name: &str, overload: &str) -> Self {
        LazyTypedOperator {
            dispatcher: Arc::downgrade(&dispatcher.inner),
            name: name.into(),
            overload: overload.into(),
            op: OnceLock::new(),
        }
    }

    /// The typed handle: looked up and checked against the schema on the first call.
    #[inline]
    pub(crate) fn get(&self) -> Result<TypedOperator<T, L, R>, Error> {
        match self.op.get() {
            Some(op) => op.upgrade(),
            None => self.init(),
        }
    }

    #[cold]
    #[inline(never)]
    fn init(&self) -> Result<TypedOperator<T, L, R>, Error> {
        let Some(inner) = self.dispatcher.upgrade() else {
            return Err(Error::internal(
                "a kernel outlived its operator's dispatcher",
            ));
        };
        let op = Dispatcher { inner }.find(&self.name, &self.overload)?;
        let weak = WeakTypedOperator::new(&op)?;
        self.op.get_or_init(|| weak).upgrade()
    }
}
