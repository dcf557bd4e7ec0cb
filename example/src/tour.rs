//! A tour of the library, as text: what `cargo run -p opgen-example --example tour` prints
//! (the example calls [`tour`]; a test compares its text with the committed
//! `example/tour.txt`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use opgen::cross;
use opgen::dispatch::Stack;
use opgen::prelude::*;

use crate::ops::{self, AddArgs, SumDimIntListArgs};
use crate::{META, MiniTensor, PRIVATE_USE1};

/// Runs the tour and returns what it prints: eager calls on the CPU, the same program on
/// `Meta`, a trace, a boxed call by name, a dispatch table, the `PrivateUse1` CPU fallback
/// and a summary of the catalog. Installs the cross-cutting kernels first ([`crate::install`]).
pub fn tour() -> Result<String, Error> {
    crate::install()?;
    let mut out = String::new();
    let o = &mut out;
    line(
        o,
        "opgen tour: MiniTensor and its ATen operators, defined with #[native_function]",
    );

    heading(
        o,
        "1. Eager on the CPU",
        "Each call goes through the global dispatcher to a CPU kernel; b broadcasts, Long promotes.",
    );
    let (a, b) = inputs()?;
    line(o, format!("a = {}", show(&a)?));
    line(o, format!("b = {}", show(&b)?));
    for (what, t) in program(&a, &b)? {
        line(o, format!("{what:<34} = {}", show(&t)?));
    }
    let mut v = a.try_select(0, 1)?;
    line(
        o,
        format!(
            "{:<34} = {}, shares a's storage: {}",
            "v = a.select(0, 1)",
            show(&v)?,
            v.shares_storage(&a)
        ),
    );
    let before = a.version()?;
    v.try_mul_(&MiniTensor::scalar(10i64))?;
    line(
        o,
        format!("{:<34} : a = {}", "v.mul_(10) writes through v", show(&a)?),
    );
    line(
        o,
        format!(
            "version counters (ADInplaceOrView) : a {before} -> {}, v {} (one counter)",
            a.version()?,
            v.version()?
        ),
    );

    heading(
        o,
        "2. The same program on Meta",
        "Meta tensors have shapes and dtypes but no data: the Meta kernels only check and infer.",
    );
    let (a, b) = inputs()?;
    let (a, b) = (a.to_device(META)?, b.to_device(META)?);
    for (what, t) in program(&a, &b)? {
        line(o, format!("{what:<34} = {}", show(&t)?));
    }

    heading(
        o,
        "3. A trace of the program",
        "While tracing is on, the Tracer kernels record each call: operator, inputs, shapes.",
    );
    let (a, b) = inputs()?;
    let tracing = cross::start_tracing::<MiniTensor>();
    let _ = program(&a, &b)?;
    let trace = tracing.finish();
    write!(o, "{trace}").map_err(|e| Error::from(e.to_string()))?;

    heading(
        o,
        "4. A call by name with dynamic values (boxed)",
        "What an interpreter or a binding does: find the operator, push values, call.",
    );
    let op = Dispatcher::global().find("aten::sum", "dim_IntList")?;
    let mut stack = Stack::from(vec![
        IValue::Tensor(a.share()),
        IValue::IntList(std::sync::Arc::new(vec![0])),
    ]);
    line(o, format!("find(\"aten::sum\", \"dim_IntList\") = {op}"));
    line(o, format!("stack                    = {}", values(&stack)));
    op.fill_defaults(&mut stack)?;
    line(o, format!("after fill_defaults      = {}", values(&stack)));
    op.call_boxed(&mut stack)?;
    let result = stack
        .pop()
        .and_then(IValue::into_tensor)
        .ok_or_else(|| Error::from("sum returned no tensor"))?;
    line(o, format!("after call_boxed         = {}", show(&result)?));

    heading(
        o,
        "5. The dispatch table of one operator",
        "Which kernel serves each dispatch key: the CPU and Meta kernels, the cross-cutting ones.",
    );
    let op = Dispatcher::global().find("aten::mul_", "Tensor")?;
    line(o, one_line_per_kernel(&op.dispatch_table().to_string()));

    heading(
        o,
        "6. An external backend through the CPU fallback",
        "PrivateUse1 tensors hold data; the fallback runs the CPU kernel, views have their own.",
    );
    let x = MiniTensor::from_vec_on(vec![0.0f32, 1.0, 2.0], &[3], PRIVATE_USE1)?;
    line(o, format!("x = {}", show(&x)?));
    line(o, format!("{:<34} = {}", "x.exp()", show(&x.try_exp()?)?));
    let mut y = x.share();
    y.try_add_(&x)?;
    line(
        o,
        format!(
            "{:<34} : x = {}, version {}",
            "x.add_(x), copied back",
            show(&x)?,
            x.version()?
        ),
    );
    let v = x.try_select(0, 2)?;
    line(
        o,
        format!(
            "{:<34} = {}, shares x's storage: {}",
            "v = x.select(0, 2) (a view kernel)",
            show(&v)?,
            v.shares_storage(&x)
        ),
    );

    heading(
        o,
        "7. The catalog",
        "Dispatcher::catalog_json(): every operator as data, the format of `opgen json`.",
    );
    catalog_summary(o)?;

    heading(
        o,
        "8. Learning by gradient descent",
        "A two-layer perceptron fits y = x0 * x1 on a grid; the gradients come from the\nAutograd kernels generated from PyTorch's derivative formulas.",
    );
    learning(o)?;
    Ok(out)
}

