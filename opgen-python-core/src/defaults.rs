//! Schema defaults in the Python layer: the text PyTorch's signatures show (`alpha = 1`,
//! `keepdim = False`, `dim = None`), the text of a stub, and the value a call gets.

use opgen_core::dispatch::{IValue, Tensor};
use opgen_core::schema::{ArgType, Argument, BaseType, Literal};

/// The default as PyTorch's parser signatures spell it: torchgen's `cpp.default_expr`, then
/// `pythonify_default`, then `None` for the C++ spellings of "nothing" (`{}`,
/// `::std::nullopt`). `Scalar alpha=1` → `1`, `bool keepdim=False` → `False`,
/// `int[] dims=[]` → `None`, `float eps=1e-5` → `1e-05`, `int reduction=Mean` →
/// `at::Reduction::Mean`, `str rounding='none'` → `"none"`.
pub fn python_default(arg: &Argument) -> Option<String> {
    let default = arg.default.as_ref()?;
    let text = pythonify(&cpp_default(&default.text, &arg.ty));
    Some(match text.as_str() {
        "nullptr" | "c10::nullopt" | "::std::nullopt" | "std::nullopt" | "{}" => "None".into(),
        _ => text,
    })
}

/// The default as a `.pyi` stub writes it (torchgen's `argument_str_pyi`), made valid Python:
/// an int list default `{0,1}` is `(0,1)`, `contiguous_format` names the stub's constant,
/// and a C++ expression with no Python spelling becomes `...`.
pub fn pyi_default(arg: &Argument) -> Option<String> {
    let text = python_default(arg)?;
    let int_list = matches!(arg.ty.strip_optional(), ArgType::List { elem, .. }
        if **elem == ArgType::Base(BaseType::Int) || **elem == ArgType::Base(BaseType::SymInt));
    if int_list && text.starts_with('{') && text.ends_with('}') {
        let items = &text[1..text.len() - 1];
        return Some(if items.contains(',') {
            format!("({items})")
        } else {
            format!("({items},)")
        });
    }
    Some(match text.as_str() {
        "c10::MemoryFormat::Contiguous" | "MemoryFormat::Contiguous" => "contiguous_format".into(),
        t if t.contains("::") || t.starts_with('{') => "...".into(),
        _ => text,
    })
}

/// torchgen's `cpp.default_expr(d, t, symint=False)`.
fn cpp_default(d: &str, ty: &ArgType) -> String {
    if d == "None" && ty.is_optional_of(BaseType::Tensor) {
        return "{}".into();
    }
    if *ty == ArgType::Base(BaseType::Str)
        && d.len() >= 2
        && d.starts_with('\'')
        && d.ends_with('\'')
    {
        return cpp_string(d);
    }
    match ty {
        ArgType::Optional(inner) => {
            if d == "None" {
                return "::std::nullopt".into();
            }
            return cpp_default(d, inner);
        }
        ArgType::List { .. } if d.starts_with('[') && d.ends_with(']') => {
            return format!("{{{}}}", &d[1..d.len() - 1]);
        }
        _ => {}
    }
    match d {
        "False" => "false",
        "True" => "true",
        "None" => "::std::nullopt",
        "Mean" => "at::Reduction::Mean",
        "[]" => "{}",
        "contiguous_format" => "c10::MemoryFormat::Contiguous",
        "long" => "at::kLong",
        other => other,
    }
    .into()
}

/// A single-quoted schema string as a double-quoted C++ string.
fn cpp_string(d: &str) -> String {
    let chars: Vec<char> = d.chars().collect();
    let mut out = String::from("\"");
    let mut i = 1;
    while i + 1 < chars.len() {
        if chars[i] != '\\' {
            if chars[i] == '"' {
                out.push_str("\\\"");
            } else {
                out.push(chars[i]);
            }
            i += 1;
        } else {
            match chars.get(i + 1) {
                Some('\'') => out.push('\''),
                Some(c) => {
                    out.push('\\');
                    out.push(*c);
                }
                None => out.push('\\'),
            }
            i += 2;
        }
    }
    out.push('"');
    out
}

/// torchgen's `pythonify_default` followed by `str`: `true` → `True`, an integer or a float
/// printed back as Python prints it, anything else unchanged.
fn pythonify(s: &str) -> String {
    match s {
        "true" => return "True".into(),
        "false" => return "False".into(),
        _ => {}
    }
    let t = s.trim();
    let digits = t.strip_prefix('+').unwrap_or(t).replace('_', "");
    if let Ok(i) = digits.parse::<i128>() {
        return i.to_string();
    }
    match t.parse::<f64>() {
        Ok(f) if !t.is_empty() => py_float_repr(f),
        _ => s.to_string(),
    }
}

