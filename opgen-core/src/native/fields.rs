//! Reading one field value into its typed form (SCHEMA.md §2.5 syntax rules: R36, R39, R40,
//! R42, R45, R46, R48, R54, R55, R57, R58). Each error's range is relative to the text
//! its [`Site`] names.

use std::ops::Range;

use crate::schema::{Argument, OperatorName, Rule, SchemaError, parse_operator_name, parse_schema};

use super::entry::{
    DeviceCheck, EntryError, KernelName, Precomputed, Site, UfuncInnerLoop, Variants,
};
use super::keys::{Field, ScalarType, UfuncKey, is_known_dispatch_key};
use crate::dispatch::DispatchKey;
use crate::schema::suggest::closest;

/// Errors collected while reading one entry.
#[derive(Default)]
pub(crate) struct Diag(pub Vec<EntryError>);

impl Diag {
    pub fn at(
        &mut self,
        site: Site,
        rule: Rule,
        range: Range<usize>,
        message: impl Into<String>,
    ) -> &mut SchemaError {
        self.0.push(EntryError::new(
            site,
            SchemaError::new(rule, range, message),
        ));
        &mut self.0.last_mut().expect("just pushed").error
    }

    pub fn hint(err: &mut SchemaError, hint: impl Into<String>) {
        err.hint = Some(hint.into());
    }

    /// An error with its hint.
    pub fn err(
        &mut self,
        site: Site,
        rule: Rule,
        range: Range<usize>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) {
        let e = self.at(site, rule, range, message);
        e.hint = Some(hint.into());
    }
}

/// The whole text (an empty range stands for the whole value).
pub(crate) const WHOLE: Range<usize> = 0..0;

/// Splits `ns::schema` as torchgen does (at every `::`, R36). Returns the namespace (if
/// written and not empty) and the byte offset where the schema starts.
pub(crate) fn split_namespace(func: &str, diag: &mut Diag) -> Option<(Option<String>, usize)> {
    let Some(last) = func.rfind("::") else {
        return Some((None, 0));
    };
    let prefix = &func[..last];
    let site = Site::Value(Field::Func);
    if prefix.contains(['(', ' ']) {
        diag.err(
            site,
            Rule::EntryFunc,
            last..last + 2,
            "`::` inside the schema; torchgen reads everything before the last `::` as a namespace",
            "remove `::` from default values; a namespace goes before the operator name only",
        );
        return None;
    }
    if prefix.contains("::") {
        diag.err(
            site,
            Rule::EntryFunc,
            0..last,
            format!("namespace `{prefix}` has more than one level"),
            "use a single namespace, e.g. `custom::foo(...)`",
        );
        return None;
    }
    // torchgen treats an empty prefix (`::foo`) as no namespace.
    let ns = (!prefix.is_empty()).then(|| prefix.to_string());
    Some((ns, last + 2))
}

pub(crate) fn parse_variants(text: &str, diag: &mut Diag) -> Variants {
    let mut v = Variants::default();
    let mut at = 0;
    for piece in text.split(", ") {
        match piece {
            "function" => v.function = true,
            "method" => v.method = true,
            _ => {
                diag.err(
                    Site::Value(Field::Variants),
                    Rule::BadVariants,
                    at..at + piece.len(),
                    format!("unknown variant `{piece}` in `variants`"),
                    "write `function`, `method` or `function, method` (comma and one space)",
                );
            }
        }
        at += piece.len() + 2;
    }
    v
}

pub(crate) fn parse_device_check(text: &str, diag: &mut Diag) -> DeviceCheck {
    match text {
        "NoCheck" => DeviceCheck::NoCheck,
        "ExactSame" => DeviceCheck::ExactSame,
        _ => {
            diag.err(
                Site::Value(Field::DeviceCheck),
                Rule::BadDeviceCheck,
                WHOLE,
                format!("unknown `device_check` value `{text}`"),
                "write `NoCheck` or `ExactSame`",
            );
            DeviceCheck::ExactSame
        }
    }
}

