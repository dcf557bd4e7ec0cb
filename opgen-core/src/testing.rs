//! Checking operators for library authors: [`OpCheck`], the counterpart of PyTorch's
//! `torch.library.opcheck`.
//!
//! Given an operator and sample inputs, [`OpCheck::run`] calls the operator through the
//! dispatcher and checks what a kernel author most easily gets wrong:
//!
//! * **schema**: the tensors the schema marks written (`Tensor(a!)`) are the ones whose
//!   version counters changed, and no other; with a value comparison
//!   ([`OpCheck::compare_with`]), the values of unwritten tensors did not change either;
//!   a return annotated as an alias of a written argument (`-> Tensor(a!)`) is that
//!   argument; a return annotated as a view of an argument (`Tensor(a) self -> Tensor(a)`)
//!   shares its storage: a write through the return shows in the argument and a write to
//!   the argument shows in the return, so a kernel that returns a copy for a view operator
//!   fails; and an operator that writes nothing does not return one of its arguments itself
//!   (PyTorch's rule for operators below autograd). Operators served by a
//!   `CompositeImplicitAutograd` kernel may return a copy where the schema allows a view
//!   (`reshape`, `contiguous`), as in PyTorch, and are exempt from the last two;
//! * **meta**: when the operator has a kernel that serves `Meta`, the same call on `Meta`
//!   copies of the inputs gives `Meta` outputs of the same shapes and dtypes as the real
//!   call (an operator without tensor inputs, a factory, is called with `device=meta`);
//! * **typed**: a typed call ([`OpCheck::typed`], e.g. through the generated function) gives
//!   what the boxed call gives;
//! * **variants**: the in-place and out operators of the operator's group (same
//!   [grouping signature](crate::schema::Schema::signature)) give what the functional one
//!   gives; out tensors start empty, so their resizing is checked too;
//! * **autograd** (asked for with [`OpCheck::autograd`], for a tensor type that takes part
//!   in autograd): when the operator has an Autograd kernel, the call with its
//!   floating-point inputs requiring grad gives what the call below autograd gives and records
//!   an output, and gradcheck passes (the backward formulas against finite differences, in
//!   double precision); an out operator refuses inputs that require grad.
//!
//! The schema and meta checks run on every operator of the group, not only on the one
//! checked, so checking `add` or `add_` or `add.out` gives the same verdict: the one of
//! checking each of them. A failure in another operator of the group names it.
//!
//! Every call gets fresh copies of the inputs (`Tensor::empty` + `Tensor::copy_`), so the
//! sample inputs are never modified. The tensor type needs the hooks `sizes`, `strides`,
//! `options`, `empty`, `copy_` and `version` (and `is_same` for the alias checks,
//! `to_device` for the meta check); the view check writes through views with `empty` and
//! `copy_` and reads values with the [`OpCheck::compare_with`] function. A missing hook
//! fails the check that needs it, with an error naming the hook; what a passed check could
//! not look at (views without `compare_with`, for instance) is listed in
//! [`OpCheckReport::unchecked`].

use std::fmt;

mod autograd;
mod gradcheck;
mod meta;
mod schema;
#[cfg(test)]
mod tests;
mod values;
mod variants;
mod views;

pub use gradcheck::{GradcheckError, GradcheckOptions, GradcheckTensor, gradcheck, gradgradcheck};

use crate::dispatch::{Dispatcher, Error, IValue, OperatorHandle, Stack, Tensor};
use crate::schema::{Schema, SchemaKind};

use schema::Called;
use values::{deep_copy, full_name, map_tensors};
use variants::{Member, group};

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
    /// The Autograd kernel against the forward, its gradients against gradcheck.
    Autograd,
}

