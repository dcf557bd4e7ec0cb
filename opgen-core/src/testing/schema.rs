//! The schema check: declared writes against version counters (and values), written
//! returns against the arguments they alias, view returns against their bases.

use crate::dispatch::{IValue, OperatorHandle, Tensor};
use crate::schema::Schema;

use super::values::{call, element, tensors_of, version};
use super::{Check, OpCheck};

/// One checked call: the arguments after the call (written ones hold the results of an
/// in-place or out operator) and the returns.
pub(super) struct Called<T> {
    pub args: Vec<IValue<T>>,
    pub outputs: Vec<IValue<T>>,
}

impl<T: Tensor> OpCheck<'_, T> {
    /// Calls `op` on fresh copies of `inputs` and checks the call against `schema`.
    pub(super) fn check_schema(
        &self,
        op: &OperatorHandle,
        schema: &Schema,
        inputs: &[IValue<T>],
        unchecked: &mut Vec<(Check, String)>,
    ) -> Result<Called<T>, String> {
        let args = self.fresh(inputs)?;
        let before: Vec<Vec<u64>> = args
            .iter()
            .map(|v| tensors_of(v).iter().map(|t| version(t)).collect())
            .collect::<Result<_, _>>()?;
        let untouched = self.fresh(inputs)?;
        let outputs = call(op, args.clone())?;
        self.check_writes(schema, &args, &before, &untouched)?;
        check_written_returns(schema, &args, &outputs)?;
        self.check_no_input_returned(op, schema, &args, &outputs, unchecked)?;
        self.check_views(op, schema, &args, &outputs, unchecked)?;
        Ok(Called { args, outputs })
    }

    /// The arguments written by the schema are those whose version counters changed, and
    /// (with a comparison) the others keep their values.
    fn check_writes(
        &self,
        schema: &Schema,
        args: &[IValue<T>],
        before: &[Vec<u64>],
        untouched: &[IValue<T>],
    ) -> Result<(), String> {
        for (i, arg) in schema.arguments.iter().enumerate() {
            let (Some(value), Some(before)) = (args.get(i), before.get(i)) else {
                continue;
            };
            let tensors = tensors_of(value);
            for (j, t) in tensors.iter().enumerate() {
                let now = version(t)?;
                let was = before.get(j).copied().unwrap_or(now);
                let place = element(&arg.name, j, tensors.len());
                if arg.is_write() && now == was {
                    return Err(format!(
                        "argument `{place}` is written by the schema (`{arg}`) but its version \
                         counter did not change (the kernel, or an ADInplaceOrView kernel, must \
                         bump it)"
                    ));
                }
                if !arg.is_write() && now != was {
                    return Err(format!(
                        "argument `{place}` is not marked written in the schema, but its version \
                         counter changed from {was} to {now}; mark it `Tensor(a!)` or do not \
                         write it"
                    ));
                }
                if let (false, Some(same)) = (arg.is_write(), &self.compare) {
                    let original = untouched.get(i).map(tensors_of).unwrap_or_default();
                    if let Some(o) = original.get(j)
                        && !same(t, o)
                    {
                        return Err(format!(
                            "argument `{place}` is not marked written in the schema, but its \
                             values changed"
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// A return aliasing a written argument (`-> Tensor(a!)`) is that argument.
fn check_written_returns<T: Tensor>(
    schema: &Schema,
    args: &[IValue<T>],
    outputs: &[IValue<T>],
) -> Result<(), String> {
    for (r, ret) in schema.returns.iter().enumerate() {
        let Some(ann) = ret.annotation.as_ref().filter(|a| a.is_write) else {
            continue;
        };
        let Some(i) = schema.arguments.iter().position(|a| {
            a.annotation
                .as_ref()
                .is_some_and(|b| b.is_write && b.before == ann.before)
        }) else {
            continue;
        };
        let (Some(IValue::Tensor(out)), Some(IValue::Tensor(arg))) = (outputs.get(r), args.get(i))
        else {
            continue;
        };
        if !out.is_same(arg).map_err(|e| e.to_string())? {
            return Err(format!(
                "return {r} is annotated as an alias of `{}` but is another tensor",
                schema.arguments[i].name
            ));
        }
    }
    Ok(())
}