/// An operator name in a field (`structured_delegate`, one `autogen` item): the parser's
/// R3–R8 problems are reported under the field's rule.
pub(crate) fn parse_field_operator_name(
    text: &str,
    at: usize,
    site: Site,
    rule: Rule,
    diag: &mut Diag,
) -> Option<OperatorName> {
    match parse_operator_name(text) {
        Ok(name) => Some(name),
        Err(errors) => {
            for inner in errors {
                let e = diag.at(
                    site,
                    rule,
                    at + inner.range.start..at + inner.range.end,
                    format!(
                        "`{text}` is not a valid operator name ({}: {})",
                        inner.rule.id(),
                        inner.message
                    ),
                );
                e.hint = inner.hint;
            }
            None
        }
    }
}

pub(crate) fn parse_delegate(text: &str, diag: &mut Diag) -> Option<OperatorName> {
    let site = Site::Value(Field::StructuredDelegate);
    if let Some(i) = text.find("::") {
        diag.err(
            site,
            Rule::DelegateName,
            0..i + 2,
            format!("`structured_delegate` value `{text}` has a namespace"),
            "drop the namespace; the delegate is in the entry's own namespace",
        );
        return None;
    }
    parse_field_operator_name(text, 0, site, Rule::DelegateName, diag)
}

pub(crate) fn check_inherits(text: &str, diag: &mut Diag) {
    if let Some(i) = text.find("::") {
        diag.err(
            Site::Value(Field::StructuredInherits),
            Rule::DelegateName,
            0..i + 2,
            format!("`structured_inherits` value `{text}` has a namespace"),
            "drop the namespace; the class is looked up in the entry's own namespace",
        );
    }
}

pub(crate) fn parse_autogen(text: &str, diag: &mut Diag) -> Vec<OperatorName> {
    let mut names = Vec::new();
    if text.is_empty() {
        return names;
    }
    let mut at = 0;
    for piece in text.split(", ") {
        let site = Site::Value(Field::Autogen);
        if let Some(n) = parse_field_operator_name(piece, at, site, Rule::AutogenName, diag) {
            names.push(n);
        }
        at += piece.len() + 2;
    }
    names
}

/// A kernel name with up to three namespace levels (R54): `ns::kernel` → `ns::native`.
pub(crate) fn parse_kernel(text: &str, index: usize, diag: &mut Diag) -> KernelName {
    let (ns, name) = match text.rfind("::") {
        Some(i) => (&text[..i], &text[i + 2..]),
        None => ("", text),
    };
    let levels = if ns.is_empty() {
        0
    } else {
        ns.split("::").count()
    };
    if levels > 3 {
        diag.err(
            Site::PairValue(Field::Dispatch, index),
            Rule::KernelNamespaceDepth,
            0..ns.len(),
            format!("kernel namespace `{ns}` has {levels} levels"),
            "use at most three namespace levels, e.g. `a::b::c::kernel`",
        );
    }
    let namespace = if ns.is_empty() { "at" } else { ns };
    KernelName {
        name: name.to_string(),
        namespace: format!("{namespace}::native"),
        structured: false,
    }
}

/// The keys of one `dispatch` line: `CPU, CUDA` (R48), split at `,` and trimmed.
pub(crate) fn parse_dispatch_keys(text: &str, index: usize, diag: &mut Diag) -> Vec<DispatchKey> {
    let mut keys = Vec::new();
    for (name, range) in split_trimmed(text, ',') {
        if let Some(k) = DispatchKey::from_yaml_name(name) {
            keys.push(k);
            continue;
        }
        let site = Site::Key(Field::Dispatch, index);
        let e = if is_known_dispatch_key(name) {
            diag.at(
                site,
                Rule::UnknownDispatchKey,
                range,
                format!("dispatch key `{name}` is not supported in `dispatch`"),
            )
        } else {
            diag.at(
                site,
                Rule::UnknownDispatchKey,
                range,
                format!("unknown dispatch key `{name}`"),
            )
        };
        let names = DispatchKey::YAML_KEYS.iter().map(|k| k.name());
        match closest(name, names) {
            Some(c) => e.hint = Some(format!("did you mean `{c}`?")),
            None => {
                let all: Vec<_> = DispatchKey::YAML_KEYS
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect();
                e.hint = Some(format!("expected one of {}", all.join(", ")));
            }
        }
    }
    keys
}

