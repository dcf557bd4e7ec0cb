//! Pretty-printed expansions of representative operators, one per kind, compared with the
//! files in `tests/snapshots/`; `OPGEN_BLESS=1` rewrites them.

use std::path::PathBuf;

use quote::quote;

use super::expand;

fn check(name: &str, actual: &str) {
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

#[test]
fn add_tensor() {
    check(
        "add_tensor",
        &expand(
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
    );
}

#[test]
fn add_inplace_method_only() {
    check(
        "add_inplace",
        &expand(
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
    );
}

#[test]
fn add_out_with_faithful_form() {
    check(
        "add_out",
        &expand(
            quote!(
                "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
                dispatch = "CPU"
            ),
            quote! {
                pub fn add_out_cpu(self_: &MyTensor, other: &MyTensor, alpha: Scalar, out: &mut MyTensor) {}
            },
        ),
    );
}

#[test]
fn factory_with_tensor_options() {
    check(
        "empty_factory",
        &expand(
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
    );
}

#[test]
fn inferred_schema_with_extension_trait() {
    check(
        "inferred_trait",
        &expand(
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
    );
}

#[test]
fn kernel_of_an_operator_defined_elsewhere_at_cuda() {
    check(
        "op_kernel_cuda",
        &expand(
            quote!(op = "aten::add.Tensor", dispatch = "CPU, CUDA"),
            quote! {
                fn add_cuda(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
                    self_.clone()
                }
            },
        ),
    );
}

#[test]
fn kernel_of_an_operator_defined_elsewhere() {
    check(
        "op_kernel",
        &expand(
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
    );
}

#[test]
fn structured_meta_with_precomputed() {
    check(
        "structured_meta",
        &expand(
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
    );
}

#[test]
fn structured_delegate() {
    check(
        "structured_delegate",
        &expand(
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
    );
}
