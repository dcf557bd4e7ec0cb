//! The checks of an operator run on its whole group: checking any member of a group with a
//! wrong member fails, naming the wrong one.

use super::{V, library, same};
use crate::dispatch::{DispatchKey, Dispatcher, Error, IValue};
use crate::testing::{Check, OpCheck};

/// Each member of the `double` group, with inputs for it.
fn members() -> [(&'static str, &'static str, Vec<IValue<V>>); 3] {
    let x = || IValue::Tensor(V::new(&[1.0, 2.0]));
    [
        ("t::double", "", vec![x()]),
        ("t::double_", "", vec![x()]),
        ("t::double", "out", vec![x(), IValue::Tensor(V::new(&[]))]),
    ]
}

#[test]
fn a_wrong_in_place_variant_fails_the_check_of_every_member() {
    let d = Dispatcher::new();
    // `double_` writes `self` without bumping its version counter.
    let _regs = library(&d, false, true, 0);
    let mut messages = Vec::new();
    for (name, overload, inputs) in members() {
        let op = d.find(name, overload).unwrap();
        let err = OpCheck::new(&d, &op, inputs)
            .compare_with(same)
            .run()
            .unwrap_err();
        assert_eq!(err.check, Check::Schema, "{name}.{overload}: {err}");
        messages.push(err.message);
    }
    let own = "argument `self` is written by the schema (`Tensor(a!) self`) but its version \
               counter did not change (the kernel, or an ADInplaceOrView kernel, must bump it)";
    assert_eq!(messages[1], own);
    for m in [&messages[0], &messages[2]] {
        assert_eq!(*m, format!("the in-place variant `t::double_`: {own}"));
    }
}

#[test]
fn a_wrong_meta_kernel_of_the_out_variant_fails_the_check_of_every_member() {
    let d = Dispatcher::new();
    let mut regs = library(&d, true, true, 0);
    let lib = d.library("t").unwrap();
    // A Meta kernel that leaves the out tensor unresized.
    regs.push(
        lib.impl_(
            "double.out",
            DispatchKey::Meta,
            |_: &V, out: &mut V| -> Result<V, Error> { Ok(out.clone()) },
        )
        .unwrap(),
    );
    for (name, overload, inputs) in members() {
        let op = d.find(name, overload).unwrap();
        let err = OpCheck::new(&d, &op, inputs)
            .compare_with(same)
            .run()
            .unwrap_err();
        assert_eq!(err.check, Check::Meta, "{name}.{overload}: {err}");
        assert!(
            err.message.ends_with(
                "Meta gives sizes [0] and dtype Double, the real kernel sizes [2] and dtype Double"
            ),
            "{}",
            err.message
        );
        if overload.is_empty() {
            assert!(
                err.message.starts_with("the out variant `t::double.out`: "),
                "{}",
                err.message
            );
        }
    }
}

#[test]
fn a_right_group_passes_from_every_member_with_the_others_listed() {
    let d = Dispatcher::new();
    let _regs = library(&d, true, true, 0);
    let mut called = Vec::new();
    for (name, overload, inputs) in members() {
        let op = d.find(name, overload).unwrap();
        let report = OpCheck::new(&d, &op, inputs)
            .compare_with(same)
            .run()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(report.passed.contains(&Check::Variants), "{report:?}");
        called.push(report.variants);
    }
    assert_eq!(
        called,
        [
            vec!["t::double_", "t::double.out"],
            vec!["t::double", "t::double.out"],
            vec!["t::double", "t::double_"],
        ]
    );
}
