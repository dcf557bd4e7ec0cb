//! Structured kernels and derived wrappers after a tensor hook panics: the next calls run
//! as if the panic had not happened (a meta context lives for one call only).

use std::panic::Location;

use super::*;
use crate::cross::panics::{PTensor, hook, panics_in};
use crate::dispatch::{DispatchKey as K, Dispatcher, Error, TypedOperator};

/// `neg.out` as the marker type `#[native_function(.., structured)]` generates.
struct StructuredNegOut;

type NegImpl = fn(&PTensor, &mut PTensor) -> Result<(), Error>;

impl StructuredOp for StructuredNegOut {
    type Tensor = PTensor;
    type Base = ();
    type Impl = NegImpl;
    type ImplSignature<R> = fn(&PTensor, &mut PTensor) -> R;
    const OPERATOR: &'static str = "test::neg.out";
    const OUTPUTS: &'static [&'static str] = &["out"];
    fn register_out(
        lib: &Library,
        key: DispatchKey,
        imp: Option<NegImpl>,
        site: Site,
    ) -> Result<Registration, Error> {
        let kernel = move |a: &PTensor, out: &mut PTensor| {
            let outputs = run_meta(Mode::Out, a, vec![out.clone()])?;
            if let (Some(imp), Some(out)) = (imp, outputs.first()) {
                imp(a, &mut out.clone())?;
            }
            outputs
                .into_iter()
                .next()
                .ok_or_else(|| Error::from("no output"))
        };
        register_structured_out::<Self, _>(lib, key, kernel, imp, site)
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

/// Runs the meta function in `mode` (what every generated structured kernel does first).
fn run_meta(mode: Mode, a: &PTensor, given: Vec<PTensor>) -> Result<Vec<PTensor>, Error> {
    let mut meta = StructuredMeta::new("test::neg.out", K::CPU, mode, &["out"], given)?;
    neg_meta(&mut meta, a)?;
    Ok(meta.finish()?.1)
}

/// The kernel of a delegate (`neg`, `neg_`) in `mode`: meta, then the impl.
fn delegate(mode: Mode, a: &PTensor) -> Result<PTensor, Error> {
    let given = match mode {
        Mode::InPlace => vec![a.clone()],
        _ => Vec::new(),
    };
    let [mut out] =
        outputs_array::<PTensor, 1>("test::neg.out", K::CPU, run_meta(mode, a, given)?)?;
    neg_impl(a, &mut out)?;
    Ok(out)
}

type Unary = TypedOperator<PTensor, (&'static PTensor,), PTensor>;
type Out = TypedOperator<PTensor, (&'static PTensor, &'static mut PTensor), PTensor>;
type InPlace = TypedOperator<PTensor, (&'static mut PTensor,), PTensor>;

fn ops(d: &Dispatcher, name: &str) -> (Unary, Out, InPlace) {
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
    let _out = StructuredNegOut::register_out(&lib, K::CPU, Some(neg_impl), here).expect("out");
    let _functional = lib
        .impl_("neg", K::CPU, |a: &PTensor| delegate(Mode::Functional, a))
        .expect("functional");
    let _inplace = lib
        .impl_("neg_", K::CPU, |a: &mut PTensor| delegate(Mode::InPlace, a))
        .expect("in-place");
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