/// Parses one declaration of `precomputed` (`int kH`) with the schema parser.
fn parse_declaration(decl: &str, at: usize, index: usize, diag: &mut Diag) -> Option<Argument> {
    let site = Site::Element(Field::Precomputed, index);
    let wrapped = format!("f({decl}) -> ()");
    match parse_schema(&wrapped) {
        Ok(mut s) if s.arguments.len() == 1 && !decl.contains('*') => {
            let arg = s.arguments.remove(0);
            if arg.name.to_uppercase() == arg.name {
                let name_end = at + decl.find('=').unwrap_or(decl.len());
                let start = name_end - arg.name.len();
                diag.err(
                    site,
                    Rule::PrecomputedUppercase,
                    start..name_end,
                    format!("precomputed name `{}` is all upper case", arg.name),
                    "use a lower-case name; the upper-case form names a C++ template parameter",
                );
            }
            Some(arg)
        }
        Ok(_) => {
            diag.err(
                site,
                Rule::PrecomputedSyntax,
                at..at + decl.len(),
                format!("`{decl}` in `precomputed` is not one declaration"),
                "write `type name`, e.g. `int dim`",
            );
            None
        }
        Err(errors) => {
            let inner = &errors[0];
            let start = (at + inner.range.start).saturating_sub(2).max(at);
            let end = (at + inner.range.end)
                .saturating_sub(2)
                .clamp(start, at + decl.len());
            diag.err(
                site,
                Rule::PrecomputedSyntax,
                start..end,
                format!(
                    "invalid declaration `{decl}` in `precomputed` ({}: {})",
                    inner.rule.id(),
                    inner.message
                ),
                "write `type name`, e.g. `int dim`",
            );
            None
        }
    }
}

/// Splits `text` at `sep` and trims each piece, with the byte range of the trimmed piece in
/// `text`: the one splitter for comma lists in yaml values and attribute strings.
pub(crate) fn split_trimmed(
    text: &str,
    sep: char,
) -> impl Iterator<Item = (&str, std::ops::Range<usize>)> {
    let mut at = 0;
    text.split(sep).map(move |piece| {
        let lead = piece.len() - piece.trim_start().len();
        let item = piece.trim();
        let start = at + lead;
        at += piece.len() + sep.len_utf8();
        (item, start..start + item.len())
    })
}

