//! The short way for the most common call: a signature whose parameters are all plain
//! tensors (`neg(input)`, `t.mm(mat2)`, `t.neg()`), called with tensors of the module's type,
//! positionally. Such a call cannot fail to parse, so it skips the parser and goes straight to
//! the operator's stack; any other call takes the general path, with the same result.

use opgen_core::dispatch::{IValue, Stack};
use opgen_core::schema::Schema;
use opgen_python_core::{ParamType, PySignature, Source};
use pyo3::prelude::*;
use smallvec::SmallVec;

use crate::tensor::{PyTensor, TensorObject};

/// The tensors of a call with their Python objects, inline for a few.
pub(crate) type Tensors<'a, 'py, T> = SmallVec<[(&'a Bound<'py, PyAny>, &'a T); 4]>;

/// For each schema argument, the tensor it takes: 0 the receiver of a method, else the
/// positional argument (from 1 for a method, from 0 for a function).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AllTensors {
    order: SmallVec<[u8; 4]>,
    /// How many positional arguments the call has.
    pub positional: usize,
}

impl AllTensors {
    /// The short way for `sig` calling `schema`, if every parameter is a required positional
    /// `Tensor` and the schema takes nothing else.
    pub(crate) fn new(sig: &PySignature, schema: &Schema, method: bool) -> Option<AllTensors> {
        let plain = |p: &opgen_python_core::Param| {
            p.ty == ParamType::Tensor
                && !p.keyword_only
                && p.default.is_none()
                && !p.allow_none
                && !p.numbers_as_tensors
                && p.schema_type.is_plain_tensor()
        };
        if sig.out.is_some() || !sig.params.iter().all(plain) {
            return None;
        }
        let self_index = if method {
            Some(schema.self_index()?)
        } else {
            None
        };
        let receiver = usize::from(method);
        if schema.arguments.len() != sig.params.len() + receiver || schema.arguments.len() > 8 {
            return None;
        }
        let mut order = SmallVec::new();
        for (i, arg) in schema.arguments.iter().enumerate() {
            if Some(i) == self_index {
                order.push(0);
                continue;
            }
            if !arg.ty.is_plain_tensor() {
                return None;
            }
            let k = (sig.params.iter())
                .position(|p| matches!(&p.source, Source::Arg(name) if *name == arg.name))?;
            order.push(u8::try_from(k + receiver).ok()?);
        }
        Some(AllTensors {
            order,
            positional: sig.params.len(),
        })
    }

    /// The tensors of the call (receiver first), if every argument is one of type `B`.
    pub(crate) fn tensors<'a, 'py, B: PyTensor>(
        objects: impl Iterator<Item = &'a Bound<'py, PyAny>>,
    ) -> Option<Tensors<'a, 'py, B::Tensor>>
    where
        'py: 'a,
    {
        objects
            .map(|obj| Some((obj, obj.cast::<TensorObject>().ok()?.get().get::<B>()?)))
            .collect()
    }

    /// Pushes the tensors in schema order.
    pub(crate) fn fill<T: Clone>(&self, stack: &mut Stack<T>, tensors: &[(&Bound<'_, PyAny>, &T)]) {
        for &k in &self.order {
            stack.push(IValue::Tensor(tensors[usize::from(k)].1.clone()));
        }
    }
}
