//! The variants torchgen generates for entries that lack them (SCHEMA.md §3.4), with the
//! checks made on the way: R72 (one function per signature and kind), R73 (lone out
//! variants), R74 (operators that cannot get an out variant), R68 for the new kernels.

use std::collections::BTreeSet;
use std::hash::BuildHasher;

use smallvec::smallvec;
use smol_str::{SmolStr, format_smolstr};

use crate::schema::{
    AliasAnnotation, AliasSet, ArgType, Argument, BaseOperatorName, BaseType, OperatorName, Return,
    Rule, Schema, SchemaError, SchemaKind,
};

use super::dispatch_table::cpp_name;
use super::entry::{
    DeviceCheck, Dispatch, DispatchOrigin, KernelName, NativeFunction, Site, Variants,
};
use super::file::name_range;
use super::keys::Field;
use super::tags::Tags;
use super::{FnError, FxHashMap};
use crate::dispatch::DispatchKey;

/// Out variants torchgen lets stand alone (R73): their functional variants exist but do not
/// group with them.
const LONE_OUT_ALLOWED: [&str; 2] = [
    "adaptive_avg_pool3d_backward.grad_input",
    "_slow_conv2d_backward.grad_input",
];

/// Operators that can have no out variant (R74): not in-place and no tensor-like return.
/// torchgen hard-codes two mutable and 38 functional names. This list was derived from the
/// corpus: it is exactly the set of corpus operators (full names) that reach the R74 check
/// (37: the two mutable `_cummax_helper`, `_cummin_helper` and 35 functional ones; the
/// corpus passes torchgen, so each is on its lists, and the other listed names never reach
/// the check).
const NO_OUT_ALLOWED: [&str; 37] = [
    "_assert_async",
    "_assert_async.msg",
    "_assert_scalar",
    "_assert_tensor_metadata",
    "_cslt_sparse_mm_search",
    "_cummax_helper",
    "_cummin_helper",
    "_dimI",
    "_dimV",
    "_fused_sdp_choice",
    "_has_same_storage_numel",
    "_linalg_check_errors",
    "_local_scalar_dense",
    "_nested_get_ragged_idx",
    "_nested_tensor_from_mask_left_aligned",
    "_nnz",
    "_print",
    "_use_cudnn_ctc_loss",
    "_use_cudnn_ctc_loss.Tensor",
    "_use_miopen_ctc_loss",
    "_use_miopen_ctc_loss.Tensor",
    "_validate_compressed_sparse_indices",
    "allclose",
    "dense_dim",
    "equal",
    "is_coalesced",
    "is_pinned",
    "is_same_size",
    "is_set_to",
    "q_per_channel_axis",
    "q_scale",
    "q_zero_point",
    "qscheme",
    "record_stream",
    "sparse_dim",
    "sym_constrain_range",
    "sym_constrain_range_for_size",
];

/// In-place operators whose group torchgen does not complete (`polygamma_` has no pre-self
/// `n` argument, unlike `polygamma`).
const SKIPPED_INPLACE: [&str; 1] = ["polygamma_"];

/// Functions with the same signature (§3.2), by kind, in the order they were added.
#[derive(Debug, Clone)]
pub(crate) struct Bucket {
    pub signature: Schema,
    pub members: Vec<(SchemaKind, usize)>,
}

impl Bucket {
    pub fn get(&self, kind: SchemaKind) -> Option<usize> {
        self.members
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, i)| *i)
    }
}

/// Buckets by signature, in order of first appearance; the index maps a signature's hash to
/// the buckets with that hash, so that each signature is stored once.
#[derive(Default)]
pub(crate) struct Buckets {
    pub list: Vec<Bucket>,
    index: FxHashMap<u64, Vec<usize>>,
}

