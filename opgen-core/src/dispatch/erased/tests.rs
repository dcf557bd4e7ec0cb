//! Tests of the erased types, the stack operations and the live table.

use super::*;
use std::sync::OnceLock;

struct Unary;
impl FnSig for Unary {
    type Ptr = fn(i32) -> i32;
}
struct Binary;
impl FnSig for Binary {
    type Ptr = fn(i32, i32) -> i32;
}

#[test]
fn erased_fn_only_comes_back_as_its_signature() {
    let f = ErasedFn::new::<Unary>(|x| x + 1);
    assert!(f.get::<Binary>().is_none());
    assert_eq!(f.get::<Unary>().map(|f| f(1)), Some(2));
    assert!(ErasedFn::none().get::<Unary>().is_none());
}

#[test]
fn functor_only_comes_back_as_its_type() {
    let k = Functor::new(String::from("kernel"));
    assert_eq!(k.downcast::<String>().map(String::as_str), Some("kernel"));
    assert!(k.downcast::<u32>().is_none());
}

#[test]
fn any_mut_only_comes_back_as_its_type() {
    let mut v = vec![1u8];
    assert_eq!(
        AnyMut::new(&mut v).downcast::<Vec<u16>>().err(),
        Some("alloc::vec::Vec<u8>")
    );
    assert_eq!(AnyMut::new(&mut v).type_name(), "alloc::vec::Vec<u8>");
    let back = AnyMut::new(&mut v).downcast::<Vec<u8>>().unwrap();
    back.push(2);
    assert_eq!(v, [1, 2]);
}

#[test]
fn stack_operations_drop_each_value_once() {
    let t = Arc::new(0u8);
    let list = Arc::new(vec![t.clone()]);
    let mut values: Vec<IValue<Arc<u8>>> = Vec::with_capacity(1);
    push_in_place(&mut values, IValue::Int(1));
    push_in_place(&mut values, IValue::Tensor(t.clone())); // grows
    push_in_place(&mut values, IValue::TensorList(list.clone()));
    push_in_place(&mut values, IValue::Tensor(t.clone()));
    push_in_place(&mut values, IValue::Float(0.5));
    assert_eq!((Arc::strong_count(&t), Arc::strong_count(&list)), (4, 2));
    drop_values_from(&mut values, 2);
    assert_eq!(values, [IValue::Int(1), IValue::Tensor(t.clone())]);
    assert_eq!((Arc::strong_count(&t), Arc::strong_count(&list)), (3, 1));
    // Over a tensor, a number, and a value that owns something.
    replace_values_from(&mut values, 1, IValue::Int(2));
    assert_eq!(Arc::strong_count(&t), 2);
    replace_values_from(&mut values, 0, IValue::Tensor(t.clone()));
    assert_eq!(values, [IValue::Tensor(t.clone())]);
    push_in_place(&mut values, IValue::TensorList(list.clone()));
    replace_values_from(&mut values, 1, IValue::None);
    replace_values_from(&mut values, 2, IValue::Bool(true));
    assert_eq!(
        values,
        [IValue::Tensor(t.clone()), IValue::None, IValue::Bool(true)]
    );
    assert_eq!((Arc::strong_count(&t), Arc::strong_count(&list)), (3, 1));
    replace_values_from(&mut values, 0, IValue::Float(1.0));
    assert_eq!((values.len(), Arc::strong_count(&t)), (1, 2));
    push_in_place(&mut values, IValue::TensorList(list.clone()));
    push_in_place(&mut values, IValue::Tensor(t.clone()));
    assert_eq!(pop_value(&mut values), Some(IValue::Tensor(t.clone())));
    assert_eq!(
        pop_value(&mut values),
        Some(IValue::TensorList(list.clone()))
    );
    assert_eq!(pop_value(&mut values), Some(IValue::Float(1.0)));
    assert_eq!(pop_value(&mut values), None);
    assert_eq!((Arc::strong_count(&t), Arc::strong_count(&list)), (2, 1));
}

#[test]
fn a_live_table_retires_the_tables_it_replaces() {
    let first = Arc::new(Table::undefined());
    let live = LiveTable::new(first.clone());
    let pin = reclaim::pin_registered();
    assert!(live.info(&pin).is_none() && !live.has_info());
    let (_, missing) = live.kernel(DispatchKeySet::EMPTY, &pin);
    assert!(std::ptr::eq(missing, first.slot(0)));
    drop(pin);
    // An equal table is not mirrored: `first` stays.
    live.publish(Arc::new(Table::undefined()));
    assert!(Arc::ptr_eq(&live.snapshot(), &first));
    let second = Arc::new(Table::undefined_with_masks(0));
    live.publish(second.clone());
    assert!(Arc::ptr_eq(&live.snapshot(), &second));
    assert!(reclaim::settle(10, || Arc::strong_count(&first) == 1));
    // A thread that has not called yet lands on the register slot.
    let pin = reclaim::pin_registered();
    let (_, register) = live.kernel(DispatchKeySet::from_valid_bits(REGISTER_BIT), &pin);
    assert!(std::ptr::eq(register, Arc::as_ptr(register_kernel())));
    drop(pin);
    // So does any call of a thread not registered yet, whatever its keys.
    let cpu = DispatchKeySet::from_key(crate::dispatch::DispatchKey::CPU);
    std::thread::scope(|s| {
        s.spawn(|| {
            let pin = reclaim::pin();
            let (_, kernel) = live.kernel(cpu, &pin);
            assert!(std::ptr::eq(kernel, Arc::as_ptr(register_kernel())));
        });
    });
}

#[test]
fn projected_parts_live_as_long_as_their_owner() {
    let value = Arc::new((String::from("owner"), OnceLock::new()));
    assert!(Projected::new(Shared::from_arc(value.clone()), |v| v.1.get()).is_none());
    value.1.set(String::from("part")).unwrap();
    let projected = Projected::new(Shared::from_arc(value.clone()), |v| v.1.get()).unwrap();
    drop(value);
    let copy = projected.clone();
    drop(projected);
    assert_eq!((copy.0.as_str(), copy.part().as_str()), ("owner", "part"));
}

#[test]
fn shared_references_keep_arcs_alive_and_statics_as_they_are() {
    static FOREVER: i32 = 7;
    let fixed = Shared::from_static(&FOREVER);
    assert!(fixed.owner().is_none());
    assert_eq!((*fixed, *fixed.clone()), (7, 7));
    let value = Arc::new(String::from("kept"));
    let shared = Shared::from_arc(value.clone());
    drop(value);
    let copy = shared.clone();
    drop(shared);
    assert_eq!(copy.as_str(), "kept");
    assert_eq!(copy.owner().map(Arc::strong_count), Some(1));
}
