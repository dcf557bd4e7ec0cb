//! PyTorch's `PythonArgParser` (`torch/csrc/utils/python_arg_parser.cpp`): match a call's
//! arguments against each signature in order, take the first that fits; when none does,
//! explain why in PyTorch's words.

use std::borrow::Borrow;

use smallvec::SmallVec;

use crate::errors::{ParseError, format_invalid_args};
use crate::signature::{Param, PySignature};
use crate::types::ParamType;
use crate::value::{Arg, TensorFacts, Value, is_integral};

/// The arguments of one call.
#[derive(Debug)]
pub struct CallArgs<'s, 'a, T> {
    /// Positional arguments.
    pub args: &'s [Arg<'a, T>],
    /// Keyword arguments, in the order given.
    pub kwargs: &'s [(&'s str, Arg<'a, T>)],
}

// Two shared slices, whatever `T` is (a derive would ask for `T: Copy`).
impl<T> Clone for CallArgs<'_, '_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for CallArgs<'_, '_, T> {}

/// Where a parameter's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Not given (the parameter has a default).
    Absent,
    /// Given as `None` where `None` is accepted.
    None,
    /// The positional argument at this index.
    Pos(u32),
    /// The keyword argument at this index.
    Kw(u32),
    /// All the positional arguments, as one int list (`view(2, 3)` for `view((2, 3))`).
    Varargs,
}

/// One slot per parameter, inline for the usual number of parameters.
pub type Slots = SmallVec<[Slot; 8]>;

/// The signature a call matched, and each parameter's slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The index of the signature in the list given to [`parse`].
    pub index: usize,
    /// One slot per parameter of that signature.
    pub slots: Slots,
}

/// PyTorch's `PythonArgParser::raw_parse`: with one signature, its errors are raised as they
/// are found; with several, the first that matches wins, and if none does the error is the
/// one of the only plausible signature (by argument count), or the list of signatures.
pub fn parse<B: TensorFacts, S: Borrow<PySignature>>(
    signatures: &[S],
    call: CallArgs<'_, '_, B::Tensor>,
) -> Result<Parsed, ParseError> {
    if let [only] = signatures {
        let only = only.borrow();
        let slots = parse_signature::<B>(only, call, true)?.ok_or_else(|| internal(only))?;
        return Ok(Parsed { index: 0, slots });
    }
    for (index, sig) in signatures.iter().enumerate() {
        if let Some(slots) = parse_signature::<B>(sig.borrow(), call, false)? {
            return Ok(Parsed { index, slots });
        }
    }
    Err(no_match::<B, S>(signatures, call))
}

/// PyTorch's `print_error`.
fn no_match<B: TensorFacts, S: Borrow<PySignature>>(
    signatures: &[S],
    call: CallArgs<'_, '_, B::Tensor>,
) -> ParseError {
    let num_args = call.args.len() + call.kwargs.len();
    let plausible: Vec<&PySignature> = (signatures.iter())
        .map(Borrow::borrow)
        .filter(|s| num_args >= s.min_args() && num_args <= s.max_args())
        .collect();
    if let [only] = plausible.as_slice()
        && let Err(e) = parse_signature::<B>(only, call, true)
    {
        return e;
    }
    let name = signatures.first().map_or("", |s| s.borrow().name.as_str());
    let options: Vec<String> = signatures.iter().map(|s| s.borrow().to_string()).collect();
    ParseError::InvalidCombination(format_invalid_args(call, &format!("{name}()"), &options))
}

fn internal(sig: &PySignature) -> ParseError {
    ParseError::Internal(format!("{}(): no match and no error", sig.name))
}

/// PyTorch's `FunctionSignature::parse`: `Ok(Some(slots))` on a match, `Ok(None)` on no
/// match when not raising, `Err` for the error found when raising (and for a tensor list
/// with a non-tensor item, which PyTorch raises in any case).
pub fn parse_signature<B: TensorFacts>(
    sig: &PySignature,
    call: CallArgs<'_, '_, B::Tensor>,
    raise: bool,
) -> Result<Option<Slots>, ParseError> {
    let nargs = call.args.len();
    let mut remaining_kwargs = call.kwargs.len();
    let mut arg_pos = 0;
    let max_pos = sig.max_pos_args();
    let varargs_intlist = max_pos == 1 && sig.params.first().is_some_and(|p| p.ty.is_int_list());
    let fail = |e: ParseError| if raise { Err(e) } else { Ok(None) };
    if nargs > max_pos && !varargs_intlist {
        return fail(extra_args(sig, nargs));
    }
    let mut slots = Slots::new();
    for (i, param) in sig.params.iter().enumerate() {
        let (slot, is_kwd) = if arg_pos < nargs {
            if param.keyword_only {
                return fail(extra_args(sig, nargs));
            }
            (Some(Slot::Pos(arg_pos as u32)), false)
        } else {
            match find_kwarg(param, call.kwargs) {
                Some(k) => (Some(Slot::Kw(k as u32)), true),
                None => (None, false),
            }
        };
        let arg = slot.map(|s| arg_of(call, s));
        let varargs_eligible = varargs_intlist && arg_pos == 0 && !is_kwd;
        let mut failed_idx = None;
        match (slot, arg) {
            (None, _) if param.optional() => slots.push(Slot::Absent),
            (Some(_), Some(a)) if matches!(a.value, Value::None) && param.allow_none => {
                slots.push(Slot::None)
            }
            (None, _) => return fail(missing_args(sig, i)),
            (Some(s), Some(a)) => {
                if check::<B>(param, a, i, &mut failed_idx)? {
                    slots.push(s);
                } else if varargs_eligible && varargs_match::<B>(param, call.args, &mut failed_idx)
                {
                    slots.push(Slot::Varargs);
                    arg_pos = nargs;
                    continue;
                } else if raise {
                    return Err(wrong_type(
                        sig, param, a, is_kwd, arg_pos, failed_idx, call.args,
                    ));
                } else {
                    return Ok(None);
                }
            }
            (Some(_), None) => return Err(internal(sig)),
        }
        if !is_kwd {
            arg_pos += 1;
        } else if slot.is_some() {
            remaining_kwargs -= 1;
        }
    }
    if remaining_kwargs > 0 {
        return fail(extra_kwargs(sig, call));
    }
    Ok(Some(slots))
}

