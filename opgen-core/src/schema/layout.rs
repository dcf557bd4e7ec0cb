//! Where each part of a schema sits in its canonical printing.
//!
//! A schema the parser accepts is byte-identical to its printed form (R2), so these ranges
//! also point into the string the user wrote. Checks that run on a [`Schema`] after parsing
//! (the `validate` stage, the macros) use them to underline an argument, a type, a default
//! or a return.

use std::fmt::{self, Display, Write as _};
use std::ops::Range;

use super::model::{Argument, Return, Schema};

/// Byte ranges of a schema's parts in `schema.to_string()`; see [`layout`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemaLayout {
    /// The operator name with namespace and overload (`aten::add_.Tensor`).
    pub name: Range<usize>,
    /// The overload name after the `.`, if any (`Tensor`).
    pub overload: Option<Range<usize>>,
    /// The argument list including its parentheses (`(Tensor self, *, Scalar alpha=1)`).
    pub argument_list: Range<usize>,
    /// The keyword-only marker `*`, if printed.
    pub star: Option<Range<usize>>,
    /// One entry per argument, in the order of [`Schema::arguments`].
    pub arguments: Vec<ArgumentLayout>,
    /// Everything after ` -> `: `()`, `Tensor`, `(Tensor values, Tensor indices)`.
    pub returns_all: Range<usize>,
    /// One entry per return, in the order of [`Schema::returns`].
    pub returns: Vec<ReturnLayout>,
}

/// Byte ranges of one argument, e.g. `Tensor(a!) out` or `int[2] stride=1`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgumentLayout {
    /// The whole argument: type, name and default.
    pub whole: Range<usize>,
    /// The type as written, annotation included (`Tensor(a!)`, `int[2]`).
    pub ty: Range<usize>,
    /// The argument's name.
    pub name: Range<usize>,
    /// The default's text after `=`, if any.
    pub default: Option<Range<usize>>,
}

/// Byte ranges of one return, e.g. `Tensor(a!)` or `Tensor values`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReturnLayout {
    /// The whole return: type and name.
    pub whole: Range<usize>,
    /// The type as written, annotation included.
    pub ty: Range<usize>,
    /// The return's name, if it has one.
    pub name: Option<Range<usize>>,
}

/// Computes where each part of `schema` is printed in `schema.to_string()`.
///
/// ```
/// use opgen_core::schema::{layout, parse_schema};
/// let text = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
/// let schema = parse_schema(text).unwrap();
/// let at = layout(&schema);
/// assert_eq!(&text[at.arguments[2].ty.clone()], "Scalar");
/// assert_eq!(&text[at.arguments[2].default.clone().unwrap()], "1");
/// assert_eq!(&text[at.returns[0].whole.clone()], "Tensor");
/// ```
pub fn layout(schema: &Schema) -> SchemaLayout {
    let name_len = width(&schema.name);
    let overload = schema
        .name
        .overload
        .as_ref()
        .map(|o| name_len - o.len()..name_len);
    // Mirrors `Display for Schema`: positional arguments, then `*, ` and the keyword-only
    // ones, whatever their order in the vector.
    let mut arguments = vec![ArgumentLayout::default(); schema.arguments.len()];
    let mut star = None;
    let mut pos = name_len + 1;
    let mut first = true;
    for pass in [false, true] {
        for (i, arg) in schema.arguments.iter().enumerate() {
            if arg.kwarg_only != pass {
                continue;
            }
            if !first {
                pos += 2;
            }
            first = false;
            if arg.kwarg_only && star.is_none() {
                star = Some(pos..pos + 1);
                pos += 3;
            }
            arguments[i] = argument_layout(arg, pos);
            pos = arguments[i].whole.end;
        }
    }
    let argument_list = name_len..pos + 1;
    let returns_start = pos + 1 + " -> ".len();
    let mut returns = Vec::with_capacity(schema.returns.len());
    let returns_all = match schema.returns.as_slice() {
        [] => returns_start..returns_start + 2,
        [one] => {
            returns.push(return_layout(one, returns_start));
            returns_start..returns[0].whole.end
        }
        many => {
            let mut pos = returns_start + 1;
            for (i, r) in many.iter().enumerate() {
                if i > 0 {
                    pos += 2;
                }
                let l = return_layout(r, pos);
                pos = l.whole.end;
                returns.push(l);
            }
            returns_start..pos + 1
        }
    };
    SchemaLayout {
        name: 0..name_len,
        overload,
        argument_list,
        star,
        arguments,
        returns_all,
        returns,
    }
}

// An argument prints as `TYPE NAME` or `TYPE NAME=DEFAULT`: the type's width is what
// remains once the name and default are taken off, so the annotation logic of the printer
// is not repeated here.
fn argument_layout(arg: &Argument, at: usize) -> ArgumentLayout {
    let end = at + width(arg);
    let default = arg.default.as_ref().map(|d| end - d.text.len()..end);
    let name_end = default.as_ref().map_or(end, |d| d.start - 1);
    let name = name_end - arg.name.len()..name_end;
    ArgumentLayout {
        whole: at..end,
        ty: at..name.start - 1,
        name,
        default,
    }
}

fn return_layout(ret: &Return, at: usize) -> ReturnLayout {
    let end = at + width(ret);
    let name = ret.name.as_ref().map(|n| end - n.len()..end);
    ReturnLayout {
        whole: at..end,
        ty: at..name.as_ref().map_or(end, |n| n.start - 1),
        name,
    }
}

/// The number of bytes `value` prints as, without allocating.
fn width(value: &impl Display) -> usize {
    struct Count(usize);
    impl fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0 += s.len();
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to `Count` cannot fail; a `Display` impl that fails is a bug we ignore here.
    let _ = write!(count, "{value}");
    count.0
}
