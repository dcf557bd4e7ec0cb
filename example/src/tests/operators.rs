//! Every operator schema of the library, from the sample table: on the CPU and on Meta,
//! boxed by name against the typed API, through the tracer, and with OpCheck.

use std::collections::BTreeSet;

use opgen::OperatorHandle;
use opgen::cross::{TraceValue, start_tracing};
use opgen::dispatch::ServedBy;
use opgen::prelude::*;
use opgen::testing::{Check, OpCheck};

use super::samples::{Args, Sample, Values, samples};
use crate::{META, MiniTensor};

/// The `aten` operators this crate registered a kernel for that serves `CPU` or `Meta`
/// (its own kernels at those keys, its composite kernels, its factories' kernels), by
/// the global dispatcher's registrations.
fn library_operators() -> BTreeSet<String> {
    let mut ops = BTreeSet::new();
    for op in Dispatcher::global().operators() {
        if op.namespace() != "aten" {
            continue;
        }
        let table = op.dispatch_table();
        let ours = [DispatchKey::CPU, DispatchKey::Meta]
            .iter()
            .any(|&key| match table.get(key) {
                ServedBy::Kernel { site, .. } => site.file().starts_with("example/"),
                _ => false,
            });
        if ours {
            ops.insert(op.to_string());
        }
    }
    ops
}

fn find(sample: &Sample) -> OperatorHandle {
    let (name, overload) = sample.name();
    Dispatcher::global()
        .find(name, overload)
        .unwrap_or_else(|e| panic!("{}: {e}", sample.op))
}

/// A copy of `t` with its own storage, the same strides, dtype and device.
fn deep_copy(t: &MiniTensor) -> MiniTensor {
    let options = t.options().expect("options");
    let copy =
        <MiniTensor as Tensor>::empty(&t.shape(), Some(&t.stride()), &options).expect("empty");
    copy.copy_values_from(t).expect("copy");
    copy
}

/// `values` with every tensor mapped by `f`.
fn map_tensors(values: &[IValue<MiniTensor>], f: impl Fn(&MiniTensor) -> MiniTensor) -> Values {
    values
        .iter()
        .map(|v| match v {
            IValue::Tensor(t) => IValue::Tensor(f(t)),
            IValue::TensorList(ts) => {
                IValue::TensorList(ts.iter().map(&f).collect::<Vec<_>>().into())
            }
            other => other.clone(),
        })
        .collect()
}

/// Fresh copies of the sample's inputs with the schema's defaults filled in.
fn arguments(sample: &Sample, op: &OperatorHandle) -> Values {
    let mut stack = Stack::from(map_tensors(&sample.inputs, deep_copy));
    op.fill_defaults(&mut stack)
        .unwrap_or_else(|e| panic!("{}: {e}", sample.op));
    stack.into_vec()
}

fn call_boxed(op: &OperatorHandle, args: Values) -> Result<Values, Error> {
    let mut stack = Stack::from(args);
    op.call_boxed(&mut stack)?;
    Ok(stack.into_vec())
}

/// The tensors of `values`, those of lists (`unbind`'s) included.
fn tensors(values: &[IValue<MiniTensor>]) -> Vec<MiniTensor> {
    values
        .iter()
        .flat_map(|v| match v {
            IValue::Tensor(t) => vec![t.clone()],
            IValue::TensorList(ts) => ts.to_vec(),
            _ => Vec::new(),
        })
        .collect()
}

