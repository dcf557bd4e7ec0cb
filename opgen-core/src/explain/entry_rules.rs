//! R36–R67: one entry of `native_functions.yaml` (or the options of `#[native_function]`).

use super::Example::Yaml;
use super::Explanation;
use crate::schema::Rule;

/// The entries of R36–R67, in rule order.
pub(super) const EXPLANATIONS: [Explanation; 32] = [
    Explanation {
        rule: Rule::EntryFunc,
        meaning: "Each item of the file is a mapping whose `func` field is the schema as a \
            string. A namespace may prefix the schema (`myops::relu(...)`), with one level \
            only. Everything before the last `::` counts as the namespace, so a `::` inside a \
            default value breaks the schema.",
        broken: Yaml("- func: vision::ops::roi_align(Tensor self, Tensor rois) -> Tensor\n"),
        fix: "use a single namespace.",
        fixed: Yaml("- func: vision::roi_align(Tensor self, Tensor rois) -> Tensor\n"),
    },
    Explanation {
        rule: Rule::UnknownField,
        meaning: "An entry has only the fields the format defines (`func`, `variants`, \
            `dispatch`, `structured`, `structured_delegate`, `tags`, `autogen`, \
            `device_check`, `device_guard`, ...). An unknown field, usually a typo, is an \
            error rather than something silently ignored.",
        broken: Yaml("- func: erfinv(Tensor self) -> Tensor\n  varaints: function, method\n"),
        fix: "spell the field as the format does (the message suggests the closest one).",
        fixed: Yaml("- func: erfinv(Tensor self) -> Tensor\n  variants: function, method\n"),
    },
    Explanation {
        rule: Rule::FieldType,
        meaning: "Each field has one YAML type: `variants`, `device_check`, \
            `structured_delegate`, `autogen` and `python_module` are strings; `structured`, \
            `device_guard` and `manual_kernel_registration` are `True` or `False`; \
            `cpp_no_default_args` is a list; `tags` is a string or a list; `dispatch` maps \
            key names to kernel names.",
        broken: Yaml("- func: erfinv(Tensor self) -> Tensor\n  variants: [function, method]\n"),
        fix: "write `variants` as a string.",
        fixed: Yaml("- func: erfinv(Tensor self) -> Tensor\n  variants: function, method\n"),
    },
    Explanation {
        rule: Rule::BadVariants,
        meaning: "`variants` says which forms the operator gets: `function` (a free function), \
            `method` (a method on the tensor type), or both, separated by a comma and a space.",
        broken: Yaml("- func: erfinv(Tensor self) -> Tensor\n  variants: function, Method\n"),
        fix: "use the lowercase names `function` and `method`.",
        fixed: Yaml("- func: erfinv(Tensor self) -> Tensor\n  variants: function, method\n"),
    },
    Explanation {
        rule: Rule::BadDeviceCheck,
        meaning: "`device_check` is `ExactSame` (the default: every tensor argument must be on \
            the same device) or `NoCheck`.",
        broken: Yaml("- func: erfinv(Tensor self) -> Tensor\n  device_check: none\n"),
        fix: "write `NoCheck`.",
        fixed: Yaml("- func: erfinv(Tensor self) -> Tensor\n  device_check: NoCheck\n"),
    },
    Explanation {
        rule: Rule::ConstRefWithOut,
        meaning: "`use_const_ref_for_mutable_tensors: True` changes how kernels receive the \
            tensors they write; PyTorch does not allow it on schemas with out arguments.",
        broken: Yaml(
            "- func: expm1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  use_const_ref_for_mutable_tensors: True\n  dispatch:\n    CPU: expm1_out\n- func: expm1(Tensor self) -> Tensor\n  dispatch:\n    CPU: expm1\n",
        ),
        fix: "remove the field from the out entry.",
        fixed: Yaml(
            "- func: expm1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n    CPU: expm1_out\n- func: expm1(Tensor self) -> Tensor\n  dispatch:\n    CPU: expm1\n",
        ),
    },
    Explanation {
        rule: Rule::DelegateName,
        meaning: "`structured_delegate` (and `structured_inherits`) name an operator of the \
            same file by `name.overload`, without a namespace.",
        broken: Yaml(
            "- func: log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: log1p_out\n- func: log1p(Tensor self) -> Tensor\n  structured_delegate: aten::log1p.out\n",
        ),
        fix: "drop the namespace.",
        fixed: Yaml(
            "- func: log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: log1p_out\n- func: log1p(Tensor self) -> Tensor\n  structured_delegate: log1p.out\n",
        ),
    },
    Explanation {
        rule: Rule::ModuleMethod,
        meaning: "An entry with `python_module` belongs to a module of functions (`nn`, \
            `linalg`, `special`, ...), so it cannot also be a tensor method.",
        broken: Yaml(
            "- func: mish2(Tensor self) -> Tensor\n  python_module: nn\n  variants: function, method\n",
        ),
        fix: "keep the `function` variant only.",
        fixed: Yaml(
            "- func: mish2(Tensor self) -> Tensor\n  python_module: nn\n  variants: function\n",
        ),
    },
    Explanation {
        rule: Rule::PrecomputedNeedsStructured,
        meaning: "`precomputed` lists values a structured kernel's meta function computes for \
            its impl function; without `structured: True` there is no meta function.",
        broken: Yaml(
            "- func: cummax2.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)\n  precomputed:\n  - dim -> int dim\n  dispatch:\n    CPU: cummax2_out\n- func: cummax2(Tensor self, int dim) -> Tensor\n  dispatch:\n    CPU: cummax2\n",
        ),
        fix: "make the out entry structured (its siblings then delegate to it), or drop `precomputed`.",
        fixed: Yaml(
            "- func: cummax2.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  precomputed:\n  - dim -> int dim\n  dispatch:\n    CPU: cummax2_out\n- func: cummax2(Tensor self, int dim) -> Tensor\n  structured_delegate: cummax2.out\n",
        ),
    },
    Explanation {
        rule: Rule::PrecomputedSyntax,
        meaning: "`precomputed` is a list. An item `arg -> type name, type name` replaces the \
            argument `arg` of the impl function by the values after the arrow; an item \
            without an arrow adds values. Names and types are separated by one space, items \
            by a comma and a space.",
        broken: Yaml(
            "- func: cummax2.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  precomputed: dim -> int dim\n  dispatch:\n    CPU: cummax2_out\n- func: cummax2(Tensor self, int dim) -> Tensor\n  structured_delegate: cummax2.out\n",
        ),
        fix: "write the items as a YAML list.",
        fixed: Yaml(
            "- func: cummax2.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  precomputed:\n  - dim -> int dim\n  dispatch:\n    CPU: cummax2_out\n- func: cummax2(Tensor self, int dim) -> Tensor\n  structured_delegate: cummax2.out\n",
        ),
    },
    Explanation {
        rule: Rule::PrecomputedUppercase,
        meaning: "Precomputed values become fields that the meta function fills in and the \
            impl function reads; PyTorch rejects names written in capitals only.",
        broken: Yaml(
            "- func: cummax2.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  precomputed:\n  - dim -> int DIM\n  dispatch:\n    CPU: cummax2_out\n- func: cummax2(Tensor self, int dim) -> Tensor\n  structured_delegate: cummax2.out\n",
        ),
        fix: "use a lowercase name.",
        fixed: Yaml(
            "- func: cummax2.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  precomputed:\n  - dim -> int wrapped_dim\n  dispatch:\n    CPU: cummax2_out\n- func: cummax2(Tensor self, int dim) -> Tensor\n  structured_delegate: cummax2.out\n",
        ),
    },
    Explanation {
        rule: Rule::UnknownTag,
        meaning: "Tags are declared, with a description, in `tags.yaml` (next to the file, or \
            PyTorch's own tags when there is none); an entry can only use declared tags.",
        broken: Yaml("- func: erfinv(Tensor self) -> Tensor\n  tags: pointwsie\n"),
        fix: "use a declared tag (the message suggests the closest one), or declare it.",
        fixed: Yaml("- func: erfinv(Tensor self) -> Tensor\n  tags: pointwise\n"),
    },
    Explanation {
        rule: Rule::UnknownDispatchKey,
        meaning: "The keys of `dispatch` (alone or comma-separated) are the dispatch keys an \
            entry may register kernels for: backends such as `CPU`, `CUDA`, `Meta`, \
            `SparseCPU`, and the composite keys. Names are case-sensitive, and keys that \
            opgen or PyTorch fill in themselves, such as the autograd keys, are not allowed.",
        broken: Yaml(
            "- func: erfinv(Tensor self) -> Tensor\n  dispatch:\n    Cpu: erfinv_cpu\n  autogen: erfinv.out\n",
        ),
        fix: "write the key as PyTorch names it.",
        fixed: Yaml(
            "- func: erfinv(Tensor self) -> Tensor\n  dispatch:\n    CPU: erfinv_cpu\n  autogen: erfinv.out\n",
        ),
    },
    Explanation {
        rule: Rule::ManualRegistrationWithDispatch,
        meaning: "`manual_kernel_registration: True` says the kernels are registered by hand, \
            so a `dispatch` table (even an empty one) would never be used.",
        broken: Yaml(
            "- func: erfinv(Tensor self) -> Tensor\n  manual_kernel_registration: True\n  dispatch:\n    CPU: erfinv_cpu\n",
        ),
        fix: "remove one of the two.",
        fixed: Yaml("- func: erfinv(Tensor self) -> Tensor\n  manual_kernel_registration: True\n"),
    },
    Explanation {
        rule: Rule::RedundantDispatch,
        meaning: "An entry without `dispatch` gets a `CompositeImplicitAutograd` kernel named \
            after the operator; writing exactly that table is redundant and rejected.",
        broken: Yaml(
            "- func: logit2(Tensor self) -> Tensor\n  dispatch:\n    CompositeImplicitAutograd: logit2\n",
        ),
        fix: "delete the `dispatch` field.",
        fixed: Yaml("- func: logit2(Tensor self) -> Tensor\n"),
    },
    Explanation {
        rule: Rule::SingletonCompositeImplicit,
        meaning: "A table whose only key is `CompositeImplicitAutograd` must use the default \
            kernel name (and then is redundant, R50) unless the kernel is a `_symint` one or \
            the entry has a `structured_delegate`: other names hide the kernel from the \
            tools that expect the default.",
        broken: Yaml(
            "- func: logit2(Tensor self) -> Tensor\n  dispatch:\n    CompositeImplicitAutograd: logit2_impl\n",
        ),
        fix: "name the kernel after the operator by deleting the table, or use a `_symint` kernel.",
        fixed: Yaml(
            "- func: logit2(Tensor self) -> Tensor\n  dispatch:\n    CompositeImplicitAutograd: logit2_symint\n",
        ),
    },
    Explanation {
        rule: Rule::FactoryNeedsExplicit,
        meaning: "An entry without a kernel gets a `CompositeImplicitAutograd` one, which \
            decomposes into other operators. Factory-like operators (names starting with \
            `new_` or ending in `_like`, and operators with the TensorOptions arguments but \
            no tensor argument) must choose the device of their result, so they need an \
            explicit kernel.",
        broken: Yaml("- func: new_filled(Tensor self, int[] size, Scalar value) -> Tensor\n"),
        fix: "give it a `CompositeExplicitAutograd` (or backend) kernel.",
        fixed: Yaml(
            "- func: new_filled(Tensor self, int[] size, Scalar value) -> Tensor\n  dispatch:\n    CompositeExplicitAutograd: new_filled\n  autogen: new_filled.out\n",
        ),
    },
    Explanation {
        rule: Rule::MultipleComposite,
        meaning: "An entry has at most one composite kernel among `CompositeExplicitAutograd`, \
            `CompositeExplicitAutogradNonFunctional`, `CompositeImplicitAutograd` and \
            `CompositeImplicitAutogradNestedTensor`; the only pairs allowed are the nested \
            tensor one with `CompositeImplicitAutograd` or with `CompositeExplicitAutograd`.",
        broken: Yaml(
            "- func: logit2(Tensor self) -> Tensor\n  dispatch:\n    CompositeExplicitAutograd: logit2\n    CompositeExplicitAutogradNonFunctional: logit2_nf\n  autogen: logit2.out\n",
        ),
        fix: "keep one composite kernel.",
        fixed: Yaml(
            "- func: logit2(Tensor self) -> Tensor\n  dispatch:\n    CompositeExplicitAutograd: logit2\n  autogen: logit2.out\n",
        ),
    },
    Explanation {
        rule: Rule::KernelNamespaceDepth,
        meaning: "A kernel name in `dispatch` may carry a namespace of at most three levels \
            (`a::b::c::kernel`).",
        broken: Yaml(
            "- func: erfinv(Tensor self) -> Tensor\n  dispatch:\n    CPU: my::deep::kernel::path::erfinv\n  autogen: erfinv.out\n",
        ),
        fix: "use a shorter path.",
        fixed: Yaml(
            "- func: erfinv(Tensor self) -> Tensor\n  dispatch:\n    CPU: my::erfinv\n  autogen: erfinv.out\n",
        ),
    },
    Explanation {
        rule: Rule::AutogenName,
        meaning: "`autogen` lists, separated by a comma and a space, the operators to generate \
            from the entry's group; each is a valid operator name (`name.overload`).",
        broken: Yaml(
            "- func: erfinv_(Tensor(a!) self) -> Tensor(a!)\n  dispatch:\n    CPU: erfinv_\n  autogen: erfinv, erfinv_out\n",
        ),
        fix: "name the out variant by its overload: `erfinv.out`.",
        fixed: Yaml(
            "- func: erfinv_(Tensor(a!) self) -> Tensor(a!)\n  dispatch:\n    CPU: erfinv_\n  autogen: erfinv, erfinv.out\n",
        ),
    },
    Explanation {
        rule: Rule::UfuncNotStructured,
        meaning: "`ufunc_inner_loop` generates the CPU and CUDA kernels of a structured out \
            variant from a scalar loop, so the entry is a structured out schema without its \
            own `CPU` or `CUDA` kernels.",
        broken: Yaml(
            "- func: hypot2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n  ufunc_inner_loop: hypot2 (Float, Double)\n",
        ),
        fix: "add `structured: True` (and a functional sibling that delegates to it).",
        fixed: Yaml(
            "- func: hypot2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  ufunc_inner_loop: hypot2 (Float, Double)\n- func: hypot2(Tensor self, Tensor other) -> Tensor\n  structured_delegate: hypot2.out\n",
        ),
    },
    Explanation {
        rule: Rule::UfuncSyntax,
        meaning: "`ufunc_inner_loop` is either one loop (`name (dtype, dtype)`) or a mapping \
            from loop kinds (`Generic`, `ScalarOnly`, `CPUScalar`, `CPUVector`, `CUDAFunctor`, \
            `CUDAFunctorOnSelf`, `CUDAFunctorOnOther`) to loops.",
        broken: Yaml(
            "- func: hypot2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  ufunc_inner_loop:\n    Scalar: hypot2 (Float, Double)\n",
        ),
        fix: "use one of the loop kinds.",
        fixed: Yaml(
            "- func: hypot2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  ufunc_inner_loop:\n    ScalarOnly: hypot2 (Float, Double)\n- func: hypot2(Tensor self, Tensor other) -> Tensor\n  structured_delegate: hypot2.out\n",
        ),
    },
    Explanation {
        rule: Rule::UfuncDtype,
        meaning: "The dtypes of a ufunc loop are scalar type names (`Float`, `Double`, `Half`, \
            `BFloat16`, `Long`, `Bool`, ...) or dtype classes (`Floating`, `Integral`, \
            `Complex`, `All`, ...), separated by a comma and a space.",
        broken: Yaml(
            "- func: hypot2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  ufunc_inner_loop: hypot2 (float32, Double)\n",
        ),
        fix: "use PyTorch's scalar type names.",
        fixed: Yaml(
            "- func: hypot2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  ufunc_inner_loop: hypot2 (Float, Double)\n- func: hypot2(Tensor self, Tensor other) -> Tensor\n  structured_delegate: hypot2.out\n",
        ),
    },
    Explanation {
        rule: Rule::DelegateWithStructuredKey,
        meaning: "An entry with `structured_delegate` gets its kernels for the structured \
            backends (`CPU`, `CUDA`, `MPS`, `XPU`, `MTIA`) from the delegate, so it cannot list \
            those keys in its own `dispatch`.",
        broken: Yaml(
            "- func: log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: log1p_out\n- func: log1p(Tensor self) -> Tensor\n  structured_delegate: log1p.out\n  dispatch:\n    CPU: log1p_cpu\n",
        ),
        fix: "remove the structured backend keys from the delegating entry.",
        fixed: Yaml(
            "- func: log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: log1p_out\n- func: log1p(Tensor self) -> Tensor\n  structured_delegate: log1p.out\n",
        ),
    },
    Explanation {
        rule: Rule::OutVariants,
        meaning: "Out variants are free functions only: `variants` of a schema with out \
            arguments is `function` (the default).",
        broken: Yaml(
            "- func: expm1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  variants: function, method\n  dispatch:\n    CPU: expm1_out\n- func: expm1(Tensor self) -> Tensor\n  dispatch:\n    CPU: expm1\n",
        ),
        fix: "drop `method`.",
        fixed: Yaml(
            "- func: expm1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  variants: function\n  dispatch:\n    CPU: expm1_out\n- func: expm1(Tensor self) -> Tensor\n  dispatch:\n    CPU: expm1\n",
        ),
    },
    Explanation {
        rule: Rule::StructuredNotOut,
        meaning: "`structured: True` marks the out variant that holds a structured kernel; the \
            functional and in-place variants point at it with `structured_delegate`.",
        broken: Yaml(
            "- func: log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: log1p_out\n- func: log1p(Tensor self) -> Tensor\n  structured: True\n",
        ),
        fix: "write `structured_delegate: log1p.out` on the functional entry.",
        fixed: Yaml(
            "- func: log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: log1p_out\n- func: log1p(Tensor self) -> Tensor\n  structured_delegate: log1p.out\n",
        ),
    },
    Explanation {
        rule: Rule::DelegateOnOut,
        meaning: "An out variant holds the structured kernel itself (`structured: True`); it \
            cannot delegate to another one.",
        broken: Yaml(
            "- func: log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured_delegate: log1p.out\n- func: log1p(Tensor self) -> Tensor\n  structured_delegate: log1p.out\n",
        ),
        fix: "write `structured: True` on the out entry.",
        fixed: Yaml(
            "- func: log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: log1p_out\n- func: log1p(Tensor self) -> Tensor\n  structured_delegate: log1p.out\n",
        ),
    },
    Explanation {
        rule: Rule::StructuredDeviceGuard,
        meaning: "Structured kernels always run under a device guard, so structured entries \
            and their delegates cannot ask for `device_guard: False`.",
        broken: Yaml(
            "- func: log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  device_guard: False\n  dispatch:\n    CPU: log1p_out\n- func: log1p(Tensor self) -> Tensor\n  structured_delegate: log1p.out\n",
        ),
        fix: "remove `device_guard: False`.",
        fixed: Yaml(
            "- func: log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: log1p_out\n- func: log1p(Tensor self) -> Tensor\n  structured_delegate: log1p.out\n",
        ),
    },
    Explanation {
        rule: Rule::CppNoDefaultArgs,
        meaning: "`cpp_no_default_args` lists arguments whose defaults the generated Rust (and \
            C++) API leaves out, to keep overloads apart; each one must be an argument that \
            has a default.",
        broken: Yaml(
            "- func: clamp2(Tensor self, Scalar? min, Scalar? max=None) -> Tensor\n  cpp_no_default_args: ['min']\n",
        ),
        fix: "list only arguments with a default.",
        fixed: Yaml(
            "- func: clamp2(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor\n  cpp_no_default_args: ['min']\n",
        ),
    },
    Explanation {
        rule: Rule::InheritsNeedsStructured,
        meaning: "`structured_inherits` names the base of a structured kernel's meta function; \
            it needs `structured: True`.",
        broken: Yaml(
            "- func: expm1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured_inherits: TensorIteratorBase\n  dispatch:\n    CPU: expm1_out\n- func: expm1(Tensor self) -> Tensor\n  dispatch:\n    CPU: expm1\n",
        ),
        fix: "make the entry structured (and delegate to it), or drop the field.",
        fixed: Yaml(
            "- func: expm1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  structured_inherits: TensorIteratorBase\n  dispatch:\n    CPU: expm1_out\n- func: expm1(Tensor self) -> Tensor\n  structured_delegate: expm1.out\n",
        ),
    },
    Explanation {
        rule: Rule::ForeachDeviceCheck,
        meaning: "Operators named `_foreach...` work on lists of tensors that may live on \
            different devices (they fall back to a per-tensor loop), so they must not check \
            that all tensors share a device.",
        broken: Yaml("- func: _foreach_erfinv(Tensor[] self) -> Tensor[]\n"),
        fix: "add `device_check: NoCheck`.",
        fixed: Yaml(
            "- func: _foreach_erfinv(Tensor[] self) -> Tensor[]\n  device_check: NoCheck\n",
        ),
    },
    Explanation {
        rule: Rule::MissingSeededTag,
        meaning: "Operators that look random carry the `nondeterministic_seeded` tag, so tools \
            that replay or compare programs know their results depend on a seed. An operator \
            looks random when its full name (overload included) contains `rand`, when its name \
            or an argument's name contains `dropout` (backward operators excepted), or when it \
            takes a `Generator`.",
        broken: Yaml(
            "- func: jitter(Tensor self, float scale, *, Generator? generator=None) -> Tensor\n",
        ),
        fix: "add the tag.",
        fixed: Yaml(
            "- func: jitter(Tensor self, float scale, *, Generator? generator=None) -> Tensor\n  tags: nondeterministic_seeded\n",
        ),
    },
];
