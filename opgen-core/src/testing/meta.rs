//! The meta check: the same call on `Meta` copies of the inputs gives `Meta` outputs of the
//! real outputs' shapes and dtypes.

use crate::dispatch::{
    Device, DeviceType, DispatchKey, Error, IValue, OperatorHandle, ServedBy, Tensor,
};
use crate::schema::Schema;

use super::OpCheck;
use super::values::{call, dtype, map_tensors, sizes, tensors_of};

impl<T: Tensor> OpCheck<'_, T> {
    /// The call of `op` on `Meta` copies of `inputs` against the real `outputs`;
    /// `Ok(Some(why))` when it does not apply.
    pub(super) fn check_meta(
        &self,
        op: &OperatorHandle,
        schema: &Schema,
        inputs: &[IValue<T>],
        outputs: &[IValue<T>],
    ) -> Result<Option<String>, String> {
        if matches!(
            op.dispatch_table().get(DispatchKey::Meta),
            ServedBy::Missing | ServedBy::Ambiguous
        ) {
            return Ok(Some("no kernel serves `Meta`".into()));
        }
        let meta = Device {
            kind: DeviceType::Meta,
            index: None,
        };
        let mut args = inputs
            .iter()
            .map(|v| map_tensors(v, &mut |t| t.to_device(meta)))
            .collect::<Result<Vec<_>, Error>>()
            .map_err(|e| format!("moving the inputs to Meta failed: {e}"))?;
        // Without tensor inputs (a factory), the `device` argument says where results go.
        if !inputs.iter().any(|v| !tensors_of(v).is_empty()) {
            let device = schema.arguments.iter().position(|a| {
                a.name == "device" && a.ty.to_string().trim_end_matches('?') == "Device"
            });
            match device.and_then(|i| args.get_mut(i)) {
                Some(slot) => *slot = IValue::Device(meta),
                None => {
                    return Ok(Some(
                        "no tensor inputs and no `device` argument to ask for Meta".into(),
                    ));
                }
            }
        }
        let meta_out = call(op, args).map_err(|m| format!("on Meta: {m}"))?;
        if meta_out.len() != outputs.len() {
            return Err(format!(
                "Meta returned {} values but the real kernel {}",
                meta_out.len(),
                outputs.len()
            ));
        }
        for (i, (m, r)) in meta_out.iter().zip(outputs).enumerate() {
            for (j, (m, r)) in tensors_of(m).iter().zip(tensors_of(r)).enumerate() {
                let (ms, rs) = (sizes(m)?, sizes(&r)?);
                let (md, rd) = (dtype(m)?, dtype(&r)?);
                let on_meta = m.options().map_err(|e| e.to_string())?.is_meta();
                if !on_meta {
                    return Err(format!(
                        "output {i}.{j} of the call on Meta is not a Meta tensor"
                    ));
                }
                if ms != rs || md != rd {
                    return Err(format!(
                        "output {i}.{j}: Meta gives sizes {ms:?} and dtype {md}, the real kernel \
                         sizes {rs:?} and dtype {rd}"
                    ));
                }
            }
        }
        Ok(None)
    }
}
