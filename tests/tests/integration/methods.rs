//! Methods: inherent in the crate that defines the tensor type, an extension trait in
//! another crate (see `ext.rs`).

use opgen_tests::ops::{AddArgs, add_with};

use super::*;

#[test]
fn inherent_methods_dispatch_like_the_free_functions() {
    let (a, b) = (cpu(&[1.0, -2.0]), cpu(&[10.0, 20.0]));
    assert_eq!(a.add(&b), opgen_tests::ops::add(&a, &b));
    // Defaulted arguments are given to the free `_with` function (methods have no `_with`
    // form when the operator has free functions).
    assert_eq!(
        add_with(&a, &b, AddArgs { alpha: 2.into() }).data(),
        [21.0, 38.0]
    );
    assert_eq!(a.try_add(&b).unwrap().data(), [11.0, 18.0]);
    assert_eq!(a.neg().data(), [-1.0, 2.0]);
    assert_eq!(a.relu().data(), [1.0, 0.0]);
}
