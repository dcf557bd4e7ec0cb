//! `include_native_functions!` on the corpus and on small files.

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;

use super::include_native_functions_in;

fn data() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data"))
}

fn corpus(options: TokenStream) -> String {
    include_native_functions_in(data(), quote!("native_functions.yaml", #options)).to_string()
}

/// A directory holding `native_functions.yaml` with `yaml`, unique per test.
fn yaml_dir(test: &str, yaml: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("opgen-include-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("native_functions.yaml"), yaml).unwrap();
    dir
}

/// The corpus's functions without a Rust API: three generated out variants with 25 to 30
/// arguments, more than typed calls take.
const CORPUS_REGISTERED_ONLY: &str =
    "_cudnn_rnn_backward.out, mkldnn_rnn_layer_backward.out, miopen_rnn_backward.out";

#[test]
fn the_whole_corpus_expands_to_items() {
    let out = include_native_functions_in(
        data(),
        quote!("native_functions.yaml", tensor = "MyTensor", registered_only = #CORPUS_REGISTERED_ONLY),
    );
    let text = out.to_string();
    assert!(
        !text.contains("compile_error"),
        "{}",
        &text[..text.len().min(3000)]
    );
    let file: syn::File = syn::parse2(out).expect("the expansion parses as items");
    // One `def` per function (the entries and the generated variants), in one link group.
    assert_eq!(text.matches("LINK_ENTRIES").count(), 1);
    assert_eq!(text.matches("LinkEntry :: def (").count(), 3_110);
    // Every marker names the one table, at its entry.
    assert_eq!(text.matches("op_table !").count(), 1);
    assert_eq!(text.matches("type Table = __OPGEN_TABLE ;").count(), 3_107);
    // The files are tracked, then the items; methods in one inherent impl.
    assert!(text.starts_with("const _ : & [u8] = :: core :: include_bytes !"));
    let impls = (file.items.iter())
        .filter(|i| matches!(i, syn::Item::Impl(i) if i.trait_.is_none()))
        .count();
    assert_eq!(impls, 1);
}

#[test]
fn subsets_by_pattern_tag_and_namespace() {
    let out = corpus(quote!(
        tensor = "T",
        include = "add*, relu",
        skip = "addmm*, add.out"
    ));
    assert!(out.contains("pub fn add (") && out.contains("pub fn addbmm ("));
    assert!(out.contains("pub fn relu (") && !out.contains("pub fn relu_ ("));
    assert!(!out.contains("pub fn addmm (") && !out.contains("pub fn add_out ("));
    // With a `.`, the pattern matches `name.overload`.
    let out = corpus(quote!(tensor = "T", include = "add.*"));
    assert!(out.contains("pub fn add (") && out.contains("pub fn add_scalar ("));
    assert!(!out.contains("pub fn add_ (") && !out.contains("pub fn addbmm ("));
    // Tags: only operators with one of them.
    let out = corpus(quote!(tensor = "T", tags = "pointwise", include = "a*"));
    assert!(out.contains("pub fn abs (") && !out.contains("pub fn addmm ("));
    let out = corpus(quote!(tensor = "T", namespace = "aten", include = "relu"));
    assert!(out.contains("pub fn relu ("));
}

#[test]
fn filters_that_select_nothing_are_errors() {
    let out = corpus(quote!(tensor = "T", include = "relu, relux", skip = "zzz"));
    assert!(
        out.contains("`include` pattern `relux` matches no operator"),
        "{out}"
    );
    assert!(out.contains("did you mean `relu`?"), "{out}");
    assert!(
        out.contains("`skip` pattern `zzz` matches no operator"),
        "{out}"
    );
    let out = corpus(quote!(tensor = "T", tags = "pointwize"));
    assert!(
        out.contains("unknown tag `pointwize` in `tags`; did you mean `pointwise`?"),
        "{out}"
    );
    let out = corpus(quote!(tensor = "T", namespace = "vision"));
    assert!(out.contains("no operator of namespace `vision`"), "{out}");
}

#[test]
fn option_errors() {
    let out = corpus(quote!());
    assert!(out.contains("missing `tensor = \\\"...\\\"`"), "{out}");
    let out = corpus(quote!(tensor = "T", methods = "trait"));
    assert!(out.contains("unknown `methods` value"), "{out}");
    let out = include_native_functions_in(data(), quote!(tensor = "T"));
    assert!(out.to_string().contains("expected the path"), "{out}");
    let out = include_native_functions_in(data(), quote!("missing.yaml", tensor = "T"));
    assert!(
        out.to_string()
            .contains("`missing.yaml`: cannot read the file"),
        "{out}"
    );
}

#[test]
fn methods_in_one_extension_trait() {
    let out = corpus(quote!(
        tensor = "T",
        include = "relu*, abs",
        methods = "trait AtenExt"
    ));
    let file: syn::File = syn::parse_str(&out).unwrap();
    let traits: Vec<&syn::ItemTrait> = (file.items.iter())
        .filter_map(|i| match i {
            syn::Item::Trait(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(traits.len(), 1);
    let names: Vec<String> = (traits[0].items.iter())
        .filter_map(|i| match i {
            syn::TraitItem::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    for name in ["relu", "try_relu", "relu_", "abs", "try_abs"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    assert!(out.contains("impl AtenExt for T"));
}

#[test]
fn clashing_names_are_made_unique() {
    let out = corpus(quote!(tensor = "T", include = "clamp, _stack, stack"));
    assert!(out.contains("pub fn clamp (") && out.contains("pub fn clamp_tensor ("));
    assert!(out.contains("pub struct ClampArgs") && out.contains("pub struct ClampTensorArgs"));
    assert!(out.contains("pub struct StackArgs") && out.contains("pub struct _StackArgs"));
    assert!(out.contains("Named `clamp_tensor`, not `clamp`"));
}

#[test]
fn distinct_names_are_kept() {
    // Names that do not meet are never changed (this once looped forever on suffixes).
    let out = corpus(quote!(tensor = "T", include = "zeros.out, zeros_like"));
    assert!(out.contains("pub fn zeros_out (") && out.contains("pub fn try_zeros_out ("));
    assert!(out.contains("pub fn zeros_like ("));
    assert!(!out.contains("Named `"), "{out}");
}

#[test]
fn trait_methods_never_take_a_prelude_name() {
    let out = corpus(quote!(
        tensor = "T",
        include = "clone, eq, max",
        methods = "trait AtenMethods"
    ));
    let file: syn::File = syn::parse_str(&out).unwrap();
    let names: Vec<String> = (file.items.iter())
        .filter_map(|i| match i {
            syn::Item::Trait(t) => Some(t),
            _ => None,
        })
        .flat_map(|t| t.items.iter())
        .filter_map(|i| match i {
            syn::TraitItem::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    for name in [
        "clone_op",
        "eq_op",
        "max_op",
        "try_clone",
        "eq_scalar",
        "max_dim",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    for name in ["clone", "eq", "max"] {
        assert!(!names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    // The free functions keep the names.
    assert!(out.contains("pub fn clone (") && out.contains("pub fn eq ("));
}

#[test]
fn schemas_without_rust_mapping_are_registered_only() {
    let dir = yaml_dir(
        "unmapped",
        "- func: take_class(Tensor self, __torch__.torch.classes.my.Thing thing) -> Tensor\n\
         - func: mask(Tensor self, bool[] mask) -> Tensor\n\
         - func: fine(Tensor self) -> Tensor\n",
    );
    // Not in silence: each is named, with why, until `registered_only` lists it.
    let out = include_native_functions_in(&dir, quote!("native_functions.yaml", tensor = "T"))
        .to_string();
    assert_eq!(out.matches("compile_error").count(), 1, "{out}");
    assert!(
        out.contains("2 operators of the file have no Rust API"),
        "{out}"
    );
    assert!(
        out.contains("`aten::take_class`") && out.contains("`aten::mask`"),
        "{out}"
    );
    assert!(out.contains("registered_only"), "{out}");
    let out = include_native_functions_in(
        &dir,
        quote!(
            "native_functions.yaml",
            tensor = "T",
            registered_only = "take_class, mask"
        ),
    )
    .to_string();
    assert!(!out.contains("compile_error"), "{out}");
    // Three `def`s, one of them with a marker (its `impl Operator` at index 2).
    assert_eq!(out.matches("LinkEntry :: def (").count(), 3);
    assert_eq!(out.matches("type Table").count(), 1);
    assert!(out.contains("take_class(Tensor self, __torch__.torch.classes.my.Thing thing)"));
    assert!(!out.contains("pub fn take_class") && !out.contains("pub fn mask"));
    assert!(out.contains("pub fn fine ("));
    // A pattern that lists nothing to register only is stale.
    let out = include_native_functions_in(
        &dir,
        quote!(
            "native_functions.yaml",
            tensor = "T",
            registered_only = "take_class, mask, fine"
        ),
    )
    .to_string();
    assert!(
        out.contains(
            "`registered_only` pattern `fine` matches no selected operator without a Rust API"
        ),
        "{out}"
    );
}

#[test]
fn yaml_errors_name_file_line_column_and_rule() {
    let dir = yaml_dir(
        "errors",
        "- func: relu(Tensr self) -> Tensor\n- func: abs(Tensor self) -> Tensor\n  variants: methd\n",
    );
    let out = include_native_functions_in(&dir, quote!("native_functions.yaml", tensor = "T"))
        .to_string();
    assert_eq!(out.matches("compile_error").count(), 2, "{out}");
    // rustc prints `error: ` before each: the text itself does not say "error" again.
    assert!(out.contains("native_functions.yaml:1:14: unknown type `Tensr` [R16]"));
    assert!(
        out.contains("native_functions.yaml:3:13: unknown variant `methd` in `variants` [R39]"),
        "{out}"
    );
    assert!(!out.contains("error["), "{out}");
}

#[test]
fn derivatives_give_kernels_to_the_operators_their_entries_serve() {
    let dir = yaml_dir(
        "derivatives",
        "- func: neg(Tensor self) -> Tensor\n  variants: function, method\n\
         - func: neg_(Tensor(a!) self) -> Tensor(a!)\n  variants: function, method\n\
         - func: neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n\
         - func: relu(Tensor self) -> Tensor\n",
    );
    std::fs::write(
        dir.join("d.yaml"),
        "- name: neg(Tensor self) -> Tensor\n  self: grad.neg()\n",
    )
    .unwrap();
    let out = include_native_functions_in(
        &dir,
        quote!(
            "native_functions.yaml",
            tensor = "T",
            derivatives = "d.yaml"
        ),
    );
    let text = out.to_string();
    assert!(!text.contains("compile_error"), "{text}");
    // `neg` and `neg_` (through `neg`'s entry) get a node; `neg.out` its refusal; `relu` nothing.
    assert_eq!(text.matches("struct NegBackward0").count(), 2);
    assert_eq!(text.matches("autograd :: functional (").count(), 1);
    assert_eq!(text.matches("autograd :: inplace (").count(), 1);
    assert_eq!(text.matches("autograd :: out (").count(), 1);
    syn::parse2::<syn::File>(out).expect("valid items");
    // A formula that does not translate is an error naming its entry.
    std::fs::write(
        dir.join("d.yaml"),
        "- name: relu(Tensor self) -> Tensor\n  self: my_relu_backward(grad, self)\n",
    )
    .unwrap();
    let text = include_native_functions_in(
        &dir,
        quote!(
            "native_functions.yaml",
            tensor = "T",
            derivatives = "d.yaml"
        ),
    )
    .to_string();
    assert!(
        text.contains("d.yaml:2:9: `relu`: the formula of `self` calls `my_relu_backward` (2 arguments), which is neither an ATen operator nor a helper"),
        "{text}"
    );
}
