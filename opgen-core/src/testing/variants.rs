//! The operator's group: the functional, in-place and out operators of one signature, and
//! how each is called from the checked operator's inputs.

use std::sync::Arc;

use crate::dispatch::{Dispatcher, IValue, OperatorHandle, Tensor};
use crate::schema::{Schema, SchemaKind};

use super::OpCheck;
use super::schema::Called;
use super::values::{dtype, full_name, plain, sizes, tensors_of};

/// One operator of the group.
#[derive(Clone)]
pub(super) struct Member {
    pub kind: SchemaKind,
    pub op: OperatorHandle,
    pub schema: Arc<Schema>,
    pub name: String,
}

/// Every operator of `op`'s namespace with `schema`'s grouping signature (`op` included):
/// functional, in-place, out, mutable; by name within a kind.
pub(super) fn group(dispatcher: &Dispatcher, op: &OperatorHandle, schema: &Schema) -> Vec<Member> {
    let signature = schema.signature();
    let mut members: Vec<Member> = (dispatcher.operators().into_iter())
        .filter(|o| o.namespace() == op.namespace())
        .filter_map(|o| {
            let s = o.schema()?;
            (s.signature() == signature).then(|| Member {
                kind: s.kind(),
                name: full_name(&o),
                op: o,
                schema: s,
            })
        })
        .collect();
    members.sort_by(|a, b| (a.kind as u8, &a.name).cmp(&(b.kind as u8, &b.name)));
    members
}

impl<T: Tensor> OpCheck<'_, T> {
    /// The inputs of a call of `m`: the functional arguments, and for an out operator empty
    /// out tensors like the functional's returns (so the out kernel's resizing is checked
    /// too). `Err(why)` for a member that cannot be called so.
    pub(super) fn member_inputs(
        &self,
        m: &Member,
        functional_args: &[IValue<T>],
        expected: &[IValue<T>],
    ) -> Result<Vec<IValue<T>>, String> {
        match m.kind {
            SchemaKind::Functional | SchemaKind::Inplace => Ok(functional_args.to_vec()),
            SchemaKind::Out => {
                let mut args = functional_args.to_vec();
                for (k, out_arg) in m.schema.out_arguments().iter().enumerate() {
                    let like = expected.get(k).and_then(IValue::as_tensor);
                    let Some(like) = like.filter(|_| out_arg.ty.is_tensor_like()) else {
                        return Err(format!("`{}` has an out argument not a tensor", m.name));
                    };
                    let options = like.options().map_err(|e| e.to_string())?;
                    let out = T::empty(&[0], None, &options).map_err(|e| e.to_string())?;
                    args.push(IValue::Tensor(out));
                }
                Ok(args)
            }
            SchemaKind::Mutable | SchemaKind::Scratch => {
                Err(format!("`{}` is not an in-place or out operator", m.name))
            }
        }
    }

    /// What a call of `m` computed: the returns of a functional operator, the written `self`
    /// of an in-place one, the out arguments of an out one.
    pub(super) fn result_of(m: &Member, called: &Called<T>) -> Vec<IValue<T>> {
        match m.kind {
            SchemaKind::Inplace => {
                let i = m
                    .schema
                    .arguments
                    .iter()
                    .position(|a| a.is_write())
                    .unwrap_or(0);
                called.args.get(i).cloned().into_iter().collect()
            }
            SchemaKind::Out => called.args[m.schema.out_start().min(called.args.len())..].to_vec(),
            _ => called.outputs.clone(),
        }
    }

    /// The tensors of `a` and `b` agree in sizes, dtype and (when compared) values; other
    /// values are equal.
    pub(super) fn same_outputs(
        &self,
        a: &[IValue<T>],
        b: &[IValue<T>],
        a_name: &str,
        b_name: &str,
    ) -> Result<(), String> {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let (xs, ys) = (tensors_of(x), tensors_of(y));
            if xs.len() != ys.len() {
                return Err(format!(
                    "output {i}: `{a_name}` and `{b_name}` differ in kind"
                ));
            }
            for (j, (x, y)) in xs.iter().zip(&ys).enumerate() {
                let (sx, sy) = (sizes(x)?, sizes(y)?);
                let (dx, dy) = (dtype(x)?, dtype(y)?);
                if sx != sy || dx != dy {
                    return Err(format!(
                        "output {i}.{j}: `{a_name}` gives sizes {sx:?} and dtype {dx}, \
                         `{b_name}` sizes {sy:?} and dtype {dy}"
                    ));
                }
                if let Some(same) = &self.compare
                    && !same(x, y)
                {
                    return Err(format!(
                        "output {i}.{j}: `{a_name}` and `{b_name}` give different values"
                    ));
                }
            }
            if xs.is_empty() && plain(x) != plain(y) {
                return Err(format!(
                    "output {i}: `{a_name}` gives {:?}, `{b_name}` gives {:?}",
                    plain(x),
                    plain(y)
                ));
            }
        }
        Ok(())
    }
}
