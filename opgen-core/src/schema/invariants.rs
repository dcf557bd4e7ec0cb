//! Rules R24–R35: invariants of a parsed schema, checked (as torchgen does) before the
//! round-trip comparison. Errors come in torchgen's order, so the first is the one torchgen
//! would report; the rest are further independent problems.

use super::error::{Rule, SchemaError};
use super::facts::SchemaKind;
use super::model::Schema;
use super::parser::Layout;

pub(crate) fn check_invariants(schema: &Schema, layout: &Layout) -> Vec<SchemaError> {
    let mut errors = Vec::new();
    // Every rule below needs a written argument or return, or an in-place name (without
    // them the kind is functional, so R33 and R34 hold too). Most schemas have none.
    if !schema.name.name.inplace
        && !schema.arguments.iter().any(|a| a.is_write())
        && !schema.returns.iter().any(|r| r.is_write())
    {
        return errors;
    }
    let arg_range = |i: usize| layout.arguments.get(i).cloned().unwrap_or(0..0);
    let ret_range = |i: usize| {
        layout
            .returns
            .get(i)
            .cloned()
            .unwrap_or_else(|| layout.returns_all.clone())
    };
    let out_start = schema.out_start();
    let outs = &schema.arguments[out_start..];
    let self_i = schema.self_index();
    let ann = |a: &Option<super::AliasAnnotation>| {
        a.as_ref().map_or("none".to_string(), |a| format!("({a})"))
    };

    // R24
    for (k, (arg, ret)) in outs.iter().zip(&schema.returns).enumerate() {
        if arg.annotation != ret.annotation {
            errors.push(
                SchemaError::new(
                    Rule::OutReturnMismatch,
                    ret_range(k),
                    format!(
                        "return {k} is annotated {} but out argument `{}` is annotated {}",
                        ann(&ret.annotation),
                        arg.name,
                        ann(&arg.annotation)
                    ),
                )
                .with_hint(format!(
                    "the i-th return must alias the i-th out argument: write `Tensor({})` here",
                    arg.annotation
                        .as_ref()
                        .map(|a| a.to_string())
                        .unwrap_or_default()
                )),
            );
        }
    }
    // R25
    for (i, a) in schema.post_self_positional_from(self_i) {
        if a.is_write() && schema.returns.iter().any(|r| r.annotation == a.annotation) {
            errors.push(
                SchemaError::new(
                    Rule::ReturnedMutablePositional,
                    arg_range(i),
                    format!("written positional argument `{}` is also returned", a.name),
                )
                .with_hint("return a new tensor instead, or make it an out argument after `*`"),
            );
        }
    }
    // R26, R27
    let mutable = || (0..schema.returns.len()).filter(|&i| schema.returns[i].is_write());
    let mutable_count = mutable().count();
    if mutable_count != 0 && mutable_count != schema.returns.len() {
        errors.push(
            SchemaError::new(
                Rule::MixedReturns,
                layout.returns_all.clone(),
                "some returns are written aliases (`!`) and some are not",
            )
            .with_hint("return either only written aliases or only fresh values; drop the written argument from the returns"),
        );
    }
    for k in mutable() {
        let r = &schema.returns[k];
        let aliased = schema.arguments[out_start..]
            .iter()
            .chain(self_i.map(|i| &schema.arguments[i]))
            .any(|a| a.annotation == r.annotation);
        if !aliased {
            errors.push(
                SchemaError::new(
                    Rule::UnaliasedMutableReturn,
                    ret_range(k),
                    format!("written return {} aliases neither an out argument nor `self`", ann(&r.annotation)),
                )
                .with_hint("annotate the out argument (after `*`) or `self` with the same letter; did you forget to put the out argument after `*`?"),
            );
        }
    }
    // R28, R29
    if !outs.is_empty() {
        if outs.iter().any(|a| !a.ty.is_plain_tensor()) {
            if !schema.returns.is_empty() {
                errors.push(
                    SchemaError::new(
                        Rule::TensorListOutReturns,
                        layout.returns_all.clone(),
                        "a schema with out arguments that are not plain `Tensor` must return nothing",
                    )
                    .with_hint("write `-> ()`"),
                );
            }
        } else {
            let counted = outs
                .iter()
                .filter(|a| !a.name.starts_with("_scratch_"))
                .count();
            if counted != schema.returns.len() {
                errors.push(
                    SchemaError::new(
                        Rule::OutReturnCount,
                        layout.returns_all.clone(),
                        format!(
                            "the schema has {counted} out argument(s) but {} return(s)",
                            schema.returns.len()
                        ),
                    )
                    .with_hint("return each out argument, in order, with its annotation"),
                );
            }
        }
    }
    // R30–R32
    if schema.name.name.inplace {
        // Built only for an error: most in-place schemas have none.
        let op = || schema.name.operator_name();
        match self_i.map(|i| (i, &schema.arguments[i])) {
            Some((_, a)) if a.is_write() => {
                if a.ty.is_plain_tensor() {
                    let ok = schema.returns.len() == 1 && schema.returns[0].annotation == a.annotation;
                    if !ok {
                        errors.push(
                            SchemaError::new(
                                Rule::InplaceMustReturnSelf,
                                layout.returns_all.clone(),
                                format!("in-place operator `{}` must return `self`", op()),
                            )
                            .with_hint(format!("write `-> Tensor({})`", a.annotation.as_ref().map(|x| x.to_string()).unwrap_or_default())),
                        );
                    }
                } else if !schema.returns.is_empty() {
                    errors.push(
                        SchemaError::new(
                            Rule::InplaceNonTensorSelf,
                            layout.returns_all.clone(),
                            format!("in-place operator `{}` with a `{}` self must return nothing", op(), a.ty),
                        )
                        .with_hint("write `-> ()`"),
                    );
                }
            }
            Some((i, a)) => errors.push(
                SchemaError::new(
                    Rule::InplaceWithoutMutableSelf,
                    arg_range(i),
                    format!("in-place operator `{}` must write `self`, but `self` has no `!` annotation", op()),
                )
                .with_hint(format!("write `{}(a!) self`, or drop the trailing `_` from the name", a.ty)),
            ),
            None => errors.push(
                SchemaError::new(
                    Rule::InplaceWithoutMutableSelf,
                    layout.name.clone(),
                    format!("in-place operator `{}` has no `self` argument", op()),
                )
                .with_hint("add a positional `Tensor(a!) self`, or drop the trailing `_` from the name"),
            ),
        }
    }
    // R35 (torchgen finds it only when it computes the kind; we always do)
    let inplace_and_out = schema.name.name.inplace && !outs.is_empty();
    if inplace_and_out {
        errors.push(
            SchemaError::new(
                Rule::InplaceAndOut,
                layout.name.clone(),
                format!(
                    "`{}` is both in-place (by its name) and out (by its arguments)",
                    schema.name
                ),
            )
            .with_hint("drop the trailing `_`, or drop the out arguments"),
        );
    }
    // R33, R34
    let kind = schema.kind_from(out_start, self_i);
    // Kind first: looking for the group costs more, and most schemas are functional.
    if kind != SchemaKind::Functional
        && !inplace_and_out
        && let Some(t) = schema.tensor_options_start_from(out_start)
    {
        errors.push(
            SchemaError::new(
                Rule::TensorOptionsNotFunctional,
                arg_range(t).start..arg_range(t + 3).end,
                format!("a {kind} schema has TensorOptions arguments `dtype, layout, device, pin_memory`"),
            )
            .with_hint("only functional schemas take TensorOptions; an out variant takes its options from `out`"),
        );
    }
    if kind != SchemaKind::Functional && !inplace_and_out && schema.is_functional_fn() {
        // Point at the overload (the name ends with it), not the whole name.
        let overload_len = schema.name.overload.as_ref().map_or(0, |o| o.len());
        errors.push(
            SchemaError::new(
                Rule::FunctionalOverload,
                layout.name.end.saturating_sub(overload_len)..layout.name.end,
                format!("overload names containing `functional` are reserved for functional schemas, but this one is {kind}"),
            )
            .with_hint("rename the overload"),
        );
    }
    errors
}
