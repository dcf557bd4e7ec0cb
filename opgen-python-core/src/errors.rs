//! The argument errors of PyTorch's Python layer, with PyTorch's wording
//! (`python_arg_parser.cpp`, `invalid_arguments.cpp`). All are `TypeError`s in Python.

use std::fmt;
use std::io::IsTerminal;

use crate::parse::CallArgs;
use crate::value::{Arg, Value};

/// An argument error. `Display` gives PyTorch's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// More positional arguments than the signature takes.
    ExtraArgs {
        /// The function's name.
        name: String,
        /// Parameters without a default.
        min: usize,
        /// Positional parameters.
        max: usize,
        /// Positional arguments given.
        given: usize,
    },
    /// Parameters without a default were not given.
    MissingArgs {
        /// The function's name.
        name: String,
        /// The missing parameters, from the first missing one on.
        missing: Vec<String>,
    },
    /// An argument of the wrong type.
    WrongType {
        /// The function's name.
        name: String,
        /// The parameter.
        param: String,
        /// Its position (from 1), if given positionally.
        position: Option<usize>,
        /// The type expected (`Tensor`, `tuple of ints`).
        expected: &'static str,
        /// The Python type given.
        got: String,
    },
    /// A list argument with an item of the wrong type.
    WrongElement {
        /// The function's name.
        name: String,
        /// The parameter.
        param: String,
        /// Its position (from 1), if given positionally.
        position: Option<usize>,
        /// The type expected (`tuple of ints`).
        expected: &'static str,
        /// The Python type of the item.
        element: String,
        /// The item's index as PyTorch prints it.
        index: usize,
    },
    /// A tensor list with an item that is not a tensor.
    TensorListItem {
        /// The item's index.
        index: usize,
        /// The parameter's index.
        argnum: usize,
        /// The item's Python type.
        got: String,
    },
    /// A keyword that names no parameter.
    UnexpectedKeyword {
        /// The function's name.
        name: String,
        /// The keyword.
        keyword: String,
    },
    /// A keyword that names a parameter given positionally.
    MultipleValues {
        /// The function's name.
        name: String,
        /// The keyword.
        keyword: String,
    },
    /// No signature matched: PyTorch's `format_invalid_args` text.
    InvalidCombination(String),
    /// A value that cannot be converted (an `int` too large, a bad device string).
    Value(String),
    /// A bug in this crate.
    Internal(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::ExtraArgs {
                name,
                min,
                max,
                given,
            } if min != max => write!(
                f,
                "{name}() takes from {min} to {max} positional arguments but {given} were given"
            ),
            ParseError::ExtraArgs {
                name, max, given, ..
            } => write!(
                f,
                "{name}() takes {max} positional argument{} but {given} {} given",
                if *max == 1 { "" } else { "s" },
                if *given == 1 { "was" } else { "were" }
            ),
            ParseError::MissingArgs { name, missing } => {
                let list: Vec<String> = missing.iter().map(|m| format!("\"{m}\"")).collect();
                // PyTorch's own wording, plural `s` on one argument included.
                write!(
                    f,
                    "{name}() missing {} required positional argument{}: {}",
                    missing.len(),
                    if missing.len() == 1 { "s" } else { "" },
                    list.join(", ")
                )
            }
            ParseError::WrongType {
                name,
                param,
                position,
                expected,
                got,
            } => match position {
                Some(p) => write!(
                    f,
                    "{name}(): argument '{param}' (position {p}) must be {expected}, not {got}"
                ),
                None => write!(
                    f,
                    "{name}(): argument '{param}' must be {expected}, not {got}"
                ),
            },
            ParseError::WrongElement {
                name,
                param,
                position,
                expected,
                element,
                index,
            } => {
                let at = position
                    .map(|p| format!(" (position {p})"))
                    .unwrap_or_default();
                write!(
                    f,
                    "{name}(): argument '{param}'{at} must be {expected}, but found element of type {element} at pos {index}"
                )
            }
            ParseError::TensorListItem { index, argnum, got } => {
                write!(
                    f,
                    "expected Tensor as element {index} in argument {argnum}, but got {got}"
                )
            }
            ParseError::UnexpectedKeyword { name, keyword } => {
                write!(f, "{name}() got an unexpected keyword argument '{keyword}'")
            }
            ParseError::MultipleValues { name, keyword } => {
                write!(f, "{name}() got multiple values for argument '{keyword}'")
            }
            ParseError::InvalidCombination(text) | ParseError::Value(text) => f.write_str(text),
            ParseError::Internal(text) => {
                write!(f, "opgen-python internal error: {text}; please report it")
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// One parameter of a signature string as `invalid_arguments.cpp` reads it back: the last
/// word is the name, the rest the type (so `Number alpha = 1` reads as type `Number alpha =`
/// named `1`, exactly as PyTorch's reader does).
struct OptionArg {
    name: String,
    type_name: String,
}

/// PyTorch's `_parseOption`.
fn parse_option(option: &str) -> Vec<OptionArg> {
    let inner = option.get(1..option.len().saturating_sub(1)).unwrap_or("");
    inner
        .split(", ")
        .map(|arg| match arg.rfind(' ') {
            // `*` has no space: PyTorch's index arithmetic makes it both name and type.
            None => OptionArg {
                name: arg.to_string(),
                type_name: arg.to_string(),
            },
            Some(end) => {
                let type_end = if arg.contains("...") {
                    end.saturating_sub(4)
                } else {
                    end
                };
                OptionArg {
                    name: arg[end + 1..].to_string(),
                    type_name: arg.get(..type_end).unwrap_or("").to_string(),
                }
            }
        })
        .collect()
}

/// PyTorch's `_buildType(..).is_matching`: a type name in a signature against a Python
/// type name (`float` also takes `int`).
fn type_matches(option_type: &str, python_type: &str) -> bool {
    match option_type {
        "float" => matches!(python_type, "float" | "int" | "long"),
        "int" => matches!(python_type, "int" | "long"),
        other => other == python_type,
    }
}

/// PyTorch's `format_invalid_args`: `add() received an invalid combination of arguments -
/// got (Tensor, str), but expected one of: ...`, each signature with, when the argument
/// count fits, the arguments that do not match marked (`!str!`, in red on a terminal).
pub fn format_invalid_args<T>(
    call: CallArgs<'_, '_, T>,
    function: &str,
    options: &[String],
) -> String {
    let mut msg = format!("{function} received an invalid combination of arguments - ");
    let color = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
    if let [option] = options {
        let parsed = parse_option(option);
        let unmatched = unmatched_kwargs(&parsed, call);
        if !unmatched.is_empty() {
            msg.push_str("got unrecognized keyword arguments: ");
            msg.push_str(&unmatched.join(", "));
            return msg;
        }
        msg.push_str("got ");
        if argcount_match(&parsed, call) {
            msg.push_str(&formatted_arg_desc(&parsed, call, color));
        } else {
            msg.push_str(&arg_desc(call));
        }
        msg.push_str(", but expected ");
        msg.push_str(option);
        return msg;
    }
    msg.push_str("got ");
    msg.push_str(&arg_desc(call));
    msg.push_str(", but expected one of:\n");
    for option in options {
        let parsed = parse_option(option);
        msg.push_str(" * ");
        msg.push_str(option);
        msg.push('\n');
        if argcount_match(&parsed, call) {
            let unmatched = unmatched_kwargs(&parsed, call);
            if unmatched.is_empty() {
                msg.push_str(
                    "      didn't match because some of the arguments have invalid types: ",
                );
                msg.push_str(&formatted_arg_desc(&parsed, call, color));
            } else {
                msg.push_str("      didn't match because some of the keywords were incorrect: ");
                msg.push_str(&unmatched.join(", "));
            }
            msg.push('\n');
        }
    }
    msg
}

fn argcount_match<T>(option: &[OptionArg], call: CallArgs<'_, '_, T>) -> bool {
    let variadic = option.iter().any(|a| a.type_name.contains("..."));
    let expected = option.len();
    let got = call.args.len() + call.kwargs.len();
    got == expected || (variadic && got > expected)
}

/// PyTorch's `_tryMatchKwargs`: the keywords that name none of the last parameters.
fn unmatched_kwargs<T>(option: &[OptionArg], call: CallArgs<'_, '_, T>) -> Vec<String> {
    let start = option.len().saturating_sub(call.kwargs.len());
    (call.kwargs.iter())
        .filter(|(k, _)| !option[start..].iter().any(|a| a.name == *k))
        .map(|(k, _)| k.to_string())
        .collect()
}

/// PyTorch's `_argDesc`: `(Tensor, str, alpha=int)`.
fn arg_desc<T>(call: CallArgs<'_, '_, T>) -> String {
    let mut parts: Vec<String> = call.args.iter().map(|a| a.type_name.to_string()).collect();
    parts.extend(
        call.kwargs
            .iter()
            .map(|(k, a)| format!("{k}={}", a.type_name)),
    );
    joined(parts, call.args.is_empty())
}

/// `(a, b)`. PyTorch trims the last `", "` only when there are positional arguments, so
/// keyword arguments alone print as `(alpha=int, )`.
fn joined(parts: Vec<String>, no_positional: bool) -> String {
    let trailing = if no_positional && !parts.is_empty() {
        ", "
    } else {
        ""
    };
    format!("({}{trailing})", parts.join(", "))
}

/// PyTorch's `_formattedArgDesc`: each argument's type, marked when it does not match the
/// signature's type at its place; lists and tuples with their items' types.
fn formatted_arg_desc<T>(option: &[OptionArg], call: CallArgs<'_, '_, T>, color: bool) -> String {
    let (red, reset_red, green, reset_green) = if color {
        ("\x1b[31;1m", "\x1b[0m", "\x1b[32;1m", "\x1b[0m")
    } else {
        ("!", "!", "", "")
    };
    let n = call.args.len() + call.kwargs.len();
    let mut parts = Vec::with_capacity(n);
    for i in 0..n {
        let is_kwarg = i >= call.args.len();
        let expected = option.get(i);
        let arg: Option<&Arg<'_, T>> = if is_kwarg {
            let name = expected.map_or("", |o| o.name.as_str());
            call.kwargs.iter().find(|(k, _)| *k == name).map(|(_, a)| a)
        } else {
            call.args.get(i)
        };
        let Some(arg) = arg else { continue };
        let matching = expected.is_some_and(|o| type_matches(&o.type_name, &arg.type_name));
        let mut s = String::from(if matching { green } else { red });
        if is_kwarg {
            s.push_str(expected.map_or("", |o| o.name.as_str()));
            s.push('=');
        }
        s.push_str(&describe(arg));
        s.push_str(if matching { reset_green } else { reset_red });
        parts.push(s);
    }
    joined(parts, call.args.is_empty())
}

/// `int`, or `tuple of (int, float)` / `list of [int]` for lists and tuples.
fn describe<T>(arg: &Arg<'_, T>) -> String {
    match &arg.value {
        Value::List { tuple, items } => {
            let names: Vec<&str> = items.iter().map(|i| i.type_name.as_ref()).collect();
            let joined = names.join(", ");
            if *tuple {
                let comma = if items.len() == 1 { "," } else { "" };
                format!("{} of ({joined}{comma})", arg.type_name)
            } else {
                format!("{} of [{joined}]", arg.type_name)
            }
        }
        _ => arg.type_name.to_string(),
    }
}
