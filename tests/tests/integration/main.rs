//! Integration tests: what `#[native_function]` generated, called through every route.
//!
//! Operators come from `opgen_tests::ops` (CPU kernels), from modules here (Meta and
//! autograd kernels, a conflicting `def`), from `opgen-tests-ext` (a PrivateUse1 kernel, an
//! operator with an extension trait) and from `opgen-tests-static` (static dispatch).

mod backends;
mod boxed;
mod devices;
mod ext;
mod free_functions;
mod methods;
mod redispatch;
mod registration;
mod static_dispatch;
mod structured;

use opgen::prelude::*;
use opgen_tests::TestTensor;

/// A CPU tensor of shape `[n]`.
fn cpu(data: &[f64]) -> TestTensor {
    TestTensor::cpu(data)
}

/// The error's message, for results that must fail.
fn message<T: std::fmt::Debug>(result: Result<T, Error>) -> String {
    result.expect_err("expected an error").to_string()
}