/// Same shape, dtype and device, and (off Meta) the same values; NaN equals NaN.
fn same(a: &MiniTensor, b: &MiniTensor) -> bool {
    if a.shape() != b.shape() || a.dtype() != b.dtype() || a.device() != b.device() {
        return false;
    }
    if a.is_meta() {
        return true;
    }
    if a.dtype() == ScalarType::Bool {
        return a.to_vec::<bool>().ok() == b.to_vec::<bool>().ok();
    }
    match (a.to_vec::<f64>(), b.to_vec::<f64>()) {
        (Ok(x), Ok(y)) => x.iter().zip(&y).all(|(x, y)| {
            (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-6 * (1.0 + x.abs().max(y.abs()))
        }),
        _ => false,
    }
}

/// Runs `check` on every sample and fails with the list of rows that failed.
fn for_every_sample(check: impl Fn(&Sample, &OperatorHandle) -> Result<(), String>) {
    crate::install().expect("install");
    let failures: Vec<String> = samples()
        .iter()
        .filter_map(|sample| {
            check(sample, &find(sample))
                .err()
                .map(|e| format!("{}: {e}", sample.op))
        })
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn every_operator_of_the_library_has_one_sample() {
    crate::install().expect("install");
    let operators = library_operators();
    let rows: Vec<String> = samples().iter().map(|s| s.op.to_string()).collect();
    let sampled: BTreeSet<String> = rows.iter().cloned().collect();
    assert_eq!(sampled.len(), rows.len(), "a sample row is repeated");
    let missing: Vec<&String> = operators.difference(&sampled).collect();
    assert!(
        missing.is_empty(),
        "operators without a sample row: {missing:?}"
    );
    let unknown: Vec<&String> = sampled.difference(&operators).collect();
    assert!(
        unknown.is_empty(),
        "sample rows of no operator: {unknown:?}"
    );
    assert_eq!(operators.len(), 103);
}

#[test]
fn every_operator_on_the_cpu_boxed_by_name_equals_the_typed_call() {
    for_every_sample(|sample, op| {
        let args = arguments(sample, op);
        let boxed =
            call_boxed(op, map_tensors(&args, deep_copy)).map_err(|e| format!("boxed: {e}"))?;
        let typed = (sample.typed)(&Args(&map_tensors(&args, deep_copy)))
            .map_err(|e| format!("typed: {e}"))?;
        let (boxed, typed) = (tensors(&boxed), tensors(&typed));
        if boxed.is_empty() || boxed.len() != typed.len() {
            return Err(format!(
                "{} boxed outputs, {} typed",
                boxed.len(),
                typed.len()
            ));
        }
        for (b, t) in boxed.iter().zip(&typed) {
            if b.device() != Device::CPU || !same(b, t) {
                return Err(format!("boxed {b:?} but typed {t:?}"));
            }
        }
        Ok(())
    });
}

#[test]
fn every_operator_on_meta_gives_the_cpu_shapes_and_dtypes() {
    for_every_sample(|sample, op| {
        let args = arguments(sample, op);
        let cpu = tensors(
            &call_boxed(op, map_tensors(&args, deep_copy)).map_err(|e| format!("cpu: {e}"))?,
        );
        // Meta inputs; factories get `device=meta`.
        let mut meta_args = map_tensors(&args, |t| t.to_device(META).expect("to meta"));
        let schema = op.schema().expect("schema");
        for (arg, value) in schema.arguments.iter().zip(meta_args.iter_mut()) {
            if arg.name == "device" {
                *value = IValue::Device(META);
            }
        }
        let boxed = tensors(&call_boxed(op, meta_args.clone()).map_err(|e| format!("meta: {e}"))?);
        let typed =
            tensors(&(sample.typed)(&Args(&meta_args)).map_err(|e| format!("typed on meta: {e}"))?);
        for outputs in [&boxed, &typed] {
            let ok = outputs.len() == cpu.len()
                && outputs
                    .iter()
                    .zip(&cpu)
                    .all(|(m, c)| m.is_meta() && m.shape() == c.shape() && m.dtype() == c.dtype());
            if !ok {
                return Err(format!("meta {outputs:?} but cpu {cpu:?}"));
            }
        }
        Ok(())
    });
}

#[test]
fn every_operator_is_traced_with_its_name_and_shapes() {
    for_every_sample(|sample, op| {
        let args = arguments(sample, op);
        let tracing = start_tracing::<MiniTensor>();
        let outputs = (sample.typed)(&Args(&args));
        let trace = tracing.finish();
        let outputs = tensors(&outputs.map_err(|e| e.to_string())?);
        let [node] = trace.nodes() else {
            return Err(format!("expected one call in the trace:\n{trace}"));
        };
        if node.operator != sample.op {
            return Err(format!("the trace records `{}`", node.operator));
        }
        let shapes: Vec<Option<Vec<i64>>> = (node.outputs.iter())
            .flat_map(|v| match v {
                TraceValue::List(items) => items.iter().collect(),
                v => vec![v],
            })
            .map(|v| match v {
                TraceValue::Tensor(n) => trace.shape(*n).map(<[i64]>::to_vec),
                _ => None,
            })
            .collect();
        let real: Vec<Option<Vec<i64>>> = outputs.iter().map(|t| Some(t.shape())).collect();
        if shapes != real {
            return Err(format!("traced shapes {shapes:?}, real {real:?}:\n{trace}"));
        }
        Ok(())
    });
}

#[test]
fn every_operator_passes_opcheck() {
    for_every_sample(|sample, op| {
        let typed = sample.typed;
        let report = OpCheck::new(
            Dispatcher::global(),
            op,
            map_tensors(&sample.inputs, deep_copy),
        )
        .compare_with(same)
        .typed(move |args| typed(&Args(&args)))
        .autograd()
        .run()
        .map_err(|e| e.to_string())?;
        let passed: String = (report.passed.iter())
            .map(|c| match c {
                Check::Schema => 's',
                Check::Meta => 'm',
                Check::Typed => 't',
                Check::Variants => 'v',
                Check::Autograd => 'a',
            })
            .collect();
        // The autograd check runs on the operators with an Autograd kernel and a
        // floating-point tensor input (before the out arguments).
        let out_start = op.schema().map_or(0, |s| s.out_start());
        let floating = (sample.inputs.iter().take(out_start)).any(|v| {
            v.as_tensor()
                .is_some_and(|t| matches!(t.dtype(), ScalarType::Float | ScalarType::Double))
        });
        let autograd = floating && op.keys_with_kernels().contains(&DispatchKey::Autograd);
        let expected = format!("{}{}", sample.checks, if autograd { "a" } else { "" });
        if passed != expected {
            return Err(format!(
                "checks passed: `{passed}`, expected `{expected}`; skipped: {:?}",
                report.skipped
            ));
        }
        if passed.contains('v') && report.variants.is_empty() {
            return Err("the variants check called no other operator".into());
        }
        Ok(())
    });
}
