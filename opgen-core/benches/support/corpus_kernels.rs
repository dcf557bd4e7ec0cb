//! `#[native_function]` attributes and matching kernels for every entry of the corpus,
//! shared by the codegen benchmark and the codegen unit tests (which include this file).
//! The includer brings `NativeFunction`, `DispatchOrigin`, `DeviceCheck`,
//! `dispatcher_signature` and `returns_type` into scope.

use super::*;

/// One corpus entry as `(attribute arguments, kernel function)`, in source form.
pub fn corpus_case(index: usize, f: &NativeFunction) -> (String, String) {
    let mut args = vec![format!("{:?}", f.to_string())];
    let mut push = |key: &str, value: String| args.push(format!("{key} = {value:?}"));
    let variants = match (f.variants.function, f.variants.method) {
        (true, true) => "function, method",
        (false, true) => "method",
        _ => "function",
    };
    push("variants", variants.to_string());
    // A structured entry's keys belong to its impls; the attribute is on the meta function.
    if f.dispatch.origin == DispatchOrigin::Explicit
        && !f.dispatch.entries.is_empty()
        && !f.structured
    {
        let keys: Vec<&str> = f.dispatch.keys().map(|k| k.name()).collect();
        push("dispatch", keys.join(", "));
    }
    if let Some(d) = &f.structured_delegate {
        push("structured_delegate", d.to_string());
    }
    if let Some(i) = &f.structured_inherits {
        push("structured_inherits", i.clone());
    }
    if let Some(p) = &f.precomputed {
        let decls = |d: &[opgen_core::schema::Argument]| {
            d.iter()
                .map(|a| format!("{} {}", a.ty, a.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut lines: Vec<String> = p
            .replace
            .iter()
            .map(|(param, d)| format!("{param} -> {}", decls(d)))
            .collect();
        if !p.add.is_empty() {
            lines.push(decls(&p.add));
        }
        push("precomputed", lines.join("; "));
    }
    if f.device_check == DeviceCheck::NoCheck {
        push("device_check", "NoCheck".to_string());
    }
    if let Some(m) = &f.python_module {
        push("python_module", m.clone());
    }
    if let Some(c) = &f.category_override {
        push("category_override", c.clone());
    }
    if !f.tags.is_empty() {
        push(
            "tags",
            f.tags.iter().cloned().collect::<Vec<_>>().join(", "),
        );
    }
    if !f.cpp_no_default_args.is_empty() {
        push(
            "cpp_no_default_args",
            f.cpp_no_default_args
                .iter()
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        );
    }
    if !f.autogen.is_empty() {
        push(
            "autogen",
            f.autogen
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        );
    }
    for (key, on) in [
        ("structured", f.structured),
        ("manual_kernel_registration", f.manual_kernel_registration),
        ("manual_cpp_binding", f.manual_cpp_binding),
        (
            "use_const_ref_for_mutable_tensors",
            f.use_const_ref_for_mutable_tensors,
        ),
    ] {
        if on {
            args.push(format!("{key} = true"));
        }
    }
    if !f.device_guard {
        args.push("device_guard = false".to_string());
    }
    let mentions_tensor = f.func.arguments.iter().any(|a| a.ty.is_tensor_like())
        || f.func.returns.iter().any(|r| r.ty.is_tensor_like());
    // A delegate's API names the tensor type (it has no kernel to find it in).
    if !mentions_tensor || f.structured_delegate.is_some() {
        args.push("tensor = \"MyTensor\"".to_string());
    }
    let sig = dispatcher_signature(&f.func);
    let mut params: Vec<String> = sig
        .arguments
        .iter()
        .map(|a| format!("{}: {}", a.name, a.ty.display_with("MyTensor")))
        .collect();
    if f.structured {
        // The meta function: `&mut StructuredMeta` first, the inputs, the precompute struct.
        params.truncate(f.func.out_start());
        params.insert(
            0,
            "meta: &mut opgen_core::structured::StructuredMeta<'_, MyTensor>".to_string(),
        );
        let ret = match &f.precomputed {
            Some(_) => opgen_core::plan::precompute_struct_name(&f.func.name),
            None => "()".to_string(),
        };
        let kernel = format!(
            "fn kernel_{index}({}) -> {ret} {{ ::core::panic!(\"expanded, never run\") }}",
            params.join(", ")
        );
        return (args.join(", "), kernel);
    }
    let kernel = format!(
        // The body is never parsed nor run: only the signature matters to the expansion.
        "fn kernel_{index}({}) -> {} {{ ::core::panic!(\"expanded, never run\") }}",
        params.join(", "),
        returns_type(&f.func).display_with("MyTensor")
    );
    (args.join(", "), kernel)
}
