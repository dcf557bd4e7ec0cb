//! The Python layer on the whole of ATen's `native_functions.yaml`: PyTorch's overload
//! choices, its messages, and the stack each call gets.

mod choices;
mod conversion;
mod messages;
mod stubs;

use std::sync::{Arc, OnceLock};

use opgen_core::dispatch::{DispatchKeySet, Error, Scalar, ScalarType, Tensor};
use opgen_core::native::load_native_functions;

use crate::{Arg, Bindings, CallArgs, OpInfo, Parsed, SignatureOptions, TensorFacts, Value, parse};

/// A tensor with a shape and a dtype, and (for one element) a value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mock {
    pub sizes: Vec<i64>,
    pub dtype: ScalarType,
    pub value: Option<Scalar>,
}

impl Tensor for Mock {
    fn key_set(&self) -> DispatchKeySet {
        DispatchKeySet::EMPTY
    }
    fn sizes(&self) -> Result<Vec<i64>, Error> {
        Ok(self.sizes.clone())
    }
    fn options(&self) -> Result<opgen_core::dispatch::TensorOptions, Error> {
        Ok(opgen_core::dispatch::TensorOptions::new().dtype(self.dtype))
    }
}

impl TensorFacts for Mock {
    type Tensor = Mock;
    const WRAPS_NUMBERS: bool = true;
    fn item(t: &Mock) -> Result<Scalar, Error> {
        t.value.ok_or_else(|| Error::from("no value"))
    }
    fn wrapped_number(value: Scalar) -> Result<Mock, Error> {
        Ok(Mock {
            sizes: vec![],
            dtype: ScalarType::Double,
            value: Some(value),
        })
    }
}

pub(crate) fn t2() -> Mock {
    Mock {
        sizes: vec![2, 3],
        dtype: ScalarType::Float,
        value: None,
    }
}

pub(crate) fn t0(value: i64) -> Mock {
    Mock {
        sizes: vec![],
        dtype: ScalarType::Long,
        value: Some(Scalar::Int(value)),
    }
}

/// The corpus's operators and their bindings, as PyTorch makes them (numbers as tensors).
pub(crate) struct Corpus {
    pub ops: Vec<OpInfo>,
    pub bindings: Bindings,
}

pub(crate) fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let yaml = include_str!("../../opgen-core/tests/data/native_functions.yaml");
        let tags = include_str!("../../opgen-core/tests/data/tags.yaml");
        let nfs = load_native_functions(yaml, tags).unwrap_or_else(|e| panic!("{}", e[0]));
        let ops: Vec<OpInfo> = nfs
            .functions()
            .iter()
            .map(OpInfo::from_native_function)
            .collect();
        let bindings = Bindings::new(
            &ops,
            SignatureOptions {
                numbers_as_tensors: true,
            },
        );
        Corpus { ops, bindings }
    })
}

/// A test value: how a call is written in the tables.
pub(crate) enum V {
    T(Mock),
    I(i64),
    F(f64),
    B(bool),
    S(&'static str),
    N,
    Tup(Vec<V>),
    List(Vec<V>),
    Dtype(ScalarType),
}

pub(crate) fn arg(v: &V) -> Arg<'_, Mock> {
    Arg::new(match v {
        V::T(t) => Value::Tensor(t),
        V::I(i) => Value::Int(*i),
        V::F(f) => Value::Float(*f),
        V::B(b) => Value::Bool(*b),
        V::S(s) => Value::Str((*s).into()),
        V::N => Value::None,
        V::Tup(items) => Value::List {
            tuple: true,
            items: items.iter().map(arg).collect(),
        },
        V::List(items) => Value::List {
            tuple: false,
            items: items.iter().map(arg).collect(),
        },
        V::Dtype(d) => Value::ScalarType(*d),
    })
}

/// Which binding a call goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target<'a> {
    Function(&'a str),
    Method(&'a str),
}

/// Parses a call of `target` and returns the operator it calls (`max.dim`) or the error.
pub(crate) fn call(target: Target<'_>, args: &[V], kwargs: &[(&str, V)]) -> Result<String, String> {
    let c = corpus();
    let binding = match target {
        Target::Function(name) => c.bindings.functions[""].get(name),
        Target::Method(name) => c.bindings.methods.get(name),
    }
    .unwrap_or_else(|| panic!("no binding {target:?}"));
    let args: Vec<Arg<'_, Mock>> = args.iter().map(arg).collect();
    let kwargs: Vec<(&str, Arg<'_, Mock>)> = kwargs.iter().map(|(k, v)| (*k, arg(v))).collect();
    let sigs: Vec<&crate::PySignature> = binding.overloads.iter().map(|o| &o.signature).collect();
    let call = CallArgs {
        args: &args,
        kwargs: &kwargs,
    };
    let Parsed { index, slots } = parse::<Mock, _>(&sigs, call).map_err(|e| e.to_string())?;
    let overload = &binding.overloads[index];
    let out_given = (overload.signature.out)
        .is_some_and(|o| !matches!(slots[o], crate::Slot::Absent | crate::Slot::None));
    let op = match (out_given, overload.outplace) {
        (true, Some(out)) => out,
        _ => overload.base,
    };
    let schema = &c.ops[op].schema;
    let plan = crate::Plan::<Mock>::new(&overload.signature, schema.clone());
    let receiver = t2();
    let receiver = matches!(target, Target::Method(_)).then(|| Arg::new(Value::Tensor(&receiver)));
    plan.stack(&overload.signature, &slots, call, receiver.as_ref())
        .map_err(|e| e.to_string())?;
    Ok(match &schema.name.overload {
        Some(o) => format!("{}.{o}", schema.name.name),
        None => schema.name.name.to_string(),
    })
}

#[allow(dead_code)]
pub(crate) fn schema_of(name: &str) -> Arc<opgen_core::schema::Schema> {
    let c = corpus();
    let found = c.ops.iter().find(|o| {
        let n = &o.schema.name;
        let full = match &n.overload {
            Some(ov) => format!("{}.{ov}", n.name),
            None => n.name.to_string(),
        };
        full == name
    });
    found
        .unwrap_or_else(|| panic!("no operator {name}"))
        .schema
        .clone()
}