impl Check {
    /// The check's name: `schema`, `meta`, `typed`, `variants`, `autograd`.
    pub fn name(self) -> &'static str {
        match self {
            Check::Schema => "schema",
            Check::Meta => "meta",
            Check::Typed => "typed",
            Check::Variants => "variants",
            Check::Autograd => "autograd",
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
    /// What the checks that passed could not look at, with why (the views of an operator
    /// checked without [`OpCheck::compare_with`], for instance).
    pub unchecked: Vec<(Check, String)>,
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
type AutogradCheck<'a, T> = Box<
    dyn Fn(
            &OperatorHandle,
            &Schema,
            &[IValue<T>],
            &dyn Fn(&T, &T) -> bool,
        ) -> Result<Option<String>, String>
        + 'a,
>;

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
    autograd: Option<AutogradCheck<'a, T>>,
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
            autograd: None,
        }
    }

    /// Adds the autograd check (see the [module documentation](self)), for a tensor type
    /// that takes part in autograd.
    pub fn autograd(mut self) -> Self
    where
        T: GradcheckTensor,
    {
        let dispatcher = self.dispatcher;
        self.autograd = Some(Box::new(move |op, schema, inputs, same| {
            autograd::check(dispatcher, op, schema, inputs, same)
        }));
        self
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
            unchecked: Vec::new(),
        };

        let mine = self
            .check_schema(&self.op, &schema, &inputs, &mut report.unchecked)
            .map_err(|m| fail(Check::Schema, m))?;
        let group = self.call_group(&schema, &inputs, &mine, &mut report)?;
        report.passed.push(Check::Schema);

        match self.check_meta(&self.op, &schema, &inputs, &mine.outputs) {
            Ok(None) => report.passed.push(Check::Meta),
            Ok(Some(why)) => report.skipped.push((Check::Meta, why)),
            Err(m) => return Err(fail(Check::Meta, m)),
        }
        for (m, member_inputs, called) in &group.called {
            self.check_meta(&m.op, &m.schema, member_inputs, &called.outputs)
                .map_err(|e| fail(Check::Meta, format!("{}: {e}", describe(m))))?;
        }

        match &self.typed {
            Some(typed) => {
                let typed_out = typed(self.fresh(&inputs).map_err(|m| fail(Check::Typed, m))?)
                    .map_err(|e| fail(Check::Typed, format!("the typed call failed: {e}")))?;
                self.same_outputs(&mine.outputs, &typed_out, "typed", "boxed")
                    .map_err(|m| fail(Check::Typed, m))?;
                report.passed.push(Check::Typed);
            }
            None => report
                .skipped
                .push((Check::Typed, "no typed call given".into())),
        }

        match self.compare_group(&schema, &mine, &group) {
            Ok(None) => report.passed.push(Check::Variants),
            Ok(Some(why)) => report.skipped.push((Check::Variants, why)),
            Err(m) => return Err(fail(Check::Variants, m)),
        }
        report.variants = group.called_names(&operator);

        match &self.autograd {
            Some(check) => {
                let same_shape = |a: &T, b: &T| a.sizes().ok() == b.sizes().ok();
                let same: &dyn Fn(&T, &T) -> bool = match &self.compare {
                    Some(c) => c.as_ref(),
                    None => &same_shape,
                };
                match check(&self.op, &schema, &inputs, same) {
                    Ok(None) => report.passed.push(Check::Autograd),
                    Ok(Some(why)) => report.skipped.push((Check::Autograd, why)),
                    Err(m) => return Err(fail(Check::Autograd, m)),
                }
            }
            None => report
                .skipped
                .push((Check::Autograd, "not asked for (OpCheck::autograd)".into())),
        }
        Ok(report)
    }

    /// Calls every other in-place and out operator of the group (and the functional one),
    /// each through the schema check.
    fn call_group(
        &self,
        schema: &Schema,
        inputs: &[IValue<T>],
        mine: &Called<T>,
        report: &mut OpCheckReport,
    ) -> Result<Group<T>, OpCheckFailure> {
        let fail = |message: String| OpCheckFailure {
            operator: report.operator.clone(),
            check: Check::Schema,
            message,
        };
        let members = group(self.dispatcher, &self.op, schema);
        let me = full_name(&self.op);
        let mut g = Group {
            functional: None,
            called: Vec::new(),
            not_called: Vec::new(),
            size: members.len(),
        };
        let Some(f) = members
            .iter()
            .position(|m| m.kind == SchemaKind::Functional)
        else {
            return Ok(g);
        };
        // The functional arguments: the inputs without out arguments.
        let n = members[f].schema.arguments.len().min(schema.out_start());
        let functional_args: Vec<IValue<T>> = inputs.iter().take(n).cloned().collect();
        let mut members = members;
        let functional = members.remove(f);
        let expected = if functional.name == me {
            mine.outputs.clone()
        } else {
            let called = self
                .check_schema(
                    &functional.op,
                    &functional.schema,
                    &functional_args,
                    &mut report.unchecked,
                )
                .map_err(|e| fail(format!("the functional variant `{}`: {e}", functional.name)))?;
            let outputs = called.outputs.clone();
            g.called
                .push((functional.clone(), functional_args.clone(), called));
            outputs
        };
        // The checked operator is called again only if it is an out operator: the sample
        // out tensors may differ from the empty ones the group's call uses (another dtype,
        // which an out kernel may cast to), and every member's check makes the same calls.
        for m in (members.into_iter()).filter(|m| m.name != me || m.kind == SchemaKind::Out) {
            let args = match self.member_inputs(&m, &functional_args, &expected) {
                Ok(args) => args,
                Err(why) => {
                    g.not_called.push(why);
                    continue;
                }
            };
            let called = self
                .check_schema(&m.op, &m.schema, &args, &mut report.unchecked)
                .map_err(|e| fail(format!("{}: {e}", describe(&m))))?;
            g.called.push((m, args, called));
        }
        g.functional = Some((functional, expected));
        Ok(g)
    }

    /// The variants check: every in-place and out operator of the group (the checked one
    /// included) against the functional one; `Ok(Some(why))` when it does not apply.
    fn compare_group(
        &self,
        schema: &Schema,
        mine: &Called<T>,
        group: &Group<T>,
    ) -> Result<Option<String>, String> {
        let Some((functional, expected)) = &group.functional else {
            return Ok(Some(
                "the operator's group has no functional operator".into(),
            ));
        };
        if group.size < 2 {
            return Ok(Some("the operator has no in-place or out variant".into()));
        }
        if let Some(why) = group.not_called.first() {
            return Ok(Some(why.clone()));
        }
        let me = Member {
            kind: schema.kind(),
            op: self.op.clone(),
            schema: std::sync::Arc::new(schema.clone()),
            name: full_name(&self.op),
        };
        let mine = (me.kind == SchemaKind::Inplace).then_some((&me, mine));
        let others = group.called.iter().map(|(m, _, c)| (m, c));
        for (m, called) in mine.into_iter().chain(others) {
            if matches!(m.kind, SchemaKind::Inplace | SchemaKind::Out) {
                let got = Self::result_of(m, called);
                self.same_outputs(&got, expected, &m.name, &functional.name)?;
            }
        }
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
}

/// The other operators of the checked one's group, as called.
struct Group<T> {
    /// The functional operator and its returns (what the others must give).
    functional: Option<(Member, Vec<IValue<T>>)>,
    /// The other operators called: each with its inputs and its call.
    called: Vec<(Member, Vec<IValue<T>>, Called<T>)>,
    /// Why an operator of the group could not be called.
    not_called: Vec<String>,
    /// How many operators the group has, the checked one included.
    size: usize,
}

impl<T> Group<T> {
    /// The operators called besides `me`: the functional one first, then the others.
    fn called_names(&self, me: &str) -> Vec<String> {
        let mut names: Vec<String> = self.called.iter().map(|(m, _, _)| m.name.clone()).collect();
        names.retain(|n| n != me);
        names
    }
}

/// `the in-place variant `t::double_``, for messages about another operator of the group.
fn describe(m: &Member) -> String {
    let kind = match m.kind {
        SchemaKind::Functional => "the functional variant",
        SchemaKind::Inplace => "the in-place variant",
        SchemaKind::Out => "the out variant",
        SchemaKind::Mutable | SchemaKind::Scratch => "the variant",
    };
    format!("{kind} `{}`", m.name)
}