fn arg_of<'s, 'a, T>(call: CallArgs<'s, 'a, T>, slot: Slot) -> &'s Arg<'a, T> {
    match slot {
        Slot::Kw(k) => &call.kwargs[k as usize].1,
        Slot::Pos(p) => &call.args[p as usize],
        // Only positional and keyword slots are looked up.
        Slot::Absent | Slot::None | Slot::Varargs => &call.args[0],
    }
}

/// The keyword argument for `param`: its name, else a NumPy-style alias (`axis` for `dim`).
fn find_kwarg<T>(param: &Param, kwargs: &[(&str, Arg<'_, T>)]) -> Option<usize> {
    let find = |name: &str| kwargs.iter().position(|(k, _)| *k == name);
    find(&param.name).or_else(|| param.numpy_names().iter().find_map(|n| find(n)))
}

/// `view(2, 3)`: the positional arguments together as the one int-list parameter.
fn varargs_match<B: TensorFacts>(
    param: &Param,
    args: &[Arg<'_, B::Tensor>],
    failed: &mut Option<usize>,
) -> bool {
    match args.first() {
        None => true,
        Some(first) if is_int_or_symint::<B>(&first.value) => true,
        Some(_) => {
            let _ = param;
            *failed = Some(0);
            false
        }
    }
}

/// PyTorch's `FunctionParameter::check`. A tensor list with a non-tensor item is an error
/// whatever the mode (PyTorch raises it from the check itself).
pub fn check<B: TensorFacts>(
    param: &Param,
    arg: &Arg<'_, B::Tensor>,
    argnum: usize,
    failed_idx: &mut Option<usize>,
) -> Result<bool, ParseError> {
    let v = &arg.value;
    Ok(match param.ty {
        ParamType::Tensor => {
            matches!(v, Value::Tensor(_)) || (param.numbers_as_tensors && v.is_number())
        }
        ParamType::Scalar => v.is_number() || zero_dim_number::<B>(v),
        ParamType::Complex | ParamType::Double => {
            matches!(v, Value::Complex(_)) && param.ty == ParamType::Complex
                || v.is_double()
                || zero_dim_number::<B>(v)
        }
        ParamType::Int64 => v.is_long() || zero_dim_integer::<B>(v),
        ParamType::SymInt => is_int_or_symint::<B>(v),
        ParamType::IntList | ParamType::SymIntList => is_int_list::<B>(v, param.size, failed_idx),
        ParamType::FloatList => match v {
            Value::List { items, .. } => items
                .first()
                .is_none_or(|i| i.value.is_double() || matches!(i.value, Value::Complex(_))),
            _ => false,
        },
        ParamType::TensorList => return tensor_list(v, argnum),
        ParamType::ScalarList => match v {
            Value::List { items, .. } => items.iter().all(|i| i.value.is_number()),
            _ => false,
        },
        ParamType::BoolList => match v {
            Value::List { items, .. } => items.iter().all(|i| matches!(i.value, Value::Bool(_))),
            _ => false,
        },
        ParamType::Bool => matches!(v, Value::Bool(_)),
        ParamType::String => matches!(v, Value::Str(_)),
        ParamType::ScalarType => matches!(v, Value::ScalarType(_) | Value::PyType(_)),
        ParamType::Layout => matches!(v, Value::Layout(_)),
        ParamType::MemoryFormat => matches!(v, Value::MemoryFormat(_)),
        ParamType::QScheme => matches!(v, Value::QScheme(_)),
        ParamType::Device => v.is_long() || matches!(v, Value::Str(_) | Value::Device(_)),
        ParamType::Generator => matches!(v, Value::Generator(_)),
        ParamType::Storage => matches!(v, Value::Storage(_)),
        ParamType::Stream => matches!(v, Value::Stream(_)),
    })
}

/// A zero-dim tensor that does not require grad, for a `float` or `Scalar` parameter.
fn zero_dim_number<B: TensorFacts>(v: &Value<'_, B::Tensor>) -> bool {
    matches!(v, Value::Tensor(t) if !B::requires_grad(t) && B::ndim(t) == Some(0))
}

/// A zero-dim integer tensor (not bool) that does not require grad, for an `int` parameter.
fn zero_dim_integer<B: TensorFacts>(v: &Value<'_, B::Tensor>) -> bool {
    matches!(v, Value::Tensor(t) if !B::requires_grad(t) && B::ndim(t) == Some(0)
        && B::scalar_type(t).is_some_and(|d| is_integral(d, false)))
}

/// PyTorch's `is_int_or_symint`: an integer that is not a bool (anything with `__index__`),
/// or a one-element integer tensor.
fn is_int_or_symint<B: TensorFacts>(v: &Value<'_, B::Tensor>) -> bool {
    match v {
        Value::Int(_) | Value::BigInt | Value::Index(_) => true,
        Value::Tensor(t) => {
            B::numel(t) == Some(1) && B::scalar_type(t).is_some_and(|d| is_integral(d, true))
        }
        _ => false,
    }
}

/// PyTorch's `is_int_or_symint_list`: a list or tuple that is empty or starts with an
/// integer (the other items are checked when converted), or, for a sized list, one integer.
fn is_int_list<B: TensorFacts>(
    v: &Value<'_, B::Tensor>,
    size: u32,
    failed_idx: &mut Option<usize>,
) -> bool {
    match v {
        Value::List { items, .. } => match items.first() {
            None => true,
            Some(first) if is_int_or_symint::<B>(&first.value) => true,
            Some(_) => {
                *failed_idx = Some(0);
                false
            }
        },
        other => size > 0 && is_int_or_symint::<B>(other),
    }
}

/// PyTorch's `is_tensor_list_and_append_overloaded(.., throw_error=true)`.
fn tensor_list<T>(v: &Value<'_, T>, argnum: usize) -> Result<bool, ParseError> {
    let Value::List { items, .. } = v else {
        return Ok(false);
    };
    for (idx, item) in items.iter().enumerate() {
        if !matches!(item.value, Value::Tensor(_)) {
            return Err(ParseError::TensorListItem {
                index: idx,
                argnum,
                got: item.type_name.to_string(),
            });
        }
    }
    Ok(true)
}

fn extra_args(sig: &PySignature, nargs: usize) -> ParseError {
    ParseError::ExtraArgs {
        name: sig.name.clone(),
        min: sig.min_args(),
        max: sig.max_pos_args(),
        given: nargs,
    }
}

fn missing_args(sig: &PySignature, from: usize) -> ParseError {
    let missing = sig.params[from..]
        .iter()
        .filter(|p| !p.optional())
        .map(|p| p.name.to_string());
    ParseError::MissingArgs {
        name: sig.name.clone(),
        missing: missing.collect(),
    }
}

fn extra_kwargs<T>(sig: &PySignature, call: CallArgs<'_, '_, T>) -> ParseError {
    for (key, _) in call.kwargs {
        match sig.params.iter().position(|p| p.name == *key) {
            None => {
                return ParseError::UnexpectedKeyword {
                    name: sig.name.clone(),
                    keyword: key.to_string(),
                };
            }
            Some(i) if i < call.args.len() => {
                return ParseError::MultipleValues {
                    name: sig.name.clone(),
                    keyword: key.to_string(),
                };
            }
            Some(_) => {}
        }
    }
    ParseError::Internal("invalid keyword arguments".into())
}

fn wrong_type<T>(
    sig: &PySignature,
    param: &Param,
    arg: &Arg<'_, T>,
    is_kwd: bool,
    arg_pos: usize,
    failed_idx: Option<usize>,
    args: &[Arg<'_, T>],
) -> ParseError {
    let expected = param.ty.type_name();
    if is_kwd {
        return ParseError::WrongType {
            name: sig.name.clone(),
            param: param.name.to_string(),
            position: None,
            expected,
            got: arg.type_name.to_string(),
        };
    }
    if let Some(idx) = failed_idx {
        // The failing element: of the list given, or of all the positional arguments
        // when they were taken as the list.
        let elem = match &arg.value {
            Value::List { items, .. } => items.get(idx).map(|i| i.type_name.to_string()),
            _ => args.get(idx).map(|a| a.type_name.to_string()),
        };
        return ParseError::WrongElement {
            name: sig.name.clone(),
            param: param.name.to_string(),
            position: Some(arg_pos + 1),
            expected,
            element: elem.unwrap_or_default(),
            index: idx,
        };
    }
    ParseError::WrongType {
        name: sig.name.clone(),
        param: param.name.to_string(),
        position: Some(arg_pos + 1),
        expected,
        got: arg.type_name.to_string(),
    }
}
