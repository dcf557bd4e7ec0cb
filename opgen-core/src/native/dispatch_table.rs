//! The `dispatch` table of an entry (R48–R54, R56's kernels): explicit lines, the implicit
//! composite kernel, the ufunc kernels.

use crate::schema::{Rule, Schema};

use super::entry::{Dispatch, DispatchOrigin, EntryFields, KernelName, NativeFunction, Site};
use super::fields::{self, Diag, WHOLE};
use super::keys::Field;
use crate::dispatch::DispatchKey;

/// torchgen's C++ API name: the operator name, plus `_out` for out schemas (§4.6). It names
/// the implicit `CompositeImplicitAutograd` kernel.
pub(crate) fn cpp_name(schema: &Schema) -> String {
    let name = schema.name.operator_name();
    if schema.is_out_fn() {
        format!("{name}_out")
    } else {
        name
    }
}

pub(crate) fn only_composite_implicit(d: &Dispatch) -> bool {
    let cia = DispatchKey::CompositeImplicitAutograd;
    let nt = DispatchKey::CompositeImplicitAutogradNestedTensor;
    !d.entries.is_empty() && d.keys().all(|k| k == cia || k == nt)
}

/// The dispatch table (R48–R54): explicit lines, or the implicit composite kernel.
pub(crate) fn read_dispatch(
    fields: &EntryFields,
    schema: Option<&Schema>,
    structured: bool,
    has_delegate: bool,
    diag: &mut Diag,
) -> Option<Dispatch> {
    let cia = DispatchKey::CompositeImplicitAutograd;
    let Some(lines) = &fields.dispatch else {
        if structured || has_delegate {
            return Some(Dispatch {
                entries: Vec::new(),
                origin: DispatchOrigin::Absent,
            });
        }
        let schema = schema?;
        let name = cpp_name(schema);
        let op = schema.name.name.to_string();
        // R52: factories must say which backend-agnostic kernel they use.
        if op.starts_with("new_")
            || op.ends_with("_like")
            || (schema.has_tensor_options() && !has_tensor_arg(schema))
        {
            let range = fields.func.len() - schema.to_string().len()..fields.func.len();
            let at = range.start..range.start + schema.name.to_string().len();
            let message = format!("factory-like operator `{op}` has no `dispatch` table");
            let hint = format!(
                "add `dispatch: {{CompositeExplicitAutograd: {name}}}`; \
                 factories must not decompose implicitly"
            );
            let site = Site::Value(Field::Func);
            diag.err(site, Rule::FactoryNeedsExplicit, at, message, hint);
        }
        let kernel = KernelName {
            name,
            namespace: "at::native".into(),
            structured: false,
        };
        return Some(Dispatch {
            entries: vec![(cia, kernel)],
            origin: DispatchOrigin::Implicit,
        });
    };
    let mut d = Dispatch {
        entries: Vec::new(),
        origin: DispatchOrigin::Explicit,
    };
    let mut count = 0;
    let mut redundant = None;
    for (i, (keys, kernel_text)) in lines.iter().enumerate() {
        let keys = fields::parse_dispatch_keys(keys, i, diag);
        count += keys.len();
        let kernel = fields::parse_kernel(kernel_text, i, diag);
        for key in keys {
            if key == cia && schema.is_some_and(|s| *kernel_text == cpp_name(s)) {
                redundant = Some(i);
            }
            let structured_kernel = structured && key.is_structured_backend();
            d.insert(
                key,
                KernelName {
                    structured: structured_kernel,
                    ..kernel.clone()
                },
            );
        }
    }
    let lone_cia = d.entries.len() == 1 && d.contains(cia) && count == 1;
    let cia_line = || {
        lines
            .iter()
            .position(|(k, _)| k.split(',').any(|p| p.trim() == cia.name()))
            .unwrap_or(0)
    };
    if let (Some(i), true) = (redundant, count == 1) {
        let message = "unnecessary dispatch table: its only entry is the default \
                       `CompositeImplicitAutograd` kernel";
        let site = Site::PairValue(Field::Dispatch, i);
        let hint = "delete the `dispatch` field entirely";
        diag.err(site, Rule::RedundantDispatch, WHOLE, message, hint);
    } else if lone_cia
        && !has_delegate
        && let Some(s) = schema
    {
        let i = cia_line();
        let kernel = &lines[i].1;
        if !kernel.contains("_symint") {
            diag.err(
                Site::PairValue(Field::Dispatch, i),
                Rule::SingletonCompositeImplicit,
                WHOLE,
                format!(
                    "lone `CompositeImplicitAutograd` kernel `{kernel}` is not named `{}`",
                    cpp_name(s)
                ),
                format!(
                    "rename the kernel to `{}` and delete the `dispatch` field",
                    cpp_name(s)
                ),
            );
        }
    }
    check_composites(&d, lines, diag);
    Some(d)
}

