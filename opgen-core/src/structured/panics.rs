//! Structured kernels and derived wrappers after a tensor hook panics: the next calls run
//! as if the panic had not happened (a meta context lives for one call only).

use std::panic::Location;

use super::*;
use crate::cross::panics::{PTensor, hook, panics_in};
use crate::dispatch::{DispatchKey as K, Dispatcher, Error, Registration, TypedOperator};

/// The `def`s of the three markers below (not linked: the tests register them), and the
/// table they name, as `op_table!` writes it for an expansion.
static NEG_OPS: &[crate::__private::LinkEntry] = &[
    crate::__private::LinkEntry::def("test::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"),
    crate::__private::LinkEntry::def("test::neg(Tensor self) -> Tensor"),
    crate::__private::LinkEntry::def("test::neg_(Tensor(a!) self) -> Tensor(a!)"),
];
crate::__opgen_op_table!(NegTable, NEG_OPS, 3);

/// `neg.out`'s marker, with the glue `#[native_function(.., structured)]` generates.
#[allow(non_camel_case_types)]
struct neg_out {}

impl Operator for neg_out {
    type Tensor = PTensor;
    type Args = (&'static PTensor, &'static mut PTensor);
    type Returns = PTensor;
    type Table = NegTable;
    const INDEX: usize = 0;
}

type NegImpl = fn(&PTensor, &mut PTensor) -> Result<(), Error>;

impl StructuredOp for neg_out {
    type Base = ();
    type Impl = NegImpl;
    type ImplSignature<R> = fn(&PTensor, &mut PTensor) -> R;
    type Inputs = (&'static PTensor,);
    type Precompute = ();
    const OUTPUTS: &'static [&'static str] = &["out"];
    fn meta(
        meta: &mut StructuredMeta<'_, PTensor>,
        inputs: &Inputs<'_, Self>,
    ) -> Result<(), Error> {
        neg_meta(meta, inputs.0)
    }
    fn imp(
        imp: NegImpl,
        _: &(),
        _: (),
        inputs: Inputs<'_, Self>,
        outs: &mut [PTensor],
    ) -> Result<(), Error> {
        let [out] = outputs("test::neg.out", outs)?;
        imp(inputs.0, out)
    }
    fn split(args: Args<'_, Self>) -> (Inputs<'_, Self>, Vec<&mut PTensor>) {
        ((args.0,), vec![args.1])
    }
    fn call_out(_: Inputs<'_, Self>, _: &mut [PTensor]) -> Result<(), Error> {
        Err(Error::internal("no composite kernel in this test"))
    }
}

/// The functional delegate `neg`.
#[allow(non_camel_case_types)]
struct neg {}

impl Operator for neg {
    type Tensor = PTensor;
    type Args = (&'static PTensor,);
    type Returns = PTensor;
    type Table = NegTable;
    const INDEX: usize = 1;
}

/// The in-place delegate `neg_`.
#[allow(non_camel_case_types)]
struct neg_ {}

impl Operator for neg_ {
    type Tensor = PTensor;
    type Args = (&'static mut PTensor,);
    type Returns = PTensor;
    type Table = NegTable;
    const INDEX: usize = 2;
}

impl InPlace<neg_out> for neg_ {
    fn in_place(args: Args<'_, Self>, run: &Run<'_, neg_out>) -> Result<PTensor, Error> {
        let (self_,) = args;
        let given = vec![self_.clone()];
        let [out] = outputs_owned("test::neg_", run(given, (&*self_,))?)?;
        *self_ = out;
        Ok(self_.clone())
    }
}

/// The meta function: one output of `self`'s shape and options.
fn neg_meta(meta: &mut StructuredMeta<'_, PTensor>, a: &PTensor) -> Result<(), Error> {
    meta.set_output(0, &a.sizes()?, a.options()?)
}

fn neg_impl(a: &PTensor, out: &mut PTensor) -> Result<(), Error> {
    hook("impl");
    out.set_data(a.data().iter().map(|x| -x).collect());
    Ok(())
}

type Unary = TypedOperator<PTensor, (&'static PTensor,), PTensor>;
type Out = TypedOperator<PTensor, (&'static PTensor, &'static mut PTensor), PTensor>;
type InPlaceOp = TypedOperator<PTensor, (&'static mut PTensor,), PTensor>;

fn ops(d: &Dispatcher, name: &str) -> (Unary, Out, InPlaceOp) {
    let full = format!("test::{name}");
    let inplace = format!("test::{name}_");
    (
        d.typed::<_, (&PTensor,), _>(&full, "").expect("functional"),
        d.typed::<_, (&PTensor, &mut PTensor), _>(&full, "out")
            .expect("out"),
        d.typed::<_, (&mut PTensor,), _>(&inplace, "")
            .expect("in-place"),
    )
}

const GROUP: [&str; 3] = [
    "(Tensor self) -> Tensor",
    ".out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "_(Tensor(a!) self) -> Tensor(a!)",
];

#[test]
fn structured_kernels_work_after_a_hook_panics() {
    let d = Dispatcher::new();
    let lib = d.library("test").expect("namespace");
    let _defs: Vec<Registration> = (GROUP.iter())
        .map(|rest| lib.def(&format!("neg{rest}")).expect("def"))
        .collect();
    let here = Location::caller();
    let _out = register_out::<neg_out>(&lib, K::CPU, Some(neg_impl), here).expect("out");
    let _functional = register_functional::<neg_out, neg>(&lib, here, false).expect("functional");
    let _inplace = register_in_place::<neg_out, neg_>(&lib, here, false).expect("in-place");
    let (neg, neg_out, neg_) = ops(&d, "neg");
    let (mut x, mut out) = (PTensor::cpu(&[1, 2]), PTensor::cpu(&[0]));
    for hook in ["sizes", "options", "empty", "impl"] {
        panics_in(hook, || neg.try_call(&x));
    }
    for hook in ["options", "resize_", "impl"] {
        panics_in(hook, || neg_out.try_call(&x, &mut out));
    }
    for hook in ["options", "sizes", "impl"] {
        panics_in(hook, || neg_.try_call(&mut x));
    }
    assert_eq!(neg.call(&x).data(), [-1, -2]);
    neg_out.call(&x, &mut out);
    assert_eq!(out.data(), [-1, -2]);
    neg_.call(&mut x);
    assert_eq!(x.data(), [-1, -2]);
}

#[test]
fn derived_wrappers_work_after_a_hook_panics() {
    let d = Dispatcher::new();
    let lib = d.library("test").expect("namespace");
    let _defs: Vec<Registration> = (GROUP.iter())
        .map(|rest| lib.def(&format!("abs{rest}")).expect("def"))
        .collect();
    let _cpu = lib
        .impl_("abs", K::CPU, |a: &PTensor| {
            PTensor::cpu(&a.data().iter().map(|x| x.abs()).collect::<Vec<_>>())
        })
        .expect("functional");
    let (_wrappers, errors) = derive_wrappers(&d);
    assert!(errors.is_empty(), "{errors:?}");
    let (_abs, abs_out, abs_) = ops(&d, "abs");
    let (mut x, mut out) = (PTensor::cpu(&[-1, 2]), PTensor::cpu(&[]));
    for hook in ["sizes", "resize_", "copy_"] {
        panics_in(hook, || abs_out.try_call(&x, &mut out));
    }
    for hook in ["sizes", "copy_"] {
        panics_in(hook, || abs_.try_call(&mut x));
    }
    abs_out.call(&x, &mut out);
    assert_eq!(out.data(), [1, 2]);
    abs_.call(&mut x);
    assert_eq!(x.data(), [1, 2]);
}