/// Python's `repr` of a float: the shortest digits that round-trip, in fixed notation when
/// the decimal exponent is in `-4..16`, else scientific with a two-digit signed exponent.
pub fn py_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sci = format!("{x:e}"); // shortest round-trip digits: `-1.5e-5`
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let decpt = exp + 1; // digits `d1 d2 ...` stand for `0.d1d2... × 10^decpt`
    if decpt <= -4 || decpt > 16 {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{esign}{:02}", exp.abs());
    }
    let body = if decpt <= 0 {
        format!("0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt as usize >= digits.len() {
        format!("{digits}{}.0", "0".repeat(decpt as usize - digits.len()))
    } else {
        let (int, frac) = digits.split_at(decpt as usize);
        format!("{int}.{frac}")
    };
    format!("{sign}{body}")
}

/// The value a call gets for an argument left out: the schema default of `ty` read as a
/// value, as the dispatcher's `fill_defaults` reads it (the same function,
/// [`opgen_core::dispatch::default_value`]). `int[2] padding=0` is `[0, 0]`,
/// `reduction=Mean` is `1`, `memory_format=contiguous_format` a `MemoryFormat`.
pub fn default_ivalue<T: Tensor>(ty: &ArgType, literal: &Literal) -> Option<IValue<T>> {
    opgen_core::dispatch::default_value(ty, literal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use opgen_core::schema::parse_schema;

    fn defaults(schema: &str) -> Vec<Option<String>> {
        let s = parse_schema(schema).unwrap();
        s.arguments.iter().map(python_default).collect()
    }

    #[test]
    fn python_defaults_are_torchgens() {
        let got = defaults(
            "f(Tensor self, Scalar alpha=1, bool keepdim=False, int[1]? dim=None, int[] dims=[], \
             float eps=1e-05, int reduction=Mean, str rounding='none', int[2] stride=1, \
             int[2] pad=[0,1], MemoryFormat memory_format=contiguous_format, Tensor? w=None, \
             float momentum=0.1, float scale=2) -> Tensor",
        );
        let want = [
            None,
            Some("1"),
            Some("False"),
            Some("None"),
            Some("None"),
            Some("1e-05"),
            Some("at::Reduction::Mean"),
            Some("\"none\""),
            Some("1"),
            Some("{0,1}"),
            Some("c10::MemoryFormat::Contiguous"),
            Some("None"),
            Some("0.1"),
            Some("2"),
        ];
        let want: Vec<Option<String>> = want.iter().map(|w| w.map(str::to_string)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn stub_defaults_are_python() {
        let s = parse_schema(
            "f(int[2] pad=[0,1], int[1] dim=[-1], MemoryFormat m=contiguous_format, int r=Mean) -> Tensor",
        )
        .unwrap();
        let got: Vec<Option<String>> = s.arguments.iter().map(pyi_default).collect();
        assert_eq!(
            got,
            [
                Some("(0,1)".into()),
                Some("(-1,)".into()),
                Some("contiguous_format".into()),
                Some("...".into())
            ]
        );
    }

    /// A left-out argument gets the dispatcher's default value (one model of defaults), and
    /// a default repeated into a huge fixed-size list none, without building it.
    #[test]
    fn left_out_arguments_get_the_dispatchers_defaults() {
        use crate::tests::Mock;
        use opgen_core::schema::parse_type;
        let of =
            |ty: &str, literal: Literal| default_ivalue::<Mock>(&parse_type(ty).unwrap(), &literal);
        assert_eq!(
            of("int[2]", Literal::Int(0)),
            Some(IValue::from(vec![0i64, 0]))
        );
        assert_eq!(
            of(
                "int?[]",
                Literal::List(vec![Literal::Int(1), Literal::None])
            ),
            Some(IValue::from(vec![Some(1i64), None]))
        );
        assert_eq!(of("int[4294967295]", Literal::Int(0)), None);
    }

    #[test]
    fn floats_print_as_python_repr() {
        let cases = [
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (0.1, "0.1"),
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123.456, "123.456"),
            (1.5e-7, "1.5e-07"),
            (f64::INFINITY, "inf"),
        ];
        for (x, want) in cases {
            assert_eq!(py_float_repr(x), want, "{x}");
        }
    }
}