fn has_tensor_arg(s: &Schema) -> bool {
    let out = s.out_start();
    s.arguments[..out].iter().any(|a| a.ty.is_tensor_like())
}

/// R53: at most one composite key, except CIA-NestedTensor with CIA or CEA.
fn check_composites(d: &Dispatch, lines: &[(String, String)], diag: &mut Diag) {
    let composites: Vec<DispatchKey> = d.keys().filter(|k| k.is_composite()).collect();
    let nt = DispatchKey::CompositeImplicitAutogradNestedTensor;
    let ok = composites.len() <= 1
        || (composites.len() == 2
            && composites.contains(&nt)
            && !composites.contains(&DispatchKey::CompositeExplicitAutogradNonFunctional));
    if ok {
        return;
    }
    let second = composites[1].name();
    let line = lines
        .iter()
        .position(|(k, _)| k.split(',').any(|p| p.trim() == second))
        .unwrap_or(0);
    let start = lines
        .get(line)
        .and_then(|(k, _)| k.find(second))
        .unwrap_or(0);
    let names: Vec<String> = composites.iter().map(|k| format!("`{k}`")).collect();
    let message = format!(
        "more than one composite key in `dispatch`: {}",
        names.join(", ")
    );
    let hint = "keep one: `CompositeExplicitAutograd` for a kernel with its own derivative, \
                else `CompositeImplicitAutograd` (`CompositeImplicitAutogradNestedTensor` may \
                accompany either)";
    let range = start..start + second.len();
    diag.err(
        Site::Key(Field::Dispatch, line),
        Rule::MultipleComposite,
        range,
        message,
        hint,
    );
}

/// R56: a ufunc entry is structured, on an out schema, without explicit CPU/CUDA kernels;
/// the ufunc code generation provides them.
pub(crate) fn check_ufunc(
    f: &mut NativeFunction,
    fields: &EntryFields,
    func_at: usize,
    diag: &mut Diag,
) {
    let site = Site::Value(Field::UfuncInnerLoop);
    if !f.structured {
        diag.err(
            site,
            Rule::UfuncNotStructured,
            WHOLE,
            "`ufunc_inner_loop` requires `structured: True`",
            "add `structured: True` to this out variant",
        );
        return;
    }
    for key in [DispatchKey::CPU, DispatchKey::CUDA] {
        if f.dispatch.contains(key) {
            let line = fields
                .dispatch
                .iter()
                .flatten()
                .position(|(k, _)| k.split(',').any(|p| p.trim() == key.name()))
                .unwrap_or(0);
            diag.err(
                Site::Key(Field::Dispatch, line),
                Rule::UfuncNotStructured,
                WHOLE,
                format!("`{key}` in `dispatch` of a `ufunc_inner_loop` entry"),
                format!("remove `{key}`; the ufunc code generation provides its kernel"),
            );
            continue;
        }
        if !f.func.is_out_fn() {
            let at = func_at..func_at + f.func.name.to_string().len();
            diag.err(
                Site::Value(Field::Func),
                Rule::UfuncNotStructured,
                at,
                format!(
                    "`ufunc_inner_loop` on `{}`, which is not an out variant",
                    f.func.name
                ),
                "put `ufunc_inner_loop` on the out variant",
            );
            return;
        }
        let name = format!("ufunc_{}_{}", f.func.name.operator_name(), key);
        let kernel = KernelName {
            name,
            namespace: "at::native".into(),
            structured: true,
        };
        f.dispatch.insert(key, kernel);
    }
}
