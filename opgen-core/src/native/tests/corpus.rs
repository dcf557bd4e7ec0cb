//! The figures of SCHEMA.md (§3.3–3.5, §6.3) on the corpus.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use crate::native::{DispatchKey, NativeFunctions, load_native_functions};
use crate::schema::SchemaKind;

fn corpus() -> &'static NativeFunctions {
    static NFS: OnceLock<NativeFunctions> = OnceLock::new();
    NFS.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}{f}")).expect("corpus file");
        match load_native_functions(&read("native_functions.yaml"), &read("tags.yaml")) {
            Ok(nfs) => nfs,
            Err(errors) => {
                let shown: Vec<String> = errors.iter().take(10).map(|e| e.render()).collect();
                panic!(
                    "{} errors loading the corpus:\n{}",
                    errors.len(),
                    shown.join("\n")
                );
            }
        }
    })
}

#[test]
fn entries_and_generated_functions() {
    let nfs = corpus();
    assert_eq!(nfs.entries().len(), 2_590);
    assert_eq!(nfs.functions().len(), 3_110);
    let generated = nfs.generated();
    let outs = generated
        .iter()
        .filter(|f| f.kind() == SchemaKind::Out)
        .count();
    assert_eq!((outs, generated.len() - outs), (478, 42));
    assert!(
        generated
            .iter()
            .all(|f| f.is_generated && f.has_tag("generated"))
    );
}

#[test]
fn groups_and_view_groups() {
    let nfs = corpus();
    let groups: Vec<_> = nfs.groups().collect();
    assert_eq!(groups.len(), 1_108);
    assert_eq!(groups.iter().filter(|g| g.structured).count(), 279);
    assert_eq!(groups.iter().filter(|g| g.inplace.is_some()).count(), 303);
    assert_eq!(groups.iter().filter(|g| g.mutable.is_some()).count(), 4);
    assert_eq!(nfs.ungrouped().count(), 587);
    assert_eq!(nfs.view_groups().count(), 91);
    let members: usize = groups.iter().map(|g| g.functions().count()).sum();
    assert_eq!(members + nfs.ungrouped().count(), 3_110);
}

#[test]
fn variants_and_abstract() {
    let nfs = corpus();
    let count = |p: &dyn Fn(&crate::native::NativeFunction) -> bool| {
        nfs.entries().iter().filter(|f| p(f)).count()
    };
    assert_eq!(count(&|f| f.variants.function && !f.variants.method), 1_864);
    assert_eq!(count(&|f| f.variants.function && f.variants.method), 489);
    assert_eq!(count(&|f| !f.variants.function && f.variants.method), 237);
    assert_eq!(count(&|f| f.is_abstract), 1_861);
    assert_eq!(count(&|f| !f.is_abstract), 729);
    assert_eq!(count(&|f| f.is_view_op()), 106);
}

#[test]
fn kinds() {
    let nfs = corpus();
    let mut kinds = BTreeMap::new();
    for f in nfs.entries() {
        *kinds.entry(f.kind()).or_insert(0) += 1;
    }
    let expected = [
        (SchemaKind::Functional, 1_608),
        (SchemaKind::Inplace, 339),
        (SchemaKind::Out, 632),
        (SchemaKind::Mutable, 11),
    ];
    assert_eq!(kinds, BTreeMap::from(expected));
}

#[test]
fn effective_dispatch_keys() {
    let nfs = corpus();
    let mut per_key: BTreeMap<&str, usize> = BTreeMap::new();
    for f in nfs.entries() {
        for k in f.dispatch.keys() {
            *per_key.entry(k.name()).or_default() += 1;
        }
    }
    let expected = [
        ("CUDA", 888),
        ("XPU", 790),
        ("CompositeImplicitAutograd", 741),
        ("CPU", 687),
        ("MPS", 561),
        ("CompositeExplicitAutograd", 544),
        ("SparseCPU", 176),
        ("SparseCUDA", 174),
        ("SparseXPU", 173),
        ("SparseMPS", 161),
        ("SparseCsrCPU", 140),
        ("SparseCsrCUDA", 139),
        ("SparseCsrXPU", 139),
        ("SparseCsrMeta", 129),
        ("QuantizedCPU", 110),
        ("NestedTensorCUDA", 101),
        ("NestedTensorCPU", 100),
        ("MTIA", 98),
        ("NestedTensorXPU", 94),
        ("NestedTensorHPU", 88),
        ("CompositeExplicitAutogradNonFunctional", 57),
        ("MkldnnCPU", 56),
        ("Meta", 46),
        ("QuantizedCUDA", 39),
        ("SparseMeta", 24),
        ("SparseCsrMPS", 13),
        ("ZeroTensor", 8),
        ("CompositeImplicitAutogradNestedTensor", 5),
        ("QuantizedMeta", 1),
        ("NestedTensorMeta", 1),
    ];
    assert_eq!(per_key, BTreeMap::from(expected));
    assert_eq!(DispatchKey::YAML_KEYS.len(), per_key.len());
    let empty = nfs
        .entries()
        .iter()
        .filter(|f| {
            f.dispatch.entries.is_empty()
                && f.dispatch.origin == crate::native::DispatchOrigin::Explicit
        })
        .count();
    assert_eq!(empty, 9);
}

