//! Kernels returning each kind of value the type mapping has (`str`, optionals, lists of
//! optionals, fixed-size `bool` lists, handles, tuples of them) and taking the list forms
//! (`str[]`, `int?[]`): the generated functions return them, typed and boxed.

use opgen::dispatch::{Generator, MemoryFormat, Storage, Stream};
use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("names(Tensor self, str[] names, str? prefix) -> str[]", dispatch = "CPU")]
fn names_cpu(_self: &MyTensor, names: &[String], prefix: Option<&str>) -> Vec<String> {
    let prefix = prefix.unwrap_or("");
    names.iter().map(|n| format!("{prefix}{n}")).collect()
}

#[native_function("first_size(Tensor self, int?[] sizes) -> int?", dispatch = "CPU")]
fn first_size_cpu(_self: &MyTensor, sizes: &[Option<i64>]) -> Option<i64> {
    sizes.iter().flatten().next().copied()
}

#[native_function("describe(Tensor self) -> str", dispatch = "CPU")]
fn describe_cpu(_self: &MyTensor) -> String {
    "dense".to_string()
}

#[native_function("split_some(Tensor self, bool[2] keep) -> Tensor?[]", dispatch = "CPU")]
fn split_some_cpu(self_: &MyTensor, keep: [bool; 2]) -> Vec<Option<MyTensor>> {
    keep.iter().map(|k| k.then(|| self_.clone())).collect()
}

#[native_function("flags(Tensor self) -> (bool[3], ScalarType?, MemoryFormat, Device)", dispatch = "CPU")]
fn flags_cpu(_self: &MyTensor) -> Result<([bool; 3], Option<ScalarType>, MemoryFormat, Device), Error> {
    Ok(([true, false, true], None, MemoryFormat::ChannelsLast, Device::CPU))
}

#[native_function("handles(Tensor self, Generator? generator) -> (Generator, Storage, Stream, Layout)",
                  dispatch = "CPU", tags = "nondeterministic_seeded")]
fn handles_cpu(_self: &MyTensor, generator: Option<Generator>) -> (Generator, Storage, Stream, Layout) {
    let stream = Stream { device: Device::CPU, id: 2 };
    (generator.unwrap_or_else(|| Generator::new(0u8)), Storage::new(1u8), stream, Layout::Strided)
}

fn main() {
    let t = MyTensor::cpu();
    let list = vec!["a".to_string(), "b".to_string()];
    assert_eq!(names(&t, &list, Some("x_")), ["x_a", "x_b"]);
    assert_eq!(first_size(&t, &[None, Some(4), Some(5)]), Some(4));
    assert_eq!(describe(&t), "dense");
    let parts: Vec<Option<MyTensor>> = split_some(&t, [false, true]);
    assert!(parts[0].is_none() && parts[1].is_some());
    assert_eq!(flags(&t), ([true, false, true], None, MemoryFormat::ChannelsLast, Device::CPU));
    let g = Generator::new(9u8);
    let (g2, _storage, stream, layout) = handles(&t, Some(g.clone()));
    assert!(g2 == g && stream.id == 2 && layout == Layout::Strided);

    // The same operators through the boxed convention.
    let op = Dispatcher::global().find("aten::names", "").unwrap();
    let mut stack = Stack::from(vec![IValue::Tensor(t.clone()), IValue::from(list), IValue::None]);
    op.call_boxed(&mut stack).unwrap();
    assert_eq!(stack.len(), 1);
    assert_eq!(stack.pop().map(|v| v.kind()), Some("str[]"));
    let op = Dispatcher::global().find("aten::first_size", "").unwrap();
    let mut stack = Stack::from(vec![IValue::Tensor(t.clone()), IValue::from(vec![None, Some(7i64)])]);
    op.call_boxed(&mut stack).unwrap();
    assert_eq!(stack.pop().and_then(|v| v.as_int()), Some(7));
}
