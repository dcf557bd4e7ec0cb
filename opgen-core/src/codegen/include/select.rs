//! Which functions of the file to declare: `include` and `skip` name patterns, `tags` and
//! `namespace`. All given filters apply together. A pattern, tag or namespace that selects
//! nothing is an error (a typo would otherwise silently drop operators).
//!
//! A pattern is a glob (`*` any run of characters, `?` one character). Without a `.` it is
//! matched against the operator name without overload (`add*` matches `add.Tensor`,
//! `add_.Scalar`, `addmm.out`); with a `.`, against `name.overload` (`add.*`,
//! `add.Tensor`; a function without overload is `name.`, so `relu.` is `relu` alone).

use syn::LitStr;

use crate::codegen::diag::Diagnostics;
use crate::native::{NativeFunction, NativeFunctions, split_trimmed};
use crate::schema::OperatorName;

/// One pattern of `include` or `skip`, with the literal it is written in.
struct Pattern<'a> {
    text: &'a str,
    lit: &'a LitStr,
    used: bool,
}

impl Pattern<'_> {
    fn matches(&self, f: &NativeFunction) -> bool {
        matches(self.text, &f.func.name)
    }
}

/// Whether the name pattern `pattern` matches the operator `name` (the module docs say
/// how).
pub(crate) fn matches(pattern: &str, name: &OperatorName) -> bool {
    if pattern.contains('.') {
        let overload = name.overload.as_deref().unwrap_or("");
        glob(pattern, &format!("{}.{overload}", name.name))
    } else {
        glob(pattern, &name.name.to_string())
    }
}

/// The patterns of an option (`include`, `skip`, `registered_only`), each with its literal.
pub(crate) fn patterns(lit: Option<&LitStr>) -> Vec<(String, &LitStr)> {
    items(lit)
}

/// Every comma-separated item of an option, owned.
fn items(lit: Option<&LitStr>) -> Vec<(String, &LitStr)> {
    let Some(lit) = lit else {
        return Vec::new();
    };
    split_trimmed(&lit.value(), ',')
        .filter(|(item, _)| !item.is_empty())
        .map(|(item, _)| (item.to_string(), lit))
        .collect()
}

fn pattern<'a>((text, lit): &'a (String, &'a LitStr)) -> Pattern<'a> {
    Pattern {
        text,
        lit,
        used: false,
    }
}

/// The indices (into `nfs.functions()`) of the selected functions, in file order (entries,
/// then generated functions).
pub(crate) fn select(
    nfs: &NativeFunctions,
    options: &super::options::IncludeOptions,
    diag: &mut Diagnostics,
) -> Vec<usize> {
    let include_items = items(options.include.as_ref());
    let skip_items = items(options.skip.as_ref());
    let tags = items(options.tags.as_ref());
    let namespaces = items(options.namespace.as_ref());
    let mut include: Vec<Pattern<'_>> = include_items.iter().map(pattern).collect();
    let mut skip: Vec<Pattern<'_>> = skip_items.iter().map(pattern).collect();
    for (tag, lit) in &tags {
        if !nfs.tags().contains(tag) {
            let hint = match crate::schema::suggest::closest(tag, nfs.tags().iter()) {
                Some(c) => format!("did you mean `{c}`?"),
                None => format!(
                    "the declared tags are: {}",
                    nfs.tags().iter().collect::<Vec<_>>().join(", ")
                ),
            };
            diag.at(lit, format!("unknown tag `{tag}` in `tags`; {hint}"));
        }
    }
    let mut namespace_used = vec![false; namespaces.len()];
    let mut selected = Vec::new();
    for (i, f) in nfs.functions().iter().enumerate() {
        let ns = namespaces.iter().position(|(n, _)| *n == f.namespace);
        if !namespaces.is_empty() && ns.is_none() {
            continue;
        }
        if !tags.is_empty() && !tags.iter().any(|(t, _)| f.tags.contains(t)) {
            continue;
        }
        if !include.is_empty() {
            let mut any = false;
            for p in include.iter_mut().filter(|p| p.matches(f)) {
                p.used = true;
                any = true;
            }
            if !any {
                continue;
            }
        }
        let mut skipped = false;
        for p in skip.iter_mut().filter(|p| p.matches(f)) {
            p.used = true;
            skipped = true;
        }
        if let Some(n) = ns {
            namespace_used[n] = true;
        }
        if !skipped {
            selected.push(i);
        }
    }
    for (option, patterns) in [("include", &include), ("skip", &skip)] {
        for p in patterns.iter().filter(|p| !p.used) {
            let names = nfs.functions().iter().map(|f| f.func.name.name.to_string());
            let names: Vec<String> = names.collect();
            let hint = crate::schema::suggest::closest(p.text, names.iter().map(String::as_str))
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default();
            diag.at(
                p.lit,
                format!(
                    "`{option}` pattern `{}` matches no operator of the file (with the other \
                     filters){hint}",
                    p.text
                ),
            );
        }
    }
    for ((n, lit), used) in namespaces.iter().zip(namespace_used) {
        if !used {
            diag.at(
                lit,
                format!("no operator of namespace `{n}` is selected (with the other filters)"),
            );
        }
    }
    selected
}

/// Whether `text` matches the glob `pattern` (`*`: any run, `?`: one character).
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    // The last `*` seen and the text position it was tried at, for backtracking.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == '?' || c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs() {
        assert!(glob("add*", "add"));
        assert!(glob("add*", "addmm_"));
        assert!(!glob("add*", "_add"));
        assert!(glob("*add*", "_add"));
        assert!(glob("a?d", "add"));
        assert!(!glob("a?d", "ad"));
        assert!(glob("add.*", "add.Tensor"));
        assert!(glob("relu.", "relu."));
        assert!(!glob("relu.", "relu.out"));
        assert!(glob("*", ""));
        assert!(glob("a*b*c", "aXbYbZc"));
        assert!(!glob("a*b*c", "aXbYbZ"));
    }
}
