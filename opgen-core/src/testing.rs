//! Checking operators for library authors: [`OpCheck`], the counterpart of PyTorch's
//! `torch.library.opcheck`.
//!
//! Given an operator and sample inputs, [`OpCheck::run`] calls the operator through the
//! dispatcher and checks what a kernel author most easily gets wrong:
//!
//! * **schema**: the tensors the schema marks written (`Tensor(a!)`) are the ones whose
//!   version counters changed, and no other; with a value comparison
//!   ([`OpCheck::compare_with`]), the values of unwritten tensors did not change either;
//!   a return annotated as an alias of a written argument (`-> Tensor(a!)`) is that argument;
//! * **meta**: when the operator has a kernel that serves `Meta`, the same call on `Meta`
//!   copies of the inputs gives `Meta` outputs of the same shapes and dtypes as the real
//!   call (an operator without tensor inputs, a factory, is called with `device=meta`);
//! * **typed**: a typed call ([`OpCheck::typed`], e.g. through the generated function) gives
//!   what the boxed call gives;
//! * **variants**: the in-place and out operators of the operator's group (same
//!   [grouping signature](crate::schema::Schema::signature)) give what the functional one
//!   gives; out tensors start empty, so their resizing is checked too.
//!
//! Every call gets fresh copies of the inputs (`Tensor::empty` + `Tensor::copy_`), so the
//! sample inputs are never modified. The tensor type needs the hooks `sizes`, `strides`,
//! `options`, `empty`, `copy_`, `version`, and `to_device` for the meta check.

use std::fmt;

mod gradcheck;

pub use gradcheck::{GradcheckError, GradcheckOptions, GradcheckTensor, gradcheck, gradgradcheck};

use crate::dispatch::{
    Device, DeviceType, DispatchKey, Dispatcher, Error, IValue, OperatorHandle, ServedBy, Stack,
    Tensor,
};
use crate::schema::{Schema, SchemaKind};

/// One of the checks of [`OpCheck`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Check {
    /// Declared mutations and aliasing returns against what happened.
    Schema,
    /// `Meta` outputs' shapes and dtypes against the real ones.
    Meta,
    /// A typed call against the boxed call.
    Typed,
    /// In-place and out variants against the functional operator.
    Variants,
}

impl Check {
    /// The check's name: `schema`, `meta`, `typed`, `variants`.
    pub fn name(self) -> &'static str {
        match self {
            Check::Schema => "schema",
            Check::Meta => "meta",
            Check::Typed => "typed",
            Check::Variants => "variants",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What [`OpCheck::run`] did: the checks that ran and those skipped, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpCheckReport {
    /// `ns::op.overload`.
    pub operator: String,
    /// The checks that ran and passed.
    pub passed: Vec<Check>,
    /// The checks that did not apply, with why.
    pub skipped: Vec<(Check, String)>,
    /// The other operators called by the variants check (`aten::add_.Tensor`).
    pub variants: Vec<String>,
}

/// A failed check: the operator, the check, and what differed.
#[derive(Debug)]
pub struct OpCheckFailure {
    /// `ns::op.overload`.
    pub operator: String,
    /// The check that failed.
    pub check: Check,
    /// What differed, or the error a call returned.
    pub message: String,
}

impl fmt::Display for OpCheckFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "opcheck `{}` failed the {} check: {}",
            self.operator, self.check, self.message
        )
    }
}

impl std::error::Error for OpCheckFailure {}

type Compare<'a, T> = Box<dyn Fn(&T, &T) -> bool + 'a>;
type TypedCall<'a, T> = Box<dyn Fn(Vec<IValue<T>>) -> Result<Vec<IValue<T>>, Error> + 'a>;