/// `precomputed` (R45, R46): `param -> decl, decl` lines, the last possibly a plain list.
pub(crate) fn parse_precomputed(lines: &[String], diag: &mut Diag) -> Option<Precomputed> {
    let before = diag.0.len();
    let mut add = Vec::new();
    let mut replace_lines = lines;
    if let Some((last, rest)) = lines.split_last()
        && !last.contains(" -> ")
    {
        for (decl, range) in split_trimmed(last, ',') {
            add.extend(parse_declaration(decl, range.start, rest.len(), diag));
        }
        replace_lines = rest;
    }
    let mut replace = Vec::new();
    for (index, line) in replace_lines.iter().enumerate() {
        let site = Site::Element(Field::Precomputed, index);
        let mut parts = line.split(" -> ");
        let (Some(param), Some(decls), None) = (parts.next(), parts.next(), parts.next()) else {
            diag.err(
                site,
                Rule::PrecomputedSyntax,
                WHOLE,
                format!("`{line}` in `precomputed` is not of the form `param -> decl, decl`"),
                "values without a parameter to replace may appear only in the last line",
            );
            continue;
        };
        if param.contains(' ') {
            diag.err(
                site,
                Rule::PrecomputedSyntax,
                0..param.len(),
                format!("illegal kernel parameter name `{param}` in `precomputed`"),
                "name one kernel argument, without spaces, before ` -> `",
            );
            continue;
        }
        let offset = param.len() + 4;
        let args: Vec<Argument> = split_trimmed(decls, ',')
            .filter_map(|(d, range)| parse_declaration(d, offset + range.start, index, diag))
            .collect();
        let printed: Vec<String> = args.iter().map(ToString::to_string).collect();
        let canonical = format!("{param} -> {}", printed.join(", "));
        if diag.0.len() == before && canonical != *line {
            diag.err(
                site,
                Rule::PrecomputedSyntax,
                offset..line.len(),
                format!("`precomputed` line `{line}` is not written canonically"),
                format!("write `{canonical}` (declarations separated by a comma and one space)"),
            );
        }
        replace.push((param.to_string(), args));
    }
    (diag.0.len() == before && !lines.is_empty()).then_some(Precomputed { replace, add })
}

/// One `ufunc_inner_loop` pair (R57, R58).
pub(crate) fn parse_ufunc(
    key: &str,
    value: &str,
    index: usize,
    diag: &mut Diag,
) -> Option<UfuncInnerLoop> {
    let field = Field::UfuncInnerLoop;
    let Some(key) = UfuncKey::from_name(key) else {
        let all: Vec<_> = UfuncKey::ALL.iter().map(|k| format!("`{k}`")).collect();
        diag.err(
            Site::Key(field, index),
            Rule::UfuncSyntax,
            WHOLE,
            format!("unknown ufunc key `{key}`"),
            format!("expected one of {}", all.join(", ")),
        );
        return None;
    };
    let site = Site::PairValue(field, index);
    let shape_error = |diag: &mut Diag, range: Range<usize>, what: &str| {
        diag.err(
            site,
            Rule::UfuncSyntax,
            range,
            format!("{what} in `ufunc_inner_loop` value `{value}`"),
            "write `name (dtype, dtype, ...)`, e.g. `add (AllAndComplex, BFloat16)`",
        );
    };
    let Some((name, dtypes)) = value.split_once(' ') else {
        shape_error(diag, WHOLE, "missing dtype list");
        return None;
    };
    let at = name.len() + 1;
    let Some(inner) = dtypes.strip_prefix('(').and_then(|d| d.strip_suffix(')')) else {
        shape_error(diag, at..value.len(), "expected `(dtypes)` after the name");
        return None;
    };
    let mut supported = Vec::new();
    let mut pos = at + 1;
    let mut ok = true;
    for dt in inner.split(", ") {
        let found = ScalarType::class(dt)
            .map(<[ScalarType]>::to_vec)
            .or_else(|| ScalarType::from_name(dt).map(|t| vec![t]));
        match found {
            Some(ts) => ts.into_iter().for_each(|t| {
                if !supported.contains(&t) {
                    supported.push(t);
                }
            }),
            None => {
                ok = false;
                let e = diag.at(
                    site,
                    Rule::UfuncDtype,
                    pos..pos + dt.len(),
                    format!("unknown dtype `{dt}` in `ufunc_inner_loop`"),
                );
                let names = ScalarType::ALL.iter().map(|t| t.as_str());
                match closest(dt, names) {
                    Some(c) if !dt.contains(',') => Diag::hint(e, format!("did you mean `{c}`?")),
                    _ => Diag::hint(
                        e,
                        "separate dtypes with a comma and one space; use scalar type names such as `Float` or classes such as `Floating`",
                    ),
                }
            }
        }
        pos += dt.len() + 2;
    }
    ok.then(|| UfuncInnerLoop {
        key,
        name: name.to_string(),
        supported_dtypes: supported,
    })
}
