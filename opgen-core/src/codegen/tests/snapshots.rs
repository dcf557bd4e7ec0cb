//! Pretty-printed expansions of representative operators, one per kind, compared with the
//! files in `tests/snapshots/`; `OPGEN_BLESS=1` rewrites them.

use std::path::PathBuf;

use quote::quote;

use proc_macro2::TokenStream;

use super::expand;

pub(super) fn check(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.rs"));
    if std::env::var_os("OPGEN_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("no snapshot {}; run with OPGEN_BLESS=1", path.display()));
    if expected != actual {
        panic!("snapshot `{name}` differs; run with OPGEN_BLESS=1 and review the diff\n{actual}");
    }
}

/// The representative inputs: (snapshot name, attribute, item).
pub(super) fn cases() -> Vec<(&'static str, TokenStream, TokenStream)> {
    vec![
        (
            "add_tensor",
            quote!(
                "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                variants = "function, method",
                dispatch = "CPU"
            ),
            quote! {
                /// Adds `other`, scaled by `alpha`, to `self`.
                pub fn add_cpu(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
                    self_.clone()
                }
            },
        ),
        (
            "add_inplace",
            quote!(
                "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
                variants = "method",
                dispatch = "CPU, Meta"
            ),
            quote! {
                pub fn add_cpu_(self_: &mut MyTensor, other: &MyTensor, alpha: Scalar) -> Result<(), String> {
                    Ok(())
                }
            },
        ),
        (
            "add_out",
            quote!(
                "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
                dispatch = "CPU"
            ),
            quote! {
                pub fn add_out_cpu(self_: &MyTensor, other: &MyTensor, alpha: Scalar, out: &mut MyTensor) {}
            },
        ),
        (
            "empty_factory",
            quote!(
                "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, \
                        Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
                dispatch = "CompositeExplicitAutograd"
            ),
            quote! {
                pub(crate) fn empty_kernel(
                    size: &[i64],
                    dtype: Option<ScalarType>,
                    layout: Option<Layout>,
                    device: Option<Device>,
                    pin_memory: Option<bool>,
                    memory_format: Option<MemoryFormat>,
                ) -> MyTensor {
                    MyTensor::empty(size)
                }
            },
        ),
        (
            "inferred_trait",
            quote!(
                variants = "function, method",
                methods = "trait ScaleExt",
                namespace = "vision",
                dispatch = "CPU"
            ),
            quote! {
                /// Scales a tensor.
                pub fn scale_cpu(self_: &MyTensor, factor: f64, dims: Option<&[i64]>) -> anyhow::Result<MyTensor> {
                    Ok(self_.clone())
                }
            },
        ),
        (
            "op_kernel_cuda",
            quote!(op = "aten::add.Tensor", dispatch = "CPU, CUDA"),
            quote! {
                fn add_cuda(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
                    self_.clone()
                }
            },
        ),
        (
            "op_kernel",
            quote!(
                op = "aten::add.Tensor",
                dispatch = "Meta",
                crate = "::my_framework::opgen"
            ),
            quote! {
                fn add_meta(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
                    self_.clone()
                }
            },
        ),
        (
            "structured_meta",
            quote!(
                "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
                structured,
                precomputed = "dim -> int[] dims"
            ),
            quote! {
                pub fn sum_meta(
                    meta: &mut StructuredMeta<'_, MyTensor>,
                    self_: &MyTensor,
                    dim: Option<&[i64]>,
                    keepdim: bool,
                ) -> Result<SumIntListOutPrecompute, Error> {
                    let _ = (keepdim, meta);
                    let dims = dim.map_or_else(Vec::new, <[i64]>::to_vec);
                    let _ = self_;
                    Ok(SumIntListOutPrecompute { dims })
                }
            },
        ),
        (
            "structured_delegate",
            quote!(
                "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
                structured_delegate = "add.out",
                variants = "method",
                tensor = "MyTensor"
            ),
            quote!(
                pub fn add_();
            ),
        ),
        (
            "structured_impl",
            quote!(op = "sum.IntList_out", structured, dispatch = "CPU"),
            quote! {
                fn sum_out_cpu(self_: &MyTensor, dims: &[i64], keepdim: bool, out: &mut MyTensor) {}
            },
        ),
        (
            "op_path_kernel",
            quote!(op = aten::add, dispatch = "CPU"),
            quote! {
                fn add_cpu(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> Result<MyTensor, Error> {
                    Ok(self_.clone())
                }
            },
        ),
    ]
}

#[test]
fn expansions_equal_their_snapshots() {
    for (name, attribute, item) in cases() {
        check(name, &expand(attribute, item));
    }
}

/// The budget of issue 12: `add.Tensor` with both variants expands to at most 80
/// prettyplease lines, the user's kernel (which the expansion re-emits) not counted.
#[test]
fn add_tensor_expands_to_at_most_80_lines() {
    let Some((_, attribute, item)) = cases().into_iter().find(|c| c.0 == "add_tensor") else {
        panic!("the add_tensor case");
    };
    let kernel: syn::File = syn::parse2(item.clone()).expect("the kernel parses");
    let kernel = prettyplease::unparse(&kernel).lines().count();
    let expansion = expand(attribute, item);
    let lines = expansion.lines().count() - kernel;
    assert!(
        lines <= 80,
        "add.Tensor expands to {lines} lines (budget 80):\n{expansion}"
    );
}