/// Checks one operator with sample inputs; see the [module documentation](self).
///
/// ```
/// use std::sync::{Arc, Mutex, atomic::{AtomicU64, Ordering}};
/// use opgen_core::dispatch::*;
/// use opgen_core::testing::{Check, OpCheck};
///
/// // A tiny tensor: one f64 value shared by handles, and a version counter.
/// #[derive(Clone)]
/// struct T(Arc<(Mutex<f64>, AtomicU64)>);
/// impl T { fn new(v: f64) -> T { T(Arc::new((Mutex::new(v), AtomicU64::new(0)))) } }
/// impl Tensor for T {
///     fn key_set(&self) -> DispatchKeySet { DispatchKey::CPU.into() }
///     fn sizes(&self) -> Result<Vec<i64>, Error> { Ok(vec![]) }
///     fn strides(&self) -> Result<Vec<i64>, Error> { Ok(vec![]) }
///     fn options(&self) -> Result<TensorOptions, Error> {
///         Ok(TensorOptions::new().dtype(ScalarType::Double).device(Device::CPU).layout(Layout::Strided))
///     }
///     fn empty(_: &[i64], _: Option<&[i64]>, _: &TensorOptions) -> Result<T, Error> { Ok(T::new(0.0)) }
///     fn copy_(&mut self, src: &T) -> Result<(), Error> {
///         let v = *src.0.0.lock().unwrap();
///         *self.0.0.lock().unwrap() = v;
///         Ok(())
///     }
///     fn version(&self) -> Result<u64, Error> { Ok(self.0.1.load(Ordering::Relaxed)) }
///     fn bump_version(&self) -> Result<(), Error> { self.0.1.fetch_add(1, Ordering::Relaxed); Ok(()) }
///     fn is_same(&self, o: &T) -> Result<bool, Error> { Ok(Arc::ptr_eq(&self.0, &o.0)) }
/// }
///
/// let d = Dispatcher::new();
/// let lib = d.library("demo").unwrap();
/// // Registrations last as long as their guards.
/// let _defs = [
///     lib.def("neg(Tensor self) -> Tensor").unwrap(),
///     lib.def("neg_(Tensor(a!) self) -> Tensor(a!)").unwrap(),
/// ];
/// let value = |t: &T| *t.0.0.lock().unwrap();
/// let _k1 = lib.impl_("neg", DispatchKey::CPU, move |a: &T| T::new(-*a.0.0.lock().unwrap())).unwrap();
/// let _k2 = lib.impl_("neg_", DispatchKey::CPU, |a: &mut T| -> Result<T, Error> {
///     let v = -*a.0.0.lock().unwrap();
///     *a.0.0.lock().unwrap() = v;
///     a.bump_version()?;
///     Ok(a.clone())
/// }).unwrap();
///
/// let op = d.find("demo::neg", "").unwrap();
/// let report = OpCheck::new(&d, &op, vec![IValue::Tensor(T::new(2.0))])
///     .compare_with(move |a, b| value(a) == value(b))
///     .run()
///     .unwrap();
/// assert_eq!(report.passed, [Check::Schema, Check::Variants]);
/// assert_eq!(report.variants, ["demo::neg_"]);
/// ```
pub struct OpCheck<'a, T: Tensor> {
    dispatcher: &'a Dispatcher,
    op: OperatorHandle,
    inputs: Vec<IValue<T>>,
    compare: Option<Compare<'a, T>>,
    typed: Option<TypedCall<'a, T>>,
}

impl<'a, T: Tensor> OpCheck<'a, T> {
    /// A check of `op` (an operator of `dispatcher`) with `inputs`: its arguments in schema
    /// order; missing trailing arguments take the schema's defaults.
    pub fn new(dispatcher: &'a Dispatcher, op: &OperatorHandle, inputs: Vec<IValue<T>>) -> Self {
        OpCheck {
            dispatcher,
            op: op.clone(),
            inputs,
            compare: None,
            typed: None,
        }
    }

    /// Compares tensor values with `same` (e.g. an `allclose`); without it, only shapes
    /// and dtypes are compared.
    pub fn compare_with(mut self, same: impl Fn(&T, &T) -> bool + 'a) -> Self {
        self.compare = Some(Box::new(same));
        self
    }

    /// A typed call of the operator (for instance through its generated function) taking the
    /// arguments and returning the returns, to check against the boxed call.
    pub fn typed(
        mut self,
        call: impl Fn(Vec<IValue<T>>) -> Result<Vec<IValue<T>>, Error> + 'a,
    ) -> Self {
        self.typed = Some(Box::new(call));
        self
    }

    /// Runs every check that applies; the first failure is returned.
    pub fn run(&self) -> Result<OpCheckReport, OpCheckFailure> {
        let operator = full_name(&self.op);
        let fail = |check: Check, message: String| OpCheckFailure {
            operator: operator.clone(),
            check,
            message,
        };
        let schema = self
            .op
            .schema()
            .ok_or_else(|| fail(Check::Schema, "the operator has no schema".into()))?;
        let mut inputs = Stack::from(self.inputs.clone());
        self.op
            .fill_defaults(&mut inputs)
            .map_err(|e| fail(Check::Schema, e.to_string()))?;
        let inputs = inputs.into_vec();
        let mut report = OpCheckReport {
            operator: operator.clone(),
            passed: Vec::new(),
            skipped: Vec::new(),
            variants: Vec::new(),
        };

        let outputs = self
            .check_schema(&schema, &inputs)
            .map_err(|m| fail(Check::Schema, m))?;
        report.passed.push(Check::Schema);

        match self.check_meta(&schema, &inputs, &outputs) {
            Ok(None) => report.passed.push(Check::Meta),
            Ok(Some(why)) => report.skipped.push((Check::Meta, why)),
            Err(m) => return Err(fail(Check::Meta, m)),
        }

        match &self.typed {
            Some(typed) => {
                let typed_out = typed(self.fresh(&inputs).map_err(|m| fail(Check::Typed, m))?)
                    .map_err(|e| fail(Check::Typed, format!("the typed call failed: {e}")))?;
                self.same_outputs(&outputs, &typed_out, "typed", "boxed")
                    .map_err(|m| fail(Check::Typed, m))?;
                report.passed.push(Check::Typed);
            }
            None => report
                .skipped
                .push((Check::Typed, "no typed call given".into())),
        }

        match self.check_variants(&schema, &inputs, &mut report.variants) {
            Ok(None) => report.passed.push(Check::Variants),
            Ok(Some(why)) => report.skipped.push((Check::Variants, why)),
            Err(m) => return Err(fail(Check::Variants, m)),
        }
        Ok(report)
    }