/// Section 8: the loss of [`crate::learn`]'s perceptron as it trains, and its graph.
fn learning(o: &mut String) -> Result<(), Error> {
    use opgen::autograd::AutogradTensor;
    let (x, y) = crate::learn::dataset()?;
    let model = crate::learn::Mlp::new(8)?;
    let loss = crate::learn::mse(&model.forward(&x)?, &y)?;
    let mut chain = Vec::new();
    let mut node = loss.grad_fn();
    while let Some(n) = node {
        chain.push(n.name().to_string());
        node = n
            .next_edges()
            .iter()
            .flatten()
            .next()
            .map(|e| e.node.clone());
    }
    line(o, format!("loss.grad_fn chain: {}", chain.join(" <- ")));
    let losses = crate::learn::train(201, 0.2)?;
    for (step, l) in losses.iter().enumerate().step_by(40) {
        line(o, format!("step {step:>3}: loss {l:.5}"));
    }
    Ok(())
}

/// A dispatch table with the keys one kernel serves through an alias (the 17 autograd
/// keys of `Autograd`) on one line.
fn one_line_per_kernel(table: &str) -> String {
    let mut out: Vec<(Vec<String>, String)> = Vec::new();
    for l in table.lines() {
        match l.strip_prefix("  ").and_then(|r| r.split_once(": ")) {
            Some((key, served)) if served.contains("registered at Autograd") => {
                match out.last_mut() {
                    Some((keys, s)) if s == served => keys.push(key.to_string()),
                    _ => out.push((vec![key.to_string()], served.to_string())),
                }
            }
            _ => out.push((Vec::new(), l.to_string())),
        }
    }
    let lines: Vec<String> = out
        .into_iter()
        .map(|(keys, served)| match keys.as_slice() {
            [] => served,
            [first, .., last] => format!("  {first} .. {last} ({} keys): {served}", keys.len()),
            [one] => format!("  {one}: {served}"),
        })
        .collect();
    lines.join("\n")
}

/// `a`, a `Float` matrix, and `b`, a `Long` vector, on the CPU.
fn inputs() -> Result<(MiniTensor, MiniTensor), Error> {
    let a = MiniTensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    let b = MiniTensor::from_vec(vec![10i64, 20, 30], &[3])?;
    Ok((a, b))
}

/// The program of sections 1 to 3: each result with how it was computed.
fn program(a: &MiniTensor, b: &MiniTensor) -> Result<Vec<(&'static str, MiniTensor)>, Error> {
    let sum = ops::try_add_with(a, b, AddArgs { alpha: 2.into() })?;
    let reduced = ops::try_sum_dim_int_list_with(
        a,
        Some(&[1]),
        SumDimIntListArgs {
            keepdim: true,
            dtype: Some(ScalarType::Double),
        },
    )?;
    let (values, indices) = a.try_max_dim(0)?;
    let product = a.try_matmul(&a.try_transpose(0, 1)?)?;
    Ok(vec![
        ("add(a, b, alpha=2)", sum),
        ("sum(a, [1], keepdim=True, Double)", reduced),
        ("max(a, dim=0).values", values),
        ("max(a, dim=0).indices", indices),
        ("matmul(a, a.transpose(0, 1))", product),
    ])
}

