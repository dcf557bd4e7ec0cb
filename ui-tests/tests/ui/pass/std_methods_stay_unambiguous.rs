//! Importing the extension trait of operators named like std's prelude methods (`clone`,
//! `eq`, `ne`, `max`, `min`) leaves `t.clone()`, `t.eq(&u)`, `t.max(u)` the std methods on a
//! tensor type implementing `Clone`, `PartialEq` and `Ord`: in a trait, those operators'
//! methods take `_op` (`t.clone_op()`, `t.eq_op(&u)`, `t.max_op()`; the `try_` forms keep
//! their names), so no call is ambiguous. (Inherent methods keep the plain names: they win over trait methods.)

use opgen::prelude::*;

/// A tensor type of "another crate" that implements the std traits.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct T(u64);

impl Tensor for T {
    fn key_set(&self) -> DispatchKeySet {
        DispatchKey::CPU.into()
    }
}

mod aten {
    use super::T;
    opgen::include_native_functions!(
        "../../../tmp/opgen-ui/std_names.yaml",
        tensor = "T",
        methods = "trait AtenMethods"
    );
}

use aten::AtenMethods;

fn main() {
    let (t, u) = (T(1), T(2));
    // The std methods, unambiguous with `AtenMethods` in scope.
    let c: T = t.clone();
    let e: bool = t.eq(&u);
    let n: bool = t.ne(&u);
    let m: T = t.clone().max(u.clone());
    let l: T = t.clone().min(u.clone());
    assert_eq!((c, e, n, m, l), (T(1), false, true, T(2), T(1)));
    // The operators, by their trait names (`try_` forms are no std names and keep theirs):
    // no kernel is registered, so each call reports the missing kernel as an error value.
    assert!(t.try_clone().is_err());
    assert!(t.try_eq(&u).is_err());
    assert!(t.try_ne(&u).is_err());
    assert!(t.try_max().is_err());
    assert!(t.try_min().is_err());
    let plain: [fn(&T) -> T; 3] = [
        <T as AtenMethods>::clone_op,
        <T as AtenMethods>::max_op,
        <T as AtenMethods>::min_op,
    ];
    let compare: [fn(&T, &T) -> T; 2] = [<T as AtenMethods>::eq_op, <T as AtenMethods>::ne_op];
    assert_eq!((plain.len(), compare.len()), (3, 2));
}
