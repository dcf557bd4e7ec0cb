//! From a matched call to the operator's stack: each schema argument taken from its Python
//! parameter, the receiver, an item of the `out` tuple, or its default, and converted to the
//! value the schema type needs (PyTorch's `PythonArgs` accessors: `intlist`, `scalar`, ...).

use std::sync::Arc;

use opgen_core::dispatch::{Device, DeviceType, IValue, Scalar, Stack};
use opgen_core::schema::{ArgType, BaseType, Schema};

use crate::defaults::default_ivalue;
use crate::errors::ParseError;
use crate::parse::{CallArgs, Slot};
use crate::signature::{Param, PySignature, Source};
use crate::value::{Arg, TensorFacts, Value};

/// Where one schema argument's value comes from.
#[derive(Debug, Clone)]
enum From<T> {
    /// A parameter; the value used when it is left out or `None` for a non-optional type.
    Param {
        param: usize,
        absent: Result<IValue<T>, String>,
    },
    /// Item `index` of the `out` parameter holding `of` tensors.
    Out {
        param: usize,
        index: usize,
        of: usize,
    },
    /// The method's receiver.
    Receiver,
    /// No parameter: the schema default.
    Default(Result<IValue<T>, String>),
}

/// How a signature's parameters fill one operator's stack, computed once per pair.
pub struct Plan<B: TensorFacts> {
    from: Vec<From<B::Tensor>>,
    schema: Arc<Schema>,
}

impl<B: TensorFacts> Plan<B> {
    /// The plan for calling `schema`'s operator from `sig` (a method's receiver is `self`).
    pub fn new(sig: &PySignature, schema: Arc<Schema>) -> Plan<B> {
        let self_index = if sig.method {
            schema.self_index()
        } else {
            None
        };
        let from = (schema.arguments.iter().enumerate())
            .map(|(i, arg)| {
                if Some(i) == self_index {
                    return From::Receiver;
                }
                let default = || {
                    (arg.default.as_ref())
                        .and_then(|d| default_ivalue(&arg.ty, &d.value))
                        .ok_or_else(|| {
                            format!(
                                "argument `{}` of `{}` has no default",
                                arg.name, schema.name
                            )
                        })
                };
                for (p, param) in sig.params.iter().enumerate() {
                    match &param.source {
                        Source::Arg(name) if *name == arg.name => {
                            let absent = match python_only_default(sig, p) {
                                Some(v) => Ok(v),
                                None => default(),
                            };
                            return From::Param { param: p, absent };
                        }
                        Source::Out(names) => {
                            if let Some(index) = names.iter().position(|n| *n == arg.name) {
                                return From::Out {
                                    param: p,
                                    index,
                                    of: names.len(),
                                };
                            }
                        }
                        Source::Arg(_) => {}
                    }
                }
                From::Default(default())
            })
            .collect();
        Plan { from, schema }
    }

    /// The schema of the operator the plan calls.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The stack of a call matched by `slots` (one per parameter of `sig`).
    pub fn stack(
        &self,
        sig: &PySignature,
        slots: &[Slot],
        call: CallArgs<'_, '_, B::Tensor>,
        receiver: Option<&Arg<'_, B::Tensor>>,
    ) -> Result<Stack<B::Tensor>, ParseError> {
        let mut stack = Stack::with_capacity(self.from.len());
        self.fill(&mut stack, sig, slots, call, receiver)?;
        Ok(stack)
    }

