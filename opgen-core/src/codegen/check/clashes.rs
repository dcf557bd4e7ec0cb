//! Names an expansion defines that the user's code of its module has already: items
//! written beside the attribute or the `include_native_functions!` call (a function, a
//! type, a trait of the name of something generated in the same namespace), and kernels
//! beside an include call that declare its operators. rustc would report each name defined
//! twice, at the macro, then errors inside the generated code; these checks make it one
//! error at the user's text, with the fixes.

use syn::LitStr;

use super::context::{Facts, at_or, locate, locate_include};
use super::scope::Scope;
use crate::codegen::Input;
use crate::codegen::diag::Diagnostics;
use crate::plan::Claims;

/// Names the attribute generates (functions, the marker, the arguments struct, the methods
/// trait) that an item written in the kernel's module has: rustc would report each name
/// defined twice, at the attribute, then errors inside the generated code. One error at
/// the schema, naming them, with the fixes. (The kernel's own name is
/// `check_kernel_name`'s.)
pub(crate) fn check_generated_names(input: &Input, claims: &Claims, diag: &mut Diagnostics) {
    let Some((facts, me)) = locate(&input.kernel) else {
        return;
    };
    let Some(me) = facts.sites.get(me) else {
        return;
    };
    let Some(scope) = facts.scopes.get(me.scope) else {
        return;
    };
    let mut taken = taken_names(scope, claims, Some(&me.name));
    let mut fixes = "give the generated API another name with `name = \"...\"`".to_string();
    if let Some(fix) = trait_taken(scope, me.methods_trait.as_deref(), &mut taken) {
        fixes.push_str(&format!(" and the trait another one ({fix})"));
    }
    if let Some(message) = taken_message("the attribute generates", &taken, &fixes) {
        diag.at(at_or(input.lit.as_ref(), &input.kernel), message);
    }
}

/// [`check_generated_names`] for `include_native_functions!` (`path`, its yaml path's
/// literal, places the call): the names of every operator's API (`claims`, with the
/// operator's qualified name) and the methods trait. One error at the path.
pub(crate) fn check_include_names(
    path: &LitStr,
    claims: &[(String, Claims)],
    methods_trait: Option<&str>,
    diag: &mut Diagnostics,
) {
    let Some((facts, me)) = locate_include(path) else {
        return;
    };
    let Some(scope) = facts.scopes.get(me) else {
        return;
    };
    check_include_beside_attributes(path, me, &facts, claims, diag);
    let mut taken = Vec::new();
    let mut operators = Vec::new();
    for (operator, c) in claims {
        let found = taken_names(scope, c, None);
        if !found.is_empty() {
            // `skip` takes the name without its namespace.
            operators.push(
                operator
                    .split_once("::")
                    .map_or(operator.as_str(), |(_, n)| n),
            );
        }
        taken.extend(found);
    }
    let mut fixes = format!(
        "leave {} out with `skip = \"{}\"`",
        if operators.len() == 1 {
            "the operator"
        } else {
            "those operators"
        },
        operators.join(", ")
    );
    if let Some(fix) = trait_taken(scope, methods_trait, &mut taken) {
        fixes.push_str(&format!(" or name the trait another one ({fix})"));
    }
    if let Some(message) = taken_message("the macro generates", &taken, &fixes) {
        diag.at(path, message);
    }
}

/// `#[native_function]` kernels beside the call (in its module, not under `#[cfg]`) that
/// declare one of its operators (`claims`, by qualified name), or whose API takes the name of
/// one: both would define the operator's functions and marker. One error at the yaml path,
/// naming the kernels, with the fixes; the macro then expands to nothing, so the
/// attributes' items stand alone.
fn check_include_beside_attributes(
    path: &LitStr,
    scope: usize,
    facts: &Facts,
    claims: &[(String, Claims)],
    diag: &mut Diagnostics,
) {
    let beside = (facts.sites.iter()).filter(|s| s.scope == scope && !s.in_impl && !s.conditional);
    let mut found = Vec::new();
    for site in beside {
        let (Some(op), Some(api)) = (&site.declares, &site.api) else {
            continue;
        };
        if claims.iter().any(|(name, _)| name == op) {
            found.push(format!(
                "`{}` (line {}) declares `{op}` too",
                site.name, site.line
            ));
            continue;
        }
        let named = |c: &Claims| {
            (c.values.iter().chain(&c.types)).any(|n| n.trim_start_matches("r#") == api)
        };
        if let Some((name, _)) = claims.iter().find(|(_, c)| named(c)) {
            found.push(format!(
                "`{}` (line {}) names `{op}` `{api}`, a name of `{name}`",
                site.name, site.line
            ));
        }
    }
    if found.is_empty() {
        return;
    }
    diag.at(
        path,
        format!(
            "kernels of this module declare what this macro declares: {}; attach such a \
             kernel to the macro's operator with `op = NAME` (its marker) and `dispatch` \
             instead of a schema, give its operator another name with `name = \"...\"`, or \
             leave the macro's operator out with `skip`",
            found.join("; ")
        ),
    );
}

/// The names of `claims` that an item written in `scope` has, in the namespace each is
/// generated in, described (`function \`relu\``); `except` (the kernel) left out.
fn taken_names(scope: &Scope, claims: &Claims, except: Option<&str>) -> Vec<String> {
    let plain = |n: &String| n.trim_start_matches("r#").to_string();
    let mut taken: Vec<String> = (claims.values.iter().map(plain))
        .filter(|n| Some(n.as_str()) != except && scope.values.contains(n))
        .map(|n| format!("function `{n}`"))
        .collect();
    for (i, n) in claims.types.iter().map(plain).enumerate() {
        if scope.types.contains(&n) {
            let what = if i == 0 { "marker" } else { "arguments struct" };
            taken.push(format!("{what} `{n}`"));
        }
    }
    taken
}

/// The methods trait `methods_trait`, if an item written in `scope` has its name: added to
/// `taken`, and the other name to give it returned (`methods = "trait Ops2"`).
fn trait_taken(
    scope: &Scope,
    methods_trait: Option<&str>,
    taken: &mut Vec<String>,
) -> Option<String> {
    let t = methods_trait.filter(|t| scope.types.contains(*t))?;
    taken.push(format!("methods trait `{t}`"));
    Some(format!("`methods = \"trait {t}2\"`"))
}

/// The error for the generated names `taken` that the module has already, or none. A long
/// list is cut: the first few name the problem.
fn taken_message(generates: &str, taken: &[String], fixes: &str) -> Option<String> {
    const SHOWN: usize = 5;
    let (names, those, rename) = match taken {
        [] => return None,
        [one] => (one.clone(), "an item of that name", "rename the item"),
        [init @ .., last] => {
            let names = if taken.len() > SHOWN + 1 {
                let more = taken.len() - SHOWN;
                format!("{} and {more} more", taken[..SHOWN].join(", the "))
            } else {
                format!("{} and the {last}", init.join(", the "))
            };
            (names, "items of those names", "rename those items")
        }
    };
    Some(format!(
        "{generates} the {names}, and this module has {those} already; {rename}, or {fixes}"
    ))
}