impl Buckets {
    /// Adds function `i` to the bucket of `sig` (R72: one function per kind).
    fn add(&mut self, fs: &[NativeFunction], i: usize, sig: Schema, errors: &mut Vec<FnError>) {
        let kind = fs[i].func.kind();
        let hash = rustc_hash::FxBuildHasher.hash_one(&sig);
        let slot = self.index.entry(hash).or_default();
        let b = match slot
            .iter()
            .copied()
            .find(|&b| self.list[b].signature == sig)
        {
            Some(b) => b,
            None => {
                slot.push(self.list.len());
                self.list.push(Bucket {
                    signature: sig,
                    members: Vec::new(),
                });
                self.list.len() - 1
            }
        };
        if let Some(other) = self.list[b].get(kind) {
            let (f, first) = (&fs[i], &fs[other]);
            let line = first
                .source
                .as_ref()
                .map_or(String::new(), |s| format!(" (line {})", s.entry.line));
            let e = SchemaError::new(
                Rule::DuplicateSignature,
                name_range(f),
                format!(
                    "`{}` has the same signature and kind ({kind}) as `{}`{line}",
                    f.func.name, first.func.name
                ),
            )
            .with_hint("change the arguments or returns of one of them, or remove one");
            errors.push(FnError::new(i, Site::Value(Field::Func), e));
            return;
        }
        self.list[b].members.push((kind, i));
    }
}

/// Generates the missing out and functional variants (§3.4), appending them to `fs` and to
/// their buckets. Returns the buckets of all functions.
pub(crate) fn generate(
    fs: &mut Vec<NativeFunction>,
    tags: &Tags,
    errors: &mut Vec<FnError>,
) -> Vec<Bucket> {
    let mut buckets = Buckets::default();
    for i in 0..fs.len() {
        buckets.add(fs, i, fs[i].func.signature(), errors);
    }
    if !errors.is_empty() {
        return buckets.list;
    }
    for b in 0..buckets.list.len() {
        let new = generate_for(fs, &buckets.list[b], tags, errors);
        for f in new {
            let sig = f.func.signature();
            fs.push(f);
            buckets.add(fs, fs.len() - 1, sig, errors);
        }
    }
    super::file::check_duplicate_registrations(fs, 0, &mut FxHashMap::default(), errors);
    buckets.list
}

fn generate_for(
    fs: &[NativeFunction],
    bucket: &Bucket,
    tags: &Tags,
    errors: &mut Vec<FnError>,
) -> Vec<NativeFunction> {
    let get = |k| bucket.get(k).map(|i| (i, &fs[i]));
    let (functional, inplace, mutable, out) = (
        get(SchemaKind::Functional),
        get(SchemaKind::Inplace),
        get(SchemaKind::Mutable),
        get(SchemaKind::Out),
    );
    let members = || bucket.members.iter().map(|(_, i)| &fs[*i]);
    if functional.is_none() && inplace.is_none() && mutable.is_none() && out.is_none() {
        return Vec::new();
    }
    let all_manual = members().all(|f| f.manual_cpp_binding);
    let has_view = members().any(|f| f.is_view_op() && f.func.name.operator_name() != "set_");
    let all_composite = members().all(NativeFunction::has_composite_implicit_kernel)
        && !members().any(|f| f.has_tag("core"));
    if all_manual || has_view || all_composite {
        return Vec::new();
    }
    if let (Some((i, o)), 1) = (out, bucket.members.len()) {
        if !LONE_OUT_ALLOWED.contains(&o.func.name.full_name().as_str()) {
            let message = format!(
                "out variant `{}` has no functional, in-place or mutable variant with the same \
                 signature",
                o.func.name
            );
            let hint = "add the functional variant (the same arguments without the out \
                        arguments, returning the outputs)";
            let e = SchemaError::new(Rule::LoneOut, name_range(o), message).with_hint(hint);
            errors.push(FnError::new(i, Site::Value(Field::Func), e));
        }
        return Vec::new();
    }
    if inplace.is_some_and(|(_, f)| SKIPPED_INPLACE.contains(&f.func.name.full_name().as_str())) {
        return Vec::new();
    }
    let Some((base_i, base)) = mutable.or(inplace).or(out).or(functional) else {
        return Vec::new();
    };
    let valid = base.func.kind() == SchemaKind::Inplace || base.func.has_tensor_like_return();
    let needs_out = base.autogen.iter().any(|n| n.to_string().contains("out"));
    let gets_out = out.is_none() && valid && needs_out;
    if out.is_none() && !valid && !NO_OUT_ALLOWED.contains(&base.func.name.full_name().as_str()) {
        let message = format!(
            "cannot generate an out variant for `{}`: it is not in-place and returns no tensor",
            base.func.name
        );
        let hint = "return a tensor, or write the out variant yourself; torchgen allows this \
                    only for a fixed list of operators";
        let e = SchemaError::new(Rule::NoOutVariant, name_range(base), message).with_hint(hint);
        errors.push(FnError::new(base_i, Site::Value(Field::Func), e));
    }
    let mut new = Vec::new();
    if gets_out {
        let schema = out_schema(&base.func);
        new.push(generated(base, schema, tags));
    }
    if functional.is_none() && (out.is_some() || gets_out) {
        new.push(generated(base, functional_schema(&base.func), tags));
    }
    new
}

