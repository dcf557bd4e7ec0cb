//! Tests of the dispatcher, with a small tensor type of their own.

mod arrows;
mod calls;
mod defaults;
mod errors;
mod keys;
mod link;
mod memory;
mod messages;
mod mixed;
mod operator;
mod precedence;
mod registry;
mod returns;
mod static_dispatch;
mod stress;
mod values;

use std::sync::Arc;

use super::{DispatchKey, DispatchKeySet, Dispatcher, Error, Library, Registration, Tensor};

/// A reference-counted test tensor: a key set and a value.
#[derive(Clone, Debug)]
pub(crate) struct TestTensor(Arc<(DispatchKeySet, i64)>);

impl TestTensor {
    pub(crate) fn new(keys: &[DispatchKey], value: i64) -> TestTensor {
        TestTensor(Arc::new((DispatchKeySet::from_keys(keys), value)))
    }

    pub(crate) fn cpu(value: i64) -> TestTensor {
        TestTensor::new(&[DispatchKey::CPU], value)
    }

    pub(crate) fn value(&self) -> i64 {
        self.0.1
    }
}

impl PartialEq for TestTensor {
    fn eq(&self, other: &TestTensor) -> bool {
        self.0 == other.0
    }
}

impl Tensor for TestTensor {
    fn key_set(&self) -> DispatchKeySet {
        self.0.0
    }
}

/// Another tensor type, for calls that mix tensor types.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OtherTensor(DispatchKeySet);

impl Tensor for OtherTensor {
    fn key_set(&self) -> DispatchKeySet {
        self.0
    }
}

/// A dispatcher with the library `test` and the operator `schema` defined in it.
pub(crate) fn setup(schema: &str) -> (Dispatcher, Library, Registration) {
    let d = Dispatcher::new();
    let lib = d.library("test").expect("fresh namespace");
    let def = lib.def(schema).expect("valid schema");
    (d, lib, def)
}

/// The error's message, for results that must fail.
pub(crate) fn message<T>(result: Result<T, Error>) -> String {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}