    /// [`Plan::stack`], pushing onto `stack` (a stack kept from an earlier call, say).
    pub fn fill(
        &self,
        stack: &mut Stack<B::Tensor>,
        sig: &PySignature,
        slots: &[Slot],
        call: CallArgs<'_, '_, B::Tensor>,
        receiver: Option<&Arg<'_, B::Tensor>>,
    ) -> Result<(), ParseError> {
        for (from, arg) in self.from.iter().zip(&self.schema.arguments) {
            let value = match from {
                From::Receiver => match receiver {
                    Some(r) => to_ivalue::<B>(r, &arg.ty, None, sig)?,
                    None => {
                        return Err(ParseError::Internal(
                            "a method call without receiver".into(),
                        ));
                    }
                },
                From::Default(d) => d.clone().map_err(ParseError::Internal)?,
                From::Param { param, absent } => {
                    let p = &sig.params[*param];
                    match slots[*param] {
                        Slot::Absent => absent.clone().map_err(ParseError::Internal)?,
                        Slot::None if arg.ty.is_optional() => IValue::None,
                        Slot::None => absent.clone().map_err(ParseError::Internal)?,
                        Slot::Varargs => varargs::<B>(call.args, p, sig)?,
                        slot => to_ivalue::<B>(given(call, slot), &arg.ty, Some(p), sig)?,
                    }
                }
                From::Out { param, index, of } => {
                    let p = &sig.params[*param];
                    let a = given(call, slots[*param]);
                    let item = match (&a.value, of) {
                        (Value::List { items, .. }, _) if *of > 1 => {
                            items.get(*index).ok_or_else(|| {
                                ParseError::Value(format!(
                                    "{}(): argument 'out' must be a tuple of {of} tensors, not {}",
                                    sig.name,
                                    items.len()
                                ))
                            })?
                        }
                        _ => a,
                    };
                    to_ivalue::<B>(item, &arg.ty, Some(p), sig)?
                }
            };
            stack.push(value);
        }
        Ok(())
    }
}

/// The Python default of a parameter that differs from the schema's: the tensor options'
/// `pin_memory=False` (the schema says `None`), `dtype`/`layout`/`device` `None`.
fn python_only_default<T>(sig: &PySignature, p: usize) -> Option<IValue<T>> {
    let first = sig.params.len() - sig.tensor_options;
    if p < first {
        return None;
    }
    Some(match sig.params[p].default.as_deref() {
        Some("False") => IValue::Bool(false),
        _ => IValue::None,
    })
}

fn given<'s, 'a, T>(call: CallArgs<'s, 'a, T>, slot: Slot) -> &'s Arg<'a, T> {
    match slot {
        Slot::Kw(k) => &call.kwargs[k as usize].1,
        Slot::Pos(p) => &call.args[p as usize],
        Slot::Absent | Slot::None | Slot::Varargs => &call.args[0],
    }
}

