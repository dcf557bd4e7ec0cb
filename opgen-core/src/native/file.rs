//! Checks across the entries of one file (SCHEMA.md §2.6, R68–R71), run once every entry
//! is valid. R72–R74 belong to the generation step ([`super::autogen`]).

use crate::schema::{BaseOperatorName, OperatorName, Rule, SchemaError};

use super::entry::{NativeFunction, Site};
use super::fields::WHOLE;
use super::keys::Field;
use super::rules::argument_name_range;
use super::{FnError, FxHashMap};

/// Python's `keyword.kwlist`: argument names become Python keyword arguments (R70).
const PYTHON_KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Operators whose keyword-named argument predates R70 (operator full name, argument).
const KEYWORD_EXCEPTIONS: [(&str, &str); 3] = [
    ("_has_compatible_shallow_copy_type", "from"),
    ("random_.from", "from"),
    ("uniform_", "from"),
];

/// Where the operator name sits in the `func` value of `f`.
pub(crate) fn name_range(f: &NativeFunction) -> std::ops::Range<usize> {
    let at = f.source.as_ref().map_or(0, |s| s.func_offset);
    at..at + f.func.name.to_string().len()
}

fn err(
    function: usize,
    site: Site,
    rule: Rule,
    range: std::ops::Range<usize>,
    message: String,
    hint: String,
) -> FnError {
    FnError::new(
        function,
        site,
        SchemaError::new(rule, range, message).with_hint(hint),
    )
}

/// R68: an operator is registered at most once per dispatch key. `seen` maps each name to
/// the keys it has so far (one bit per key).
pub(crate) fn check_duplicate_registrations<'a>(
    fs: &'a [NativeFunction],
    from: usize,
    seen: &mut FxHashMap<&'a OperatorName, u64>,
    errors: &mut Vec<FnError>,
) {
    for (i, f) in fs.iter().enumerate().skip(from) {
        let keys = seen.entry(&f.func.name).or_insert(0);
        for key in f.dispatch.keys() {
            // One bit per yaml key (its position in `YAML_KEYS`, below 64); a yaml entry names
            // no other key.
            let position = (crate::dispatch::DispatchKey::YAML_KEYS.iter()).position(|k| *k == key);
            let bit = position.map_or(0, |i| 1u64 << i);
            if *keys & bit == 0 {
                *keys |= bit;
                continue;
            }
            let first = fs[..i]
                .iter()
                .find(|g| g.func.name == f.func.name && g.dispatch.contains(key));
            let line = first
                .and_then(|g| g.source.as_ref())
                .map_or(String::new(), |s| {
                    format!(" (first at line {})", s.entry.line)
                });
            errors.push(err(
                i,
                Site::Value(Field::Func),
                Rule::DuplicateOperator,
                name_range(f),
                format!(
                    "operator `{}` is registered twice for dispatch key `{key}`{line}",
                    f.func.name
                ),
                "give one of the entries a different overload name".into(),
            ));
        }
    }
}

/// R68–R71 over the entries of a file.
pub(crate) fn check_file(fs: &[NativeFunction]) -> Vec<FnError> {
    let mut errors = Vec::new();
    check_duplicate_registrations(fs, 0, &mut FxHashMap::default(), &mut errors);
    // torchgen keeps the last entry of a name, and counts entries per base operator name.
    let by_name: FxHashMap<&OperatorName, usize> = fs
        .iter()
        .enumerate()
        .map(|(i, f)| (&f.func.name, i))
        .collect();
    let mut by_base: FxHashMap<&BaseOperatorName, usize> = FxHashMap::default();
    for f in fs {
        *by_base.entry(&f.func.name.name).or_default() += 1;
    }
    for (i, f) in fs.iter().enumerate() {
        if let Some(d) = &f.structured_delegate {
            check_delegate(fs, &by_name, i, d, &mut errors);
        }
        for (a, arg) in f.func.arguments.iter().enumerate() {
            let name = arg.name.as_str();
            if !PYTHON_KEYWORDS.contains(&name) {
                continue;
            }
            let full = f.func.name.full_name();
            if !KEYWORD_EXCEPTIONS.contains(&(full.as_str(), name)) {
                let at = f.source.as_ref().map_or(0, |s| s.func_offset);
                errors.push(err(
                    i,
                    Site::Value(Field::Func),
                    Rule::PythonKeyword,
                    argument_name_range(&f.func, a, at),
                    format!("argument name `{name}` of `{full}` is a Python keyword"),
                    format!("rename the argument (e.g. `{name}_`)"),
                ));
            }
        }
        if f.has_tag("inplace_view") {
            let (full, op) = (f.func.name.full_name(), f.func.name.operator_name());
            if full != "resize_" && full != "resize_as_" && op != "set_" {
                check_inplace_view(f, i, &by_base, &mut errors);
            }
        }
    }
    errors
}

fn check_delegate(
    fs: &[NativeFunction],
    by_name: &FxHashMap<&OperatorName, usize>,
    i: usize,
    d: &OperatorName,
    errors: &mut Vec<FnError>,
) {
    let site = Site::Value(Field::StructuredDelegate);
    match by_name.get(d) {
        None => errors.push(err(
            i,
            site,
            Rule::MissingDelegate,
            WHOLE,
            format!("`structured_delegate` names `{d}`, which is not an entry of this file"),
            format!("add a structured out variant `{d}`, or fix the name"),
        )),
        Some(&j) if !fs[j].structured => errors.push(err(
            i,
            site,
            Rule::MissingDelegate,
            WHOLE,
            format!("`structured_delegate` names `{d}`, which is not `structured: True`"),
            format!("add `structured: True` to `{d}`"),
        )),
        Some(_) => {}
    }
}

/// R71: `inplace_view` needs an in-place name and an out-of-place operator of that base.
fn check_inplace_view(
    f: &NativeFunction,
    i: usize,
    by_base: &FxHashMap<&BaseOperatorName, usize>,
    errors: &mut Vec<FnError>,
) {
    let name = &f.func.name.name;
    if !name.inplace {
        errors.push(err(
            i,
            Site::Value(Field::Func),
            Rule::InplaceViewNaming,
            name_range(f),
            format!(
                "`{}` has the `inplace_view` tag but is not named like an in-place operator",
                f.func.name
            ),
            "name it with a trailing `_`, or drop the tag".into(),
        ));
        return;
    }
    let out_of_place = BaseOperatorName {
        base: name.base.clone(),
        inplace: false,
        dunder: name.dunder,
        functional_overload: false,
    };
    if !by_base.contains_key(&out_of_place) {
        let message = format!(
            "`{}` has the `inplace_view` tag but there is no out-of-place view operator \
             `{out_of_place}`",
            f.func.name
        );
        let hint = format!("add the view operator `{out_of_place}` with the same arguments");
        let site = Site::Value(Field::Func);
        errors.push(err(
            i,
            site,
            Rule::InplaceViewNaming,
            name_range(f),
            message,
            hint,
        ));
    }
}