fn line(out: &mut String, text: impl AsRef<str>) {
    out.push_str(text.as_ref());
    out.push('\n');
}

fn heading(out: &mut String, title: &str, explanation: &str) {
    line(out, format!("\n== {title}"));
    line(out, explanation);
}

/// `[[1, 2], [3, 4]] Float[2, 2]`, with `meta` or the device when not the CPU.
fn show(t: &MiniTensor) -> Result<String, Error> {
    let shape = t.shape();
    let kind = format!("{}{shape:?}", t.dtype());
    if t.is_meta() {
        return Ok(format!("{kind} on meta"));
    }
    let data: Vec<String> = match t.dtype() {
        ScalarType::Bool => t.to_vec::<bool>()?.iter().map(bool::to_string).collect(),
        ScalarType::Long => t.to_vec::<i64>()?.iter().map(i64::to_string).collect(),
        _ => t.to_vec::<f64>()?.into_iter().map(number).collect(),
    };
    let mut text = nested(&data, &shape);
    text.push(' ');
    text.push_str(&kind);
    if t.device() != Device::CPU {
        text.push_str(&format!(" on {}", t.device()));
    }
    Ok(text)
}

/// A float with at most four decimals, without trailing zeros.
fn number(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Row-major `data` as nested lists of `shape`.
fn nested(data: &[String], shape: &[i64]) -> String {
    match shape.split_first() {
        None => data.first().cloned().unwrap_or_default(),
        Some((&n, rest)) => {
            let n = n.max(0) as usize;
            let chunk = data.len().checked_div(n).unwrap_or(0);
            let parts: Vec<String> = (0..n)
                .map(|i| nested(&data[i * chunk..(i + 1) * chunk], rest))
                .collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// The values of a stack, briefly.
fn values(stack: &Stack<MiniTensor>) -> String {
    let items: Vec<String> = stack
        .iter()
        .map(|v| match v {
            IValue::Tensor(t) => format!("Tensor {}{:?}", t.dtype(), t.shape()),
            IValue::IntList(l) => format!("{:?}", l.as_slice()),
            IValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            IValue::Int(i) => i.to_string(),
            IValue::None => "None".to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// Counts of operators by kind and of kernels by key, and the backend fallbacks.
fn catalog_summary(out: &mut String) -> Result<(), Error> {
    let catalog = Dispatcher::global().catalog_json();
    let functions = catalog["functions"]
        .as_array()
        .ok_or_else(|| Error::from("the catalog has no functions"))?;
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut keys: BTreeMap<String, usize> = BTreeMap::new();
    for f in functions {
        *kinds.entry(text(&f["kind"])).or_default() += 1;
        for key in f["dispatch_keys"].as_array().into_iter().flatten() {
            *keys.entry(text(key)).or_default() += 1;
        }
    }
    let by_count = |m: BTreeMap<String, usize>| {
        let mut v: Vec<(String, usize)> = m.into_iter().collect();
        v.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
        v.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    line(
        out,
        format!("{} operators: {}", functions.len(), by_count(kinds)),
    );
    line(out, format!("kernels by key: {}", by_count(keys)));
    let (fallthrough, boxed): (Vec<_>, Vec<_>) =
        (catalog["fallbacks"].as_array().into_iter().flatten())
            .partition(|f| f["fallthrough"].as_bool() == Some(true));
    let boxed: Vec<String> = boxed.iter().map(|f| text(&f["key"])).collect();
    line(
        out,
        format!(
            "backend fallbacks: boxed at {}; fallthrough at {} keys (the dispatcher's defaults)",
            boxed.join(", "),
            fallthrough.len()
        ),
    );
    Ok(())
}

/// A JSON string's text (other values as JSON).
fn text(v: &impl std::fmt::Display) -> String {
    v.to_string().trim_matches('"').to_string()
}
