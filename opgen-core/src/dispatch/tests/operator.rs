//! Operators declared at compile time (`Operator` markers), kernels over argument tuples,
//! the generic registration functions generated code calls, and link entries built by their
//! `const` constructors.

use super::*;
use crate::__private::{LINK_ENTRIES, LinkEntry, backend_select, impl_kernel, impl_kernel_of};
use crate::dispatch::registry::link::link;
use crate::dispatch::{
    ArgTuple, DispatchKey as K, IValue, Operator, OperatorName, ScalarType, Stack, TupleKernel,
};

/// The marker generated code would write for `optest::neg`.
#[allow(non_camel_case_types)]
struct neg {}

impl Operator for neg {
    type Tensor = TestTensor;
    type Args = (&'static TestTensor,);
    type Returns = TestTensor;
    type Table = OptestTable;
    const INDEX: usize = 0;
}

/// A marker of `optest::neg` whose declared arguments are not its schema's.
#[allow(non_camel_case_types)]
struct neg_mislabeled {}

impl Operator for neg_mislabeled {
    type Tensor = TestTensor;
    type Args = (&'static TestTensor, i64);
    type Returns = TestTensor;
    type Table = MislabeledTable;
    const INDEX: usize = 0;
}

// Its own table (not linked), so that nothing it caches is `neg`'s.
static MISLABELED: &[LinkEntry] = &[LinkEntry::def("optest::neg(Tensor self) -> Tensor")];
crate::__opgen_op_table!(MislabeledTable, MISLABELED, 1);

fn neg_cpu(t: &TestTensor) -> TestTensor {
    TestTensor::cpu(-t.value())
}

/// A factory: `BackendSelect` picks the kernel from `device`.
#[allow(non_camel_case_types)]
struct make {}

impl Operator for make {
    type Tensor = TestTensor;
    type Args = (
        i64,
        Option<ScalarType>,
        Option<crate::dispatch::Layout>,
        Option<crate::dispatch::Device>,
        Option<bool>,
    );
    type Returns = TestTensor;
    type Table = OptestTable;
    const INDEX: usize = 1;
}

fn make_cpu(
    v: i64,
    _: Option<ScalarType>,
    _: Option<crate::dispatch::Layout>,
    _: Option<crate::dispatch::Device>,
    _: Option<bool>,
) -> TestTensor {
    TestTensor::new(&[K::CPU], v)
}

fn make_meta(
    v: i64,
    _: Option<ScalarType>,
    _: Option<crate::dispatch::Layout>,
    _: Option<crate::dispatch::Device>,
    _: Option<bool>,
) -> TestTensor {
    TestTensor::new(&[K::Meta], v)
}

// The table the markers above name, as `op_table!` writes it for an expansion: the group's
// entries (the `def` of `neg` at 0, of `make` at 1), a cache for each.
crate::__opgen_op_table!(OptestTable, OPTEST, 2);

// linkme's element is a `#[link_section]` static, which `unsafe_code` counts.
#[allow(unsafe_code)]
#[linkme::distributed_slice(LINK_ENTRIES)]
#[linkme(crate = linkme)]
static OPTEST: &[LinkEntry] = &[
    LinkEntry::def("optest::neg(Tensor self) -> Tensor")
        .with_kernel(&[K::CPU], |lib, key, site| {
            impl_kernel_of::<neg, _, _>(lib, key, neg_cpu, site)
        }),
    LinkEntry::def(
        "optest::make(int value, *, ScalarType? dtype=None, Layout? layout=None, \
         Device? device=None, bool? pin_memory=None) -> Tensor",
    )
    .backend_select(backend_select::<make>)
    .with_kernel(&[K::CPU], |lib, key, site| {
        impl_kernel::<TestTensor, _, _>(lib, "make", key, make_cpu, site)
    }),
];

// A kernel attached by marker, in a group of its own (as `op = optest::make` would write it
// in another expansion: the marker's schema is read from its table's group, OPTEST).
#[allow(unsafe_code)]
#[linkme::distributed_slice(LINK_ENTRIES)]
#[linkme(crate = linkme)]
static OPTEST_KERNELS: &[LinkEntry] = &[LinkEntry::kernel_of::<make>(
    &[K::Meta],
    |lib, key, site| impl_kernel_of::<make, _, _>(lib, key, make_meta, site),
)];

#[test]
fn names_come_from_the_schema_in_const_context() {
    const NAME: OperatorName = OperatorName::of("ns::add_.Tensor(Tensor(a!) self) -> Tensor(a!)");
    assert_eq!(
        (NAME.namespace, NAME.qualified, NAME.overload, NAME.full),
        ("ns", "ns::add_", "Tensor", "add_.Tensor")
    );
    assert_eq!(neg::name().full, "neg");
    let entry = &OPTEST[0];
    assert_eq!(
        (entry.name().namespace, entry.name().full, entry.keys),
        ("optest", "neg", &[K::CPU][..])
    );
    assert_eq!(entry.schema(), Some("neg(Tensor self) -> Tensor"));
    assert_eq!(entry.site.file(), file!());
    assert!(entry.defines && entry.variants.function && !entry.variants.method);
}

#[test]
fn markers_call_and_redispatch_through_the_global_dispatcher() {
    let t = TestTensor::cpu(5);
    let ks = DispatchKeySet::from_key(K::CPU);
    // The first use of the marker (no other test calls it) is a redispatch: it looks the
    // handle up; the calls after it find it cached.
    assert_eq!(neg::redispatch(ks, (&t,)).unwrap().value(), -5);
    assert_eq!(neg::call((&t,)).unwrap().value(), -5);
    let generated: Result<TestTensor, Error> =
        crate::__private::call::<neg, TestTensor, _, _>((&t,));
    assert_eq!(generated.unwrap().value(), -5);
    assert_eq!(neg::redispatch(ks, (&t,)).unwrap().value(), -5);
    // The typed handle is the global dispatcher's, looked up once.
    assert!(std::ptr::eq(neg::typed().unwrap(), neg::typed().unwrap()));
    let meta = TestTensor::new(&[K::Meta], 1);
    let err = message(neg::call((&meta,)));
    assert!(err.contains("optest::neg") && err.contains("Meta"), "{err}");
}

#[test]
fn a_generated_call_of_another_signature_than_its_markers_is_an_error_value() {
    let t = TestTensor::cpu(2);
    // The handle is looked up and cached with the marker's signature first.
    assert_eq!(neg::call((&t,)).unwrap().value(), -2);
    // The cached handle is not viewed with another argument list or return type: the
    // schema's check names both signatures.
    let extra: Result<TestTensor, Error> =
        crate::__private::call::<neg, TestTensor, _, _>((&t, 3_i64));
    let err = message(extra);
    assert!(
        err.starts_with("Tried to access or call an operator with a wrong signature")
            && err.contains("optest::neg")
            && err.contains("(&TestTensor, i64) -> TestTensor"),
        "{err}"
    );
    let returns: Result<i64, Error> = crate::__private::call::<neg, TestTensor, _, _>((&t,));
    let err = message(returns);
    assert!(
        err.contains("wrong signature") && err.contains("-> i64"),
        "{err}"
    );
    // A call that fits the schema but not what the marker declares is an error too.
    let fits: Result<TestTensor, Error> =
        crate::__private::call::<neg_mislabeled, TestTensor, _, _>((&t,));
    let err = message(fits);
    assert!(
        err.contains("`optest::neg` was called as `(&TestTensor) -> TestTensor`")
            && err.contains("neg_mislabeled")
            && err.contains("declares `(&TestTensor, i64) -> TestTensor`"),
        "{err}"
    );
    // The marker's own calls are checked against the schema when the handle is looked up,
    // and nothing wrong is cached.
    let err = message(neg_mislabeled::call((&t, 1)));
    assert!(err.contains("wrong signature"), "{err}");
    assert!(message(neg_mislabeled::typed()).contains("wrong signature"));
    // The right signature still calls the kernel.
    assert_eq!(neg::call((&t,)).unwrap().value(), -2);
}

#[test]
fn backend_select_dispatches_factories_by_device() {
    let meta: crate::dispatch::Device = "meta".parse().unwrap();
    let made = make::call((3, None, None, Some(meta), None)).unwrap();
    assert_eq!((made.key_set(), made.value()), (K::Meta.into(), 3));
    let made = make::call((4, None, None, None, None)).unwrap();
    assert_eq!(made.key_set(), K::CPU.into());
    // In a dispatcher of its own, the generated kernel redispatches boxed.
    let d = Dispatcher::new();
    let linked = link(&d, OPTEST.iter().chain(OPTEST_KERNELS));
    assert!(linked.errors().is_empty(), "{:?}", linked.errors());
    let op = d.find("optest::make", "").unwrap();
    let mut stack: Stack<TestTensor> = Stack::from(vec![IValue::Int(7)]);
    op.fill_defaults(&mut stack).unwrap();
    stack[3] = IValue::Device(meta);
    op.call_boxed(&mut stack).unwrap();
    let made = stack.pop().and_then(IValue::into_tensor).unwrap();
    assert_eq!((made.key_set(), made.value()), (K::Meta.into(), 7));
}

#[test]
fn tuple_kernels_serve_typed_and_boxed_calls() {
    let (d, lib, _def) = setup("scale(Tensor self, int factor) -> int");
    let kernel =
        TupleKernel::<(&'static TestTensor, i64), _>::new(|_ks, (t, f): (&TestTensor, i64)| {
            Ok(t.value() * f)
        });
    let _cpu = lib.impl_("scale", K::CPU, kernel).unwrap();
    let typed = d
        .typed::<TestTensor, (&TestTensor, i64), i64>("test::scale", "")
        .unwrap();
    assert_eq!(typed.call(&TestTensor::cpu(6), 7), 42);
    let mut stack = Stack::from(vec![IValue::Tensor(TestTensor::cpu(2)), IValue::Int(3)]);
    d.find("test::scale", "")
        .unwrap()
        .call_boxed(&mut stack)
        .unwrap();
    assert!(matches!(stack.pop(), Some(IValue::Int(6))));
    // A signature that does not fit the schema is refused when it registers.
    let wrong =
        TupleKernel::<(&'static TestTensor,), _>::new(|_ks, (t,): (&TestTensor,)| Ok(t.value()));
    assert!(message(lib.impl_("scale", K::Meta, wrong)).contains("parameters"));
}

#[test]
fn argument_tuples_box_and_see_devices() {
    let t = TestTensor::cpu(1);
    let args: <(&'static TestTensor, i64, Option<ScalarType>) as ArgTuple<TestTensor>>::Borrowed<
        '_,
    > = (&t, 2, Some(ScalarType::Long));
    let ks =
        <(&'static TestTensor, i64, Option<ScalarType>) as ArgTuple<TestTensor>>::key_set(&args);
    assert_eq!(ks, K::CPU.into());
    let devices =
        <(&'static TestTensor, i64, Option<ScalarType>) as ArgTuple<TestTensor>>::device_args(
            &args,
        );
    assert!(matches!(
        devices[0],
        crate::dispatch::device::DeviceArg::Tensor(_)
    ));
    assert!(matches!(
        devices[1],
        crate::dispatch::device::DeviceArg::Other
    ));
    assert!(matches!(
        devices[2],
        crate::dispatch::device::DeviceArg::ScalarType(Some(ScalarType::Long))
    ));
    let mut stack = Stack::new();
    <(&'static TestTensor, i64, Option<ScalarType>) as ArgTuple<TestTensor>>::push(
        args, &mut stack,
    );
    assert_eq!(stack.len(), 3);
}

#[test]
fn names_read_at_run_time_are_the_const_ones() {
    for text in [
        "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "relu(Tensor self) -> Tensor",
        "aten::__iand__.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
        "ns::op",
        "add.Tensor",
        "a.b.c(x)",
        "a::b::c(x)",
        "a.b::c(x)",
        "a:::b(x)",
        "(Tensor x) -> Tensor",
        "",
    ] {
        assert_eq!(OperatorName::read(text), OperatorName::of(text), "{text}");
    }
}