/// A generated function: function variant, no device guard or check, one
/// `CompositeExplicitAutograd` kernel, the `generated` tag plus some of the base's tags.
fn generated(base: &NativeFunction, func: Schema, tags: &Tags) -> NativeFunction {
    let is_out = func.is_out_fn();
    let mut kernel = if is_out {
        func.name.unambiguous_name()
    } else {
        cpp_name(&func)
    };
    if base.func.has_symint() {
        kernel.push_str("_symint");
    }
    let mut new_tags: BTreeSet<String> = BTreeSet::from(["generated".to_string()]);
    for t in ["nondeterministic_seeded", "view_copy", "pt2_compliant_tag"] {
        if base.has_tag(t) {
            new_tags.insert(t.to_string());
        }
    }
    if is_out && tags.contains("out") {
        new_tags.insert("out".into());
    }
    let kernel = KernelName {
        name: kernel,
        namespace: "at::native".into(),
        structured: false,
    };
    NativeFunction {
        namespace: base.namespace.clone(),
        func,
        variants: Variants {
            function: true,
            method: false,
        },
        dispatch: Dispatch {
            entries: vec![(DispatchKey::CompositeExplicitAutograd, kernel)],
            origin: DispatchOrigin::Generated,
        },
        structured: false,
        structured_delegate: None,
        structured_inherits: None,
        precomputed: None,
        device_guard: false,
        device_check: DeviceCheck::NoCheck,
        manual_kernel_registration: false,
        manual_cpp_binding: false,
        python_module: None,
        category_override: None,
        tags: new_tags,
        cpp_no_default_args: BTreeSet::new(),
        autogen: Vec::new(),
        use_const_ref_for_mutable_tensors: base.use_const_ref_for_mutable_tensors,
        ufunc_inner_loop: Vec::new(),
        is_generated: true,
        is_abstract: base.is_abstract,
        source: base.source.clone(),
    }
}

/// The overload of a generated out variant: `out`, or `{overload}_out`.
fn out_overload(name: &OperatorName) -> Option<SmolStr> {
    Some(match &name.overload {
        Some(o) => format_smolstr!("{o}_out"),
        None => SmolStr::new_static("out"),
    })
}

fn plain_name(name: &OperatorName, functional_overload: bool) -> BaseOperatorName {
    BaseOperatorName {
        base: name.name.base.clone(),
        inplace: false,
        dunder: name.name.dunder,
        functional_overload,
    }
}

/// The signature's arguments: annotations dropped, TensorOptions and out arguments removed
/// (torchgen's `Arguments.signature()`, without `FunctionSchema.signature()`'s `bernoulli.p`
/// special case).
fn signature_arguments(s: &Schema) -> Vec<Argument> {
    let out = s.out_start();
    let to = s.tensor_options_start();
    s.arguments[..out]
        .iter()
        .enumerate()
        .filter(|(i, _)| !to.is_some_and(|t| (t..t + 4).contains(i)))
        .map(|(_, a)| Argument {
            annotation: None,
            ..a.clone()
        })
        .collect()
}