#[test]
fn tags() {
    let nfs = corpus();
    let mut per_tag: BTreeMap<&str, usize> = BTreeMap::new();
    for f in nfs.entries() {
        for t in &f.tags {
            *per_tag.entry(t.as_str()).or_default() += 1;
        }
    }
    let expected = [
        ("pointwise", 546),
        ("core", 193),
        ("nondeterministic_seeded", 108),
        ("reduction", 71),
        ("view_copy", 43),
        ("dynamic_output_shape", 18),
        ("inplace_view", 17),
        ("maybe_aliasing_or_mutating", 12),
        ("needs_exact_strides", 8),
        ("data_dependent_output", 4),
        ("needs_fixed_stride_order", 1),
        ("pt2_compliant_tag", 2_590),
        ("out", 632),
        ("inplace", 339),
    ];
    assert_eq!(per_tag, BTreeMap::from(expected));
    assert_eq!(nfs.tags().len(), 20);
}

#[test]
fn field_counts() {
    let nfs = corpus();
    let e = nfs.entries();
    let count =
        |p: &dyn Fn(&crate::native::NativeFunction) -> bool| e.iter().filter(|f| p(f)).count();
    assert_eq!(count(&|f| f.structured), 279);
    assert_eq!(
        count(&|f| f.structured_delegate.is_some() && f.kind() == SchemaKind::Functional),
        279
    );
    assert_eq!(
        count(&|f| f.structured_delegate.is_some() && f.kind() == SchemaKind::Inplace),
        111
    );
    assert_eq!(count(&|f| f.structured_inherits.is_some()), 155);
    assert_eq!(count(&|f| !f.device_guard), 118);
    assert_eq!(
        count(&|f| f.device_check == crate::native::DeviceCheck::NoCheck),
        878
    );
    assert_eq!(count(&|f| f.python_module.is_some()), 619);
    assert_eq!(count(&|f| f.category_override.is_some()), 15);
    assert_eq!(count(&|f| f.manual_cpp_binding), 31);
    assert_eq!(count(&|f| f.use_const_ref_for_mutable_tensors), 11);
    assert_eq!(count(&|f| f.precomputed.is_some()), 9);
    assert_eq!(count(&|f| !f.ufunc_inner_loop.is_empty()), 1);
    assert_eq!(count(&|f| !f.cpp_no_default_args.is_empty()), 32);
    assert_eq!(count(&|f| !f.autogen.is_empty()), 494);
    assert_eq!(e.iter().map(|f| f.autogen.len()).sum::<usize>(), 533);
}

#[test]
fn never_generated_autogen_names() {
    let nfs = corpus();
    let generated: BTreeSet<String> = nfs
        .generated()
        .iter()
        .map(|f| f.func.name.full_name())
        .collect();
    let listed: BTreeSet<String> = nfs
        .entries()
        .iter()
        .flat_map(|f| f.autogen.iter().map(|n| n.full_name()))
        .collect();
    let never: Vec<&str> = listed.difference(&generated).map(String::as_str).collect();
    let mut expected = vec![
        "prelu.out",
        "scaled_dot_product_attention.out",
        "upsample_linear1d.vec_out",
        "upsample_bicubic2d.vec_out",
        "upsample_nearest1d.vec_out",
        "upsample_nearest3d.vec_out",
        "upsample_trilinear3d.vec_out",
        "_upsample_bicubic2d_aa.vec_out",
        "_upsample_bilinear2d_aa.vec_out",
        "_upsample_lanczos2d_aa.vec_out",
        "_upsample_nearest_exact1d.vec_out",
        "_upsample_nearest_exact2d.vec_out",
        "_upsample_nearest_exact3d.vec_out",
    ];
    expected.sort_unstable();
    assert_eq!(never, expected);
    assert!(generated.is_subset(&listed));
}

#[test]
fn examples_of_generated_schemas_and_groups() {
    let nfs = corpus();
    let out = nfs.get("_foreach_add.Scalar_out").expect("generated");
    assert_eq!(
        out.func.to_string(),
        "_foreach_add.Scalar_out(Tensor[] self, Scalar scalar, *, Tensor(a!)[] out) -> ()"
    );
    assert_eq!(
        out.dispatch
            .get(DispatchKey::CompositeExplicitAutograd)
            .map(|k| k.name.as_str()),
        Some("_foreach_add_Scalar_out")
    );
    let f = nfs
        .get("_native_batch_norm_legit_functional")
        .expect("generated");
    assert!(f.func.name.name.functional_overload && f.is_generated);
    let g = nfs
        .groups()
        .find(|g| g.out.func.name.full_name() == "add.out")
        .expect("add group");
    assert!(g.structured);
    assert_eq!(g.functional.func.name.full_name(), "add.Tensor");
    assert_eq!(
        g.inplace.map(|f| f.func.name.full_name()),
        Some("add_.Tensor".into())
    );
    let add_out = g.out;
    assert_eq!(
        add_out
            .dispatch
            .get(DispatchKey::CPU)
            .map(|k| k.name.as_str()),
        Some("ufunc_add_CPU")
    );
}

#[test]
fn generated_schemas_are_canonical_and_mutable_first() {
    let nfs = corpus();
    for f in nfs.generated() {
        assert_eq!(
            crate::schema::parse_schema(&f.func.to_string()).as_ref(),
            Ok(&f.func)
        );
    }
    // `rrelu_with_noise` has both a mutable and an in-place variant: the mutable one is the
    // base, so the generated functional variant gets the `_functional` suffix.
    let f = nfs.get("rrelu_with_noise_functional").expect("generated");
    assert_eq!(
        f.func.to_string(),
        "rrelu_with_noise_functional(Tensor self, Tensor noise, Scalar lower=0.125, Scalar upper=0.3333333333333333, bool training=False, Generator? generator=None) -> (Tensor, Tensor noise_out)"
    );
    assert!(f.has_tag("nondeterministic_seeded"));
    let resize = nfs.get("resize").expect("generated");
    assert_eq!(resize.dispatch.entries[0].1.name, "resize_symint");
}