    /// Calls the operator on fresh inputs and compares version counters with the schema.
    fn check_schema(
        &self,
        schema: &Schema,
        inputs: &[IValue<T>],
    ) -> Result<Vec<IValue<T>>, String> {
        let args = self.fresh(inputs)?;
        let before: Vec<Vec<u64>> = args
            .iter()
            .map(|v| tensors_of(v).iter().map(|t| version(t)).collect())
            .collect::<Result<_, _>>()?;
        let untouched = self.fresh(inputs)?;
        let outputs = call(&self.op, args.clone())?;
        for (i, arg) in schema.arguments.iter().enumerate() {
            let (Some(value), Some(before)) = (args.get(i), before.get(i)) else {
                continue;
            };
            for (j, t) in tensors_of(value).iter().enumerate() {
                let now = version(t)?;
                let was = before.get(j).copied().unwrap_or(now);
                let place = element(&arg.name, j, tensors_of(value).len());
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
        // A return aliasing a written argument must be that argument.
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
            let (Some(IValue::Tensor(out)), Some(IValue::Tensor(arg))) =
                (outputs.get(r), args.get(i))
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
        Ok(outputs)
    }

    /// The same call on `Meta` copies of the inputs; `Ok(Some(why))` when skipped.
    fn check_meta(
        &self,
        schema: &Schema,
        inputs: &[IValue<T>],
        outputs: &[IValue<T>],
    ) -> Result<Option<String>, String> {
        if matches!(
            self.op.dispatch_table().get(DispatchKey::Meta),
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
        let meta_out = call(&self.op, args).map_err(|m| format!("on Meta: {m}"))?;
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

    /// In-place and out members of the group against the functional member.
    fn check_variants(
        &self,
        schema: &Schema,
        inputs: &[IValue<T>],
        called: &mut Vec<String>,
    ) -> Result<Option<String>, String> {
        let signature = schema.signature();
        let mut members: Vec<(SchemaKind, OperatorHandle, std::sync::Arc<Schema>)> = Vec::new();
        for op in self.dispatcher.operators() {
            if op.namespace() != self.op.namespace() {
                continue;
            }
            let Some(s) = op.schema() else { continue };
            if s.signature() == signature {
                members.push((s.kind(), op, s));
            }
        }
        // Functional, in-place, out, mutable; by name within a kind.
        members.sort_by_key(|(kind, op, _)| (*kind as u8, full_name(op)));
        let functional = members
            .iter()
            .find(|(k, _, _)| *k == SchemaKind::Functional);
        let Some((_, functional, fschema)) = functional else {
            return Ok(Some(
                "the operator's group has no functional operator".into(),
            ));
        };
        if members.len() < 2 {
            return Ok(Some("the operator has no in-place or out variant".into()));
        }
        // The functional arguments: the inputs without out arguments.
        let n = fschema.arguments.len().min(schema.out_start());
        let args: Vec<IValue<T>> = inputs.iter().take(n).cloned().collect();
        let expected = call(functional, self.fresh(&args)?)?;
        for (kind, op, s) in &members {
            let name = full_name(op);
            let got = match kind {
                SchemaKind::Inplace => {
                    let fresh = self.fresh(&args)?;
                    call(op, fresh.clone())?;
                    // The result is the written `self`.
                    let i = s.arguments.iter().position(|a| a.is_write()).unwrap_or(0);
                    fresh.get(i).cloned().into_iter().collect::<Vec<_>>()
                }
                SchemaKind::Out => {
                    let mut fresh = self.fresh(&args)?;
                    let mut outs = Vec::new();
                    for (k, out_arg) in s.out_arguments().iter().enumerate() {
                        let like = expected.get(k).and_then(IValue::as_tensor);
                        let Some(like) = like.filter(|_| out_arg.ty.is_tensor_like()) else {
                            return Ok(Some(format!("`{name}` has an out argument not a tensor")));
                        };
                        let options = like.options().map_err(|e| e.to_string())?;
                        // Empty out tensors, so the out kernel's resizing is checked too.
                        let out = T::empty(&[0], None, &options).map_err(|e| e.to_string())?;
                        outs.push(IValue::Tensor(out));
                    }
                    fresh.extend(outs.iter().cloned());
                    call(op, fresh)?;
                    outs
                }
                _ => continue,
            };
            self.same_outputs(&got, &expected, &name, &full_name(functional))?;
            called.push(name);
        }
        // `called` lists the other operators: the functional one when the operator under
        // check is a variant, and the variants.
        let me = full_name(&self.op);
        if full_name(functional) != me {
            called.insert(0, full_name(functional));
        }
        called.retain(|c| *c != me);
        Ok(None)
    }

    /// Fresh copies of every tensor of `values`.
    fn fresh(&self, values: &[IValue<T>]) -> Result<Vec<IValue<T>>, String> {
        values
            .iter()
            .map(|v| map_tensors(v, &mut deep_copy))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("copying the inputs failed: {e}"))
    }

    /// The tensors of `a` and `b` agree in sizes, dtype and (when compared) values.
    fn same_outputs(
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

fn full_name(op: &OperatorHandle) -> String {
    match op.overload() {
        "" => op.name().to_string(),
        o => format!("{}.{}", op.name(), o),
    }
}

fn call<T: Tensor>(op: &OperatorHandle, args: Vec<IValue<T>>) -> Result<Vec<IValue<T>>, String> {
    let mut stack = Stack::from(args);
    op.call_boxed(&mut stack)
        .map_err(|e| format!("calling `{}` failed: {e}", full_name(op)))?;
    Ok(stack.into_vec())
}

fn element(name: &str, j: usize, n: usize) -> String {
    if n > 1 {
        format!("{name}[{j}]")
    } else {
        name.to_string()
    }
}

/// The tensors held by a value (a tensor, a tensor list, an optional tensor list).
fn tensors_of<T: Tensor>(value: &IValue<T>) -> Vec<T> {
    match value {
        IValue::Tensor(t) => vec![t.clone()],
        IValue::TensorList(ts) => ts.to_vec(),
        IValue::OptionalTensorList(ts) => ts.iter().flatten().cloned().collect(),
        IValue::Tuple(vs) => vs.iter().flat_map(tensors_of).collect(),
        _ => Vec::new(),
    }
}

/// `value` with `f` applied to each tensor it holds.
fn map_tensors<T: Tensor>(
    value: &IValue<T>,
    f: &mut dyn FnMut(&T) -> Result<T, Error>,
) -> Result<IValue<T>, Error> {
    Ok(match value {
        IValue::Tensor(t) => IValue::Tensor(f(t)?),
        IValue::TensorList(ts) => IValue::TensorList(std::sync::Arc::new(
            ts.iter().map(&mut *f).collect::<Result<_, _>>()?,
        )),
        IValue::OptionalTensorList(ts) => IValue::OptionalTensorList(std::sync::Arc::new(
            ts.iter()
                .map(|t| t.as_ref().map(&mut *f).transpose())
                .collect::<Result<_, _>>()?,
        )),
        other => other.clone(),
    })
}

/// A value without tensors, to compare non-tensor returns.
fn plain<T: Tensor>(value: &IValue<T>) -> IValue<()> {
    match value {
        IValue::Bool(v) => IValue::Bool(*v),
        IValue::Int(v) => IValue::Int(*v),
        IValue::Float(v) => IValue::Float(*v),
        IValue::Complex(v) => IValue::Complex(v.clone()),
        IValue::Str(v) => IValue::Str(v.clone()),
        IValue::IntList(v) => IValue::IntList(v.clone()),
        IValue::FloatList(v) => IValue::FloatList(v.clone()),
        IValue::BoolList(v) => IValue::BoolList(v.clone()),
        IValue::ScalarList(v) => IValue::ScalarList(v.clone()),
        IValue::ScalarType(v) => IValue::ScalarType(*v),
        IValue::Layout(v) => IValue::Layout(*v),
        IValue::Device(v) => IValue::Device(*v),
        IValue::MemoryFormat(v) => IValue::MemoryFormat(*v),
        _ => IValue::None,
    }
}

fn deep_copy<T: Tensor>(t: &T) -> Result<T, Error> {
    let sizes = t.sizes()?;
    let strides = t.strides()?;
    let mut copy = T::empty(&sizes, Some(&strides), &t.options()?)?;
    copy.copy_(t)?;
    Ok(copy)
}

fn version<T: Tensor>(t: &T) -> Result<u64, String> {
    t.version().map_err(|e| e.to_string())
}

fn sizes<T: Tensor>(t: &T) -> Result<Vec<i64>, String> {
    t.sizes().map_err(|e| e.to_string())
}

fn dtype<T: Tensor>(t: &T) -> Result<String, String> {
    t.options()
        .map(|o| o.dtype_or_default().to_string())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests;