/// `view(2, 3)`: the positional arguments as one int list.
fn varargs<B: TensorFacts>(
    args: &[Arg<'_, B::Tensor>],
    param: &Param,
    sig: &PySignature,
) -> Result<IValue<B::Tensor>, ParseError> {
    let ints = (args.iter().enumerate())
        .map(|(i, a)| list_int::<B>(a, i, param, sig))
        .collect::<Result<Vec<i64>, _>>()?;
    Ok(IValue::from(ints))
}

/// One argument's value for schema type `ty`. `param` is the parameter it was given for
/// (`None` for a method's receiver).
fn to_ivalue<B: TensorFacts>(
    arg: &Arg<'_, B::Tensor>,
    ty: &ArgType,
    param: Option<&Param>,
    sig: &PySignature,
) -> Result<IValue<B::Tensor>, ParseError> {
    let v = &arg.value;
    match ty {
        ArgType::Optional(inner) => match v {
            Value::None => Ok(IValue::None),
            _ => to_ivalue::<B>(arg, inner, param, sig),
        },
        // `DimVector` is an int list.
        ArgType::Base(BaseType::DimVector) => {
            list_value::<B>(arg, &ArgType::Base(BaseType::Int), 0, param, sig)
        }
        ArgType::Base(base) => base_value::<B>(arg, *base, sig),
        ArgType::List { elem, size } => list_value::<B>(arg, elem, size.unwrap_or(0), param, sig),
        ArgType::CustomClass(_) => Err(unconvertible(arg, ty, sig)),
    }
}

fn unconvertible<T>(arg: &Arg<'_, T>, ty: &ArgType, sig: &PySignature) -> ParseError {
    ParseError::Internal(format!(
        "{}(): cannot convert {} to `{ty}`",
        sig.name, arg.type_name
    ))
}

fn base_value<B: TensorFacts>(
    arg: &Arg<'_, B::Tensor>,
    base: BaseType,
    sig: &PySignature,
) -> Result<IValue<B::Tensor>, ParseError> {
    let v = &arg.value;
    let bad = || unconvertible(arg, &ArgType::Base(base), sig);
    Ok(match base {
        BaseType::Tensor => match v {
            Value::Tensor(t) => IValue::Tensor((*t).clone()),
            other => {
                let n = other.number().ok_or_else(bad)?;
                IValue::Tensor(B::wrapped_number(n).map_err(|e| ParseError::Value(e.to_string()))?)
            }
        },
        BaseType::Scalar => IValue::from(scalar::<B>(v, &bad)?),
        BaseType::Int | BaseType::SymInt | BaseType::DeviceIndex => match v {
            Value::Int(i) | Value::Index(i) => IValue::Int(*i),
            Value::BigInt => return Err(overflow()),
            Value::Tensor(t) => IValue::Int(item::<B>(t)?.to_i64().ok_or_else(bad)?),
            _ => return Err(bad()),
        },
        BaseType::Float => match v {
            Value::Float(f) => IValue::Float(*f),
            Value::Int(i) => IValue::Float(*i as f64),
            Value::Bool(b) | Value::NumpyBool(b) => IValue::Float(f64::from(u8::from(*b))),
            Value::Tensor(t) => IValue::Float(item::<B>(t)?.to_f64()),
            _ => return Err(bad()),
        },
        BaseType::Bool | BaseType::SymBool => match v {
            Value::Bool(b) => IValue::Bool(*b),
            _ => return Err(bad()),
        },
        BaseType::Str => match v {
            Value::Str(s) => IValue::Str(Arc::new(s.to_string())),
            _ => return Err(bad()),
        },
        BaseType::ScalarType => match v {
            Value::ScalarType(d) | Value::PyType(d) => IValue::ScalarType(*d),
            _ => return Err(bad()),
        },
        BaseType::Layout => match v {
            Value::Layout(l) => IValue::Layout(*l),
            _ => return Err(bad()),
        },
        BaseType::MemoryFormat => match v {
            Value::MemoryFormat(m) => IValue::MemoryFormat(*m),
            _ => return Err(bad()),
        },
        BaseType::QScheme => match v {
            Value::QScheme(q) => IValue::QScheme(*q),
            _ => return Err(bad()),
        },
        BaseType::Device => IValue::Device(device(v).ok_or_else(bad)??),
        BaseType::Generator => match v {
            Value::Generator(g) => IValue::Generator(g.clone()),
            _ => return Err(bad()),
        },
        BaseType::Storage => match v {
            Value::Storage(s) => IValue::Storage(s.clone()),
            _ => return Err(bad()),
        },
        BaseType::Stream => match v {
            Value::Stream(s) => IValue::Stream(Arc::new(*s)),
            _ => return Err(bad()),
        },
        BaseType::DimVector | BaseType::GraphModule => return Err(bad()),
    })
}

/// PyTorch's `scalar_slow`: a number, or the value of a zero-dim tensor.
fn scalar<B: TensorFacts>(
    v: &Value<'_, B::Tensor>,
    bad: &dyn Fn() -> ParseError,
) -> Result<Scalar, ParseError> {
    match v {
        Value::Tensor(t) => item::<B>(t),
        Value::BigInt => Err(overflow()),
        other => other.number().ok_or_else(bad),
    }
}

fn item<B: TensorFacts>(t: &B::Tensor) -> Result<Scalar, ParseError> {
    B::item(t).map_err(|e| ParseError::Value(e.to_string()))
}

fn overflow() -> ParseError {
    ParseError::Value("Overflow when unpacking long".into())
}

/// PyTorch's `toDevice`: a device, a string (`"cpu"`, `"cuda:1"`), or an accelerator index.
fn device<T>(v: &Value<'_, T>) -> Option<Result<Device, ParseError>> {
    Some(match v {
        Value::Device(d) => Ok(*d),
        Value::Str(s) => s.parse::<Device>().map_err(|_| {
            ParseError::Value(format!(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {s}"
            ))
        }),
        Value::Int(i) if *i < 0 => Err(ParseError::Value("Device index must not be negative".into())),
        Value::Int(i) => Ok(Device {
            kind: DeviceType::CUDA,
            index: i8::try_from(*i).ok(),
        }),
        _ => return None,
    })
}

fn list_value<B: TensorFacts>(
    arg: &Arg<'_, B::Tensor>,
    elem: &ArgType,
    size: u32,
    param: Option<&Param>,
    sig: &PySignature,
) -> Result<IValue<B::Tensor>, ParseError> {
    let bad = || {
        unconvertible(
            arg,
            &ArgType::list(elem.clone(), (size > 0).then_some(size)),
            sig,
        )
    };
    let items = match &arg.value {
        Value::List { items, .. } => items,
        // `int[2] stride=2`: one int stands for the whole list.
        Value::Int(i) if size > 0 => return Ok(IValue::from(vec![*i; size as usize])),
        Value::Tensor(_)
            if size > 0 && matches!(elem.base(), Some(BaseType::Int | BaseType::SymInt)) =>
        {
            let i = match base_value::<B>(arg, BaseType::Int, sig)? {
                IValue::Int(i) => i,
                _ => return Err(bad()),
            };
            return Ok(IValue::from(vec![i; size.max(1) as usize]));
        }
        _ => return Err(bad()),
    };
    let param = param.ok_or_else(bad)?;
    Ok(match elem {
        ArgType::Base(BaseType::Int | BaseType::SymInt) => IValue::from(
            (items.iter().enumerate())
                .map(|(i, a)| list_int::<B>(a, i, param, sig))
                .collect::<Result<Vec<i64>, _>>()?,
        ),
        ArgType::Base(BaseType::Float) => IValue::from(
            (items.iter().enumerate())
                .map(|(i, a)| match base_value::<B>(a, BaseType::Float, sig) {
                    Ok(IValue::Float(f)) => Ok(f),
                    _ => Err(element_error(param, a, i, sig)),
                })
                .collect::<Result<Vec<f64>, _>>()?,
        ),
        ArgType::Base(BaseType::Bool) => IValue::from(
            (items.iter().enumerate())
                .map(|(i, a)| match a.value {
                    Value::Bool(b) => Ok(b),
                    _ => Err(element_error(param, a, i, sig)),
                })
                .collect::<Result<Vec<bool>, _>>()?,
        ),
        ArgType::Base(BaseType::Scalar) => IValue::ScalarList(Arc::new(
            (items.iter().enumerate())
                .map(|(i, a)| scalar::<B>(&a.value, &|| element_error(param, a, i, sig)))
                .collect::<Result<Vec<Scalar>, _>>()?,
        )),
        ArgType::Base(BaseType::Tensor) => IValue::TensorList(Arc::new(
            (items.iter())
                .map(|a| match a.value {
                    Value::Tensor(t) => Ok(t.clone()),
                    _ => Err(bad()),
                })
                .collect::<Result<Vec<B::Tensor>, _>>()?,
        )),
        ArgType::Optional(t) if **t == ArgType::Base(BaseType::Tensor) => {
            IValue::OptionalTensorList(Arc::new(
                (items.iter())
                    .map(|a| match a.value {
                        Value::Tensor(t) => Ok(Some(t.clone())),
                        Value::None => Ok(None),
                        _ => Err(bad()),
                    })
                    .collect::<Result<Vec<Option<B::Tensor>>, _>>()?,
            ))
        }
        _ => return Err(bad()),
    })
}

/// An int-list item (PyTorch's `intlist`: `__index__`, a `bool` too, or a one-element tensor).
fn list_int<B: TensorFacts>(
    a: &Arg<'_, B::Tensor>,
    i: usize,
    param: &Param,
    sig: &PySignature,
) -> Result<i64, ParseError> {
    match &a.value {
        Value::Int(v) | Value::Index(v) => Ok(*v),
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::BigInt => Err(overflow()),
        Value::Tensor(t) => item::<B>(t)?
            .to_i64()
            .ok_or_else(|| element_error(param, a, i, sig)),
        _ => Err(element_error(param, a, i, sig)),
    }
}

/// PyTorch's error of a list item that does not convert (`pos` counts from 1 here).
fn element_error<T>(param: &Param, a: &Arg<'_, T>, i: usize, sig: &PySignature) -> ParseError {
    ParseError::WrongElement {
        name: sig.name.clone(),
        param: param.name.to_string(),
        position: None,
        expected: param.ty.type_name(),
        element: a.type_name.to_string(),
        index: i + 1,
    }
}
