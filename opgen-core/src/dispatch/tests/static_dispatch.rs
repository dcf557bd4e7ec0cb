//! Static dispatch: the kernel for the highest backend key of the arguments, then the
//! composite kernels in torchgen's order, without tables, thread-local keys or autograd.

use super::*;
use crate::__private::{LINK_ENTRIES, LinkEntry as Entry};
use crate::dispatch::static_dispatch::StaticOperator;
use crate::dispatch::{DispatchKey as K, ErrorKind, IncludeDispatchKeyGuard, Scalar, Site};

type Families = (&'static TestTensor, &'static TestTensor, Scalar);
type AddOp = StaticOperator<TestTensor, Families, TestTensor>;

/// A kernel that answers with a tag naming itself, and the arguments' keys.
macro_rules! tagged {
    ($name:ident, $tag:literal) => {
        fn $name(lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error> {
            lib.impl_at(
                "add.Tensor",
                key,
                |ks: DispatchKeySet, _a: &TestTensor, _b: &TestTensor, _alpha: Scalar| {
                    TestTensor(Arc::new((ks, $tag)))
                },
                site,
            )
        }
    };
}
tagged!(cpu, 1);
tagged!(meta, 2);
tagged!(cea, 3);
tagged!(ceanf, 4);
tagged!(cia, 5);
tagged!(autograd, 6);

/// `add.Tensor` in the tests' namespace `t`, as a link entry writes it.
const T_ADD: &str = "t::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";

/// An entry of `t::add.Tensor`: its `def` (with `schema`) or a kernel only.
const fn entry(
    schema: Option<&'static str>,
    keys: &'static [DispatchKey],
    register: fn(&Library, DispatchKey, Site) -> Result<Registration, Error>,
) -> Entry {
    match schema {
        Some(schema) => Entry::def(schema).with_kernel(keys, register),
        None => Entry::kernel("t::add.Tensor", keys, register),
    }
}

fn build(entries: &[Entry]) -> AddOp {
    AddOp::build("t::add", "Tensor", entries, &[]).unwrap()
}

fn tag(op: &AddOp, keys: &[DispatchKey]) -> Result<i64, Error> {
    let t = TestTensor::new(keys, 0);
    op.try_call(&t, &t, Scalar::Int(1)).map(|r| r.value())
}

#[test]
fn the_highest_backend_key_picks_the_kernel() {
    static ENTRIES: [Entry; 3] = [
        entry(Some(T_ADD), &[K::CPU], cpu),
        entry(None, &[K::Meta], meta),
        entry(None, &[K::AutogradCPU, K::AutogradMeta], autograd),
    ];
    let op = build(&ENTRIES);
    assert_eq!(tag(&op, &[K::CPU]).unwrap(), 1);
    assert_eq!(tag(&op, &[K::Meta]).unwrap(), 2);
    assert_eq!(tag(&op, &[K::CPU, K::Meta]).unwrap(), 2);
    // Autograd keys, and thread-local keys, play no part.
    assert_eq!(tag(&op, &[K::CPU, K::AutogradCPU]).unwrap(), 1);
    let _tls = IncludeDispatchKeyGuard::new(K::Meta);
    assert_eq!(tag(&op, &[K::CPU]).unwrap(), 1);
    // The autograd kernels are not among those static dispatch can call.
    assert_eq!(op.keys_with_kernels(), [K::CPU, K::Meta]);
}

#[test]
fn the_kernel_receives_the_keys_of_the_arguments() {
    static ENTRIES: [Entry; 1] = [entry(Some(T_ADD), &[K::CPU], cpu)];
    let op = build(&ENTRIES);
    let a = TestTensor::new(&[K::CPU, K::AutogradCPU], 0);
    let b = TestTensor::new(&[K::CPU, K::Tracer], 0);
    let out = op.call(&a, &b, Scalar::Int(1));
    assert_eq!(out.key_set(), a.key_set() | b.key_set());
}

#[test]
fn composites_serve_in_torchgens_order() {
    static ALL: [Entry; 4] = [
        entry(Some(T_ADD), &[K::CompositeImplicitAutograd], cia),
        entry(None, &[K::CompositeExplicitAutogradNonFunctional], ceanf),
        entry(None, &[K::CompositeExplicitAutograd], cea),
        entry(None, &[K::CPU], cpu),
    ];
    let op = build(&ALL);
    assert_eq!(tag(&op, &[K::CPU]).unwrap(), 1);
    assert_eq!(tag(&op, &[K::CUDA]).unwrap(), 3);
    // Without a backend key (no tensor carries one), the composite kernel still serves.
    assert_eq!(tag(&op, &[K::Tracer]).unwrap(), 3);
    assert_eq!(tag(&op, &[]).unwrap(), 3);
    let op = build(&ALL[..2]);
    assert_eq!(tag(&op, &[K::CUDA]).unwrap(), 4);
    let op = build(&ALL[..1]);
    assert_eq!(tag(&op, &[K::SparseCPU]).unwrap(), 5);
}

#[test]
fn no_kernel_is_an_error_naming_the_key_and_the_kernels() {
    static ENTRIES: [Entry; 2] = [
        entry(Some(T_ADD), &[K::CPU], cpu),
        entry(None, &[K::AutogradMeta], autograd),
    ];
    let op = build(&ENTRIES);
    let error = tag(&op, &[K::Meta, K::AutogradMeta]).unwrap_err();
    assert!(matches!(
        error.kind(),
        ErrorKind::StaticDispatchMissingKernel {
            key: Some(K::Meta),
            ..
        }
    ));
    assert_eq!(
        error.to_string(),
        "Static dispatch does not support t::add.Tensor for Meta. The kernels linked into the program \
         serve: [CPU]; link one for `Meta`"
    );
    assert_eq!(
        message(tag(&build(&[]), &[])),
        "Static dispatch does not support t::add.Tensor for Undefined. No kernels of `t::add.Tensor` are \
         linked into the program"
    );
}

#[test]
fn a_signature_that_does_not_fit_the_schema_is_an_error() {
    static ENTRIES: [Entry; 1] = [entry(Some(T_ADD), &[K::CPU], cpu)];
    let wrong = StaticOperator::<TestTensor, (&'static TestTensor,), TestTensor>::build(
        "t::add",
        "Tensor",
        &ENTRIES,
        &[],
    );
    let error = wrong.map(|_| ()).unwrap_err();
    assert!(
        matches!(error.kind(), ErrorKind::TypedSignature { .. }),
        "{error}"
    );
}

#[test]
fn a_kernel_that_does_not_fit_is_left_out_and_reported() {
    fn narrow(lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error> {
        lib.impl_at("add.Tensor", key, |a: &TestTensor| a.clone(), site)
    }
    static ENTRIES: [Entry; 2] = [
        entry(Some(T_ADD), &[K::CPU], cpu),
        entry(None, &[K::Meta], narrow),
    ];
    let op = build(&ENTRIES);
    assert_eq!(op.errors().len(), 1);
    assert_eq!(op.keys_with_kernels(), [K::CPU]);
    assert!(tag(&op, &[K::Meta]).is_err());
}

// Through `StaticOperator`, on the entries this test binary links.

// linkme's element is a `#[link_section]` static, which `unsafe_code` counts.
#[allow(unsafe_code)]
#[linkme::distributed_slice(LINK_ENTRIES)]
static LINKED_ADD: &[Entry] = &[Entry::def(
    "opgen_static_test::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
)
.with_kernel(&[K::CPU], linked_cpu)];

fn linked_cpu(lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error> {
    lib.impl_at(
        "add.Tensor",
        key,
        |a: &TestTensor, b: &TestTensor, alpha: Scalar| {
            TestTensor::cpu(a.value() + alpha.to_i64().unwrap_or(0) * b.value())
        },
        site,
    )
}

#[test]
fn a_static_operator_is_built_from_the_linked_entries() {
    let op = AddOp::build(
        "opgen_static_test::add",
        "Tensor",
        crate::__private::link_entries(),
        &crate::__private::DEFERRED,
    )
    .unwrap();
    let (a, b) = (TestTensor::cpu(1), TestTensor::cpu(2));
    assert_eq!(op.call(&a, &b, Scalar::Int(3)).value(), 7);
    assert_eq!(op.name(), "opgen_static_test::add.Tensor");
}