fn out_argument(name: SmolStr, ty: ArgType, letter: char) -> Argument {
    let annotation = AliasAnnotation {
        before: smallvec![letter],
        is_write: true,
        after: AliasSet::new(),
    };
    Argument {
        name,
        ty,
        annotation: Some(annotation),
        default: None,
        kwarg_only: true,
    }
}

/// The out variant of an in-place, mutable or functional schema (§3.4).
fn out_schema(s: &Schema) -> Schema {
    let overload = out_overload(&s.name);
    if s.kind() == SchemaKind::Inplace {
        let mut arguments = s.arguments.clone();
        let self_i = s.self_index();
        let self_arg = self_i.map(|i| arguments[i].clone());
        if let (Some(i), Some(self_arg)) = (self_i, self_arg) {
            arguments[i].annotation = None;
            arguments.push(Argument {
                name: "out".into(),
                default: None,
                kwarg_only: true,
                ..self_arg
            });
        }
        let name = OperatorName {
            namespace: None,
            name: plain_name(&s.name, false),
            overload,
        };
        return Schema {
            name,
            arguments,
            returns: s.returns.clone(),
        };
    }
    let (mut arguments, name) = if s.kind() == SchemaKind::Mutable {
        (
            s.arguments.clone(),
            OperatorName {
                namespace: None,
                name: plain_name(&s.name, false),
                overload,
            },
        )
    } else {
        (
            signature_arguments(s),
            OperatorName {
                overload,
                ..s.name.clone()
            },
        )
    };
    let used: BTreeSet<char> = s
        .arguments
        .iter()
        .filter_map(|a| a.annotation.as_ref())
        .flat_map(|a| a.before.iter().copied())
        .collect();
    let free: Vec<char> = ('a'..='z').filter(|c| !used.contains(c)).collect();
    let all_tensors = s
        .returns
        .iter()
        .all(|r| r.ty == ArgType::Base(BaseType::Tensor));
    let mut returns = Vec::new();
    for (i, r) in s.returns.iter().enumerate() {
        if !r.ty.is_tensor_like() {
            returns.push(r.clone());
            continue;
        }
        let name = if s.returns.len() == 1 {
            SmolStr::new_static("out")
        } else {
            format_smolstr!("out{i}")
        };
        let letter = free.get(i).copied().unwrap_or('z');
        let out = out_argument(name, r.ty.clone(), letter);
        if all_tensors {
            returns.push(Return {
                name: None,
                ty: out.ty.clone(),
                annotation: out.annotation.clone(),
            });
        }
        arguments.push(out);
    }
    Schema {
        name,
        arguments,
        returns,
    }
}

/// The functional variant of an in-place, mutable or out schema (§3.4): the signature with
/// return names kept; written inputs that are not returned become returns `{arg}_out`.
fn functional_schema(s: &Schema) -> Schema {
    let name = OperatorName {
        namespace: None,
        name: plain_name(&s.name, s.kind() == SchemaKind::Mutable),
        overload: s.name.overload.clone(),
    };
    let mut returns: Vec<Return> = s
        .returns
        .iter()
        .map(|r| Return {
            annotation: None,
            ..r.clone()
        })
        .collect();
    let self_i = s.self_index();
    let post_self = s
        .positional()
        .map(|(i, _)| i)
        .filter(|i| self_i.is_none_or(|si| *i > si));
    let written = self_i
        .into_iter()
        .chain(s.out_start()..s.arguments.len())
        .chain(post_self);
    for i in written {
        let a = &s.arguments[i];
        if a.is_write() && !s.returns.iter().any(|r| r.annotation == a.annotation) {
            returns.push(Return {
                name: Some(format_smolstr!("{}_out", a.name)),
                ty: a.ty.clone(),
                annotation: None,
            });
        }
    }
    Schema {
        name,
        arguments: signature_arguments(s),
        returns,
    }
}
