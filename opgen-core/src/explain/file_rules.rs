//! R68–R90: the whole file, groups of variants, view groups, the Rust API, and the nesting
//! limit.

use super::Example::{Schema, Yaml};
use super::Explanation;
use crate::schema::Rule;

/// The entries of R68–R90, in rule order.
pub(super) const EXPLANATIONS: [Explanation; 25] = [
    Explanation {
        rule: Rule::DuplicateOperator,
        meaning: "An operator (name and overload) registers one kernel per dispatch key, so two \
            entries with the same operator name cannot have a kernel at the same key, the \
            implicit `CompositeImplicitAutograd` kernel of an entry without `dispatch` \
            included. Entries of one operator are told apart by their overload names.",
        broken: Yaml(
            "- func: softsign(Tensor self) -> Tensor\n- func: softsign(Tensor self, float beta) -> Tensor\n",
        ),
        fix: "give the second entry an overload name.",
        fixed: Yaml(
            "- func: softsign(Tensor self) -> Tensor\n- func: softsign.beta(Tensor self, float beta) -> Tensor\n",
        ),
    },
    Explanation {
        rule: Rule::MissingDelegate,
        meaning: "`structured_delegate` names the structured out variant whose kernel the entry \
            uses; that entry exists in the file and has `structured: True`.",
        broken: Yaml(
            "- func: softsign(Tensor self) -> Tensor\n  structured_delegate: softsign.out\n",
        ),
        fix: "write the structured out entry.",
        fixed: Yaml(
            "- func: softsign.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: softsign_out\n- func: softsign(Tensor self) -> Tensor\n  structured_delegate: softsign.out\n",
        ),
    },
    Explanation {
        rule: Rule::PythonKeyword,
        meaning: "Argument names become keyword arguments in Python bindings, so they cannot \
            be Python keywords (`lambda`, `from`, `in`, `is`, `None`, ...). Three old ATen \
            operators are allowed an argument named `from`.",
        broken: Yaml("- func: shrink(Tensor self, float lambda) -> Tensor\n"),
        fix: "rename the argument.",
        fixed: Yaml("- func: shrink(Tensor self, float lambd) -> Tensor\n"),
    },
    Explanation {
        rule: Rule::InplaceViewNaming,
        meaning: "The `inplace_view` tag marks in-place operators that change a tensor's view \
            metadata (sizes, strides). Such an operator has an in-place name, and the \
            out-of-place view operator of the same name exists (`resize_`, `resize_as_` and \
            `set_` are exempt).",
        broken: Yaml("- func: squeeze2_(Tensor(a!) self) -> Tensor(a!)\n  tags: inplace_view\n"),
        fix: "add the out-of-place view operator.",
        fixed: Yaml(
            "- func: squeeze2(Tensor(a) self) -> Tensor(a)\n- func: squeeze2_(Tensor(a!) self) -> Tensor(a!)\n  tags: inplace_view\n",
        ),
    },
    Explanation {
        rule: Rule::DuplicateSignature,
        meaning: "Variants of one operator are grouped by signature (the schema without \
            annotations, defaults, out arguments and the in-place or out naming), so two \
            entries with the same signature and the same kind (two functional ones, say) \
            cannot be told apart.",
        broken: Yaml(
            "- func: erfc2(Tensor self) -> Tensor\n  dispatch:\n    CPU: erfc2\n- func: erfc2.alt(Tensor self) -> Tensor\n  dispatch:\n    CPU: erfc2_alt\n",
        ),
        fix: "remove the duplicate, or make the signatures differ.",
        fixed: Yaml(
            "- func: erfc2(Tensor self) -> Tensor\n  dispatch:\n    CPU: erfc2\n  autogen: erfc2.out\n- func: erfc2.scaled(Tensor self, float scale) -> Tensor\n  dispatch:\n    CPU: erfc2_scaled\n  autogen: erfc2.scaled_out\n",
        ),
    },
    Explanation {
        rule: Rule::LoneOut,
        meaning: "An out variant belongs to a group with a functional (or in-place, or mutable) \
            variant of the same signature; an out entry alone has nothing to be the out form \
            of.",
        broken: Yaml(
            "- func: erfc2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n    CPU: erfc2_out\n",
        ),
        fix: "add the functional variant.",
        fixed: Yaml(
            "- func: erfc2(Tensor self) -> Tensor\n  dispatch:\n    CPU: erfc2\n- func: erfc2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n    CPU: erfc2_out\n",
        ),
    },
    Explanation {
        rule: Rule::NoOutVariant,
        meaning: "An operator with its own kernels gets an out variant, written or generated. \
            One is generated from a functional operator that returns tensors; an operator that \
            returns only other values (an `int`, a `bool`) cannot get one and is allowed only \
            on PyTorch's short list of such operators, or as a composite operator that \
            decomposes into others.",
        broken: Yaml("- func: nnz2(Tensor self) -> int\n  dispatch:\n    CPU: nnz2\n"),
        fix: "make it a composite operator (no `dispatch`), or return a tensor.",
        fixed: Yaml("- func: nnz2(Tensor self) -> int\n"),
    },
    Explanation {
        rule: Rule::MixedStructured,
        meaning: "In a group, either every member takes part in the structured kernel (the out \
            variant with `structured: True`, the others with `structured_delegate`) or none \
            does.",
        broken: Yaml(
            "- func: softsign.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: softsign_out\n- func: softsign(Tensor self) -> Tensor\n  dispatch:\n    CPU: softsign\n",
        ),
        fix: "let the functional entry delegate to the structured out entry.",
        fixed: Yaml(
            "- func: softsign.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: softsign_out\n- func: softsign(Tensor self) -> Tensor\n  structured_delegate: softsign.out\n",
        ),
    },
    Explanation {
        rule: Rule::WrongDelegate,
        meaning: "In a structured group, the functional and in-place members delegate to the \
            group's own out variant, not to another operator's.",
        broken: Yaml(
            "- func: acos2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: acos2_out\n- func: asin2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: asin2_out\n- func: asin2(Tensor self) -> Tensor\n  structured_delegate: asin2.out\n- func: acos2(Tensor self) -> Tensor\n  structured_delegate: asin2.out\n",
        ),
        fix: "delegate to the group's out variant.",
        fixed: Yaml(
            "- func: acos2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: acos2_out\n- func: asin2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: asin2_out\n- func: asin2(Tensor self) -> Tensor\n  structured_delegate: asin2.out\n- func: acos2(Tensor self) -> Tensor\n  structured_delegate: acos2.out\n",
        ),
    },
    Explanation {
        rule: Rule::StructuredComposite,
        meaning: "A structured out variant computes with its structured kernel; it cannot also \
            have a `CompositeImplicitAutograd` (or nested-tensor) kernel, which would \
            decompose it into other operators instead.",
        broken: Yaml(
            "- func: softsign.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: softsign_out\n    CompositeImplicitAutograd: softsign_out_composite\n- func: softsign(Tensor self) -> Tensor\n  structured_delegate: softsign.out\n",
        ),
        fix: "remove the composite kernel.",
        fixed: Yaml(
            "- func: softsign.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: softsign_out\n- func: softsign(Tensor self) -> Tensor\n  structured_delegate: softsign.out\n",
        ),
    },
    Explanation {
        rule: Rule::AutogenMismatch,
        meaning: "Some variants are generated rather than written: a group with kernels but no \
            functional or out member gets the missing ones. The file says so: the union of the \
            members' `autogen` lists names exactly the generated variants, so that the file \
            shows every operator it defines.",
        broken: Yaml(
            "- func: erfc2_(Tensor(a!) self) -> Tensor(a!)\n  dispatch:\n    CPU: erfc2_\n- func: erfc2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n    CPU: erfc2_out\n",
        ),
        fix: "list the generated functional variant in `autogen`.",
        fixed: Yaml(
            "- func: erfc2_(Tensor(a!) self) -> Tensor(a!)\n  dispatch:\n    CPU: erfc2_\n  autogen: erfc2\n- func: erfc2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n    CPU: erfc2_out\n",
        ),
    },
    Explanation {
        rule: Rule::MutableNeedsFunctionalSuffix,
        meaning: "A mutable operator (one that writes an argument other than `self` or out \
            arguments) has a functional twin that returns the written values instead; the twin \
            is named with the `_functional` suffix.",
        broken: Yaml(
            "- func: track_stats(Tensor self, Tensor(a!) running) -> Tensor\n  dispatch:\n    CPU: track_stats\n  autogen: track_stats.out\n- func: track_stats.pure(Tensor self, Tensor running) -> (Tensor, Tensor)\n  dispatch:\n    CPU: track_stats_pure\n",
        ),
        fix: "name the functional twin `track_stats_functional`.",
        fixed: Yaml(
            "- func: track_stats(Tensor self, Tensor(a!) running) -> Tensor\n  dispatch:\n    CPU: track_stats\n  autogen: track_stats.out\n- func: track_stats_functional(Tensor self, Tensor running) -> (Tensor, Tensor)\n  dispatch:\n    CPU: track_stats_functional\n",
        ),
    },
    Explanation {
        rule: Rule::MissingFunctional,
        meaning: "A group of two or more variants has a functional member, written or \
            generated.",
        broken: Yaml(
            "- func: erfc2_(Tensor(a!) self) -> Tensor(a!)\n- func: erfc2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n",
        ),
        fix: "write the functional variant.",
        fixed: Yaml(
            "- func: erfc2(Tensor self) -> Tensor\n- func: erfc2_(Tensor(a!) self) -> Tensor(a!)\n- func: erfc2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n",
        ),
    },
    Explanation {
        rule: Rule::NamespaceMismatch,
        meaning: "The variants of one group are registered in one namespace.",
        broken: Yaml(
            "- func: mylib::erfc2(Tensor self) -> Tensor\n  dispatch:\n    CPU: erfc2\n- func: other::erfc2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n    CPU: erfc2_out\n",
        ),
        fix: "use the same namespace.",
        fixed: Yaml(
            "- func: mylib::erfc2(Tensor self) -> Tensor\n  dispatch:\n    CPU: erfc2\n- func: mylib::erfc2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n    CPU: erfc2_out\n",
        ),
    },
    Explanation {
        rule: Rule::MissingInplaceViewTag,
        meaning: "An in-place operator that is also a view operator (its schema lets the \
            result alias an input without writing it, such as `Tensor(b -> *)`) changes a \
            tensor's view metadata, and carries the `inplace_view` tag so that autograd and \
            tracing treat it so.",
        broken: Yaml(
            "- func: set_.from_tensor(Tensor(a!) self, Tensor(b -> *) source) -> Tensor(a!)\n",
        ),
        fix: "add the tag.",
        fixed: Yaml(
            "- func: set_.from_tensor(Tensor(a!) self, Tensor(b -> *) source) -> Tensor(a!)\n  tags: inplace_view\n",
        ),
    },
    Explanation {
        rule: Rule::ViewCopy,
        meaning: "A view operator with its own kernels (not a composite one) has a `_copy` \
            sibling with the same signature, tagged `view_copy`, which returns a new tensor \
            instead of a view: functionalization replaces views by these copies. A view and \
            its in-place view also agree on whether they are composite.",
        broken: Yaml(
            "- func: narrow2(Tensor(a) self, int dim) -> Tensor(a)\n  dispatch:\n    CPU: narrow2\n",
        ),
        fix: "add the `_copy` operator.",
        fixed: Yaml(
            "- func: narrow2(Tensor(a) self, int dim) -> Tensor(a)\n  dispatch:\n    CPU: narrow2\n- func: narrow2_copy(Tensor self, int dim) -> Tensor\n  dispatch:\n    CompositeExplicitAutogradNonFunctional: narrow2_copy\n  tags: view_copy\n  autogen: narrow2_copy.out\n",
        ),
    },
    Explanation {
        rule: Rule::MethodWithoutSelf,
        meaning: "A `method` variant is called on a tensor (`a.cross2(&b)`), which becomes the \
            argument named `self`: the schema needs a positional `Tensor self`.",
        broken: Yaml(
            "- func: cross2(Tensor input, Tensor other) -> Tensor\n  variants: function, method\n",
        ),
        fix: "name the receiving argument `self`, or drop `method`.",
        fixed: Yaml(
            "- func: cross2(Tensor self, Tensor other) -> Tensor\n  variants: function, method\n",
        ),
    },
    Explanation {
        rule: Rule::UnsizedBoolList,
        meaning: "A list of `bool` has a fixed size (`bool[3]`): it is passed as a Rust array \
            (`[bool; 3]`), and PyTorch's C++ API has no type for a `bool` list of any length.",
        broken: Yaml("- func: masked_keep(Tensor self, bool[] mask) -> Tensor\n"),
        fix: "give the list a size.",
        fixed: Yaml("- func: masked_keep(Tensor self, bool[3] mask) -> Tensor\n"),
    },
    Explanation {
        rule: Rule::ListDefault,
        meaning: "The default of a list of any length is written as a list (`[]`, `[0, 1]`). \
            Only a fixed-size list may repeat one value (`int[2] stride=1` means `[1, 1]`), \
            into at most 64 items: `int[4294967295] x=0` would make every call that leaves \
            `x` out build billions of elements. An argument listed in `cpp_no_default_args` \
            is exempt: the Rust API does not use its default.",
        broken: Yaml("- func: amax2(Tensor self, int[] dim=0) -> Tensor\n"),
        fix: "write the default in brackets.",
        fixed: Yaml("- func: amax2(Tensor self, int[] dim=[0]) -> Tensor\n"),
    },
    Explanation {
        rule: Rule::ReturnType,
        meaning: "Returns have owned Rust types: a fixed-size list cannot be returned (return \
            a list of any length), and an optional return is `Tensor?` or an optional value \
            type (`int?`, `float?`, `bool?`, ...), not `Scalar?` or an optional list.",
        broken: Yaml("- func: shape2(Tensor self) -> int[2]\n"),
        fix: "return a list of any length.",
        fixed: Yaml("- func: shape2(Tensor self) -> int[]\n"),
    },
    Explanation {
        rule: Rule::MutableListReturn,
        meaning: "A list of written tensors (`Tensor(a!)[]`) is never returned: the caller \
            already holds it, and the operator returns nothing.",
        broken: Yaml("- func: _scale_all(Tensor(a!)[] self, Scalar s) -> Tensor(a!)[]\n"),
        fix: "return `()`.",
        fixed: Yaml("- func: _scale_all(Tensor(a!)[] self, Scalar s) -> ()\n"),
    },
    Explanation {
        rule: Rule::UnmappableType,
        meaning: "Custom classes (`__torch__.torch.classes.ns.Name`) and `GraphModule` are \
            types the schema parser knows but the generated API cannot pass: they have no \
            Rust (or C++) type.",
        broken: Yaml(
            "- func: linear_packed(Tensor self, __torch__.torch.classes.mylib.Packed packed) -> Tensor\n",
        ),
        fix: "pass the packed data as tensors or value types.",
        fixed: Yaml("- func: linear_packed(Tensor self, Tensor packed) -> Tensor\n"),
    },
    Explanation {
        rule: Rule::TooDeep,
        meaning: "Types nest at most 32 levels of `?` and `[]`, and a list default at most 32 \
            levels of brackets. Real schemas nest two (`Tensor?[]`); the limit keeps the \
            parser, the printer and the code generator within a bounded stack whatever the \
            input.",
        broken: Schema(
            "deep(Tensor self, int[][][][][][][][][][][][][][][][][][][][][][][][][][][][][][][][][] dims) -> Tensor",
        ),
        fix: "write the argument with a type of at most a few suffixes.",
        fixed: Schema("deep(Tensor self, int[] dims) -> Tensor"),
    },
    Explanation {
        rule: Rule::BadName,
        meaning: "The namespace, the operator name, the overload name and every argument and \
            return name are ASCII identifiers (letters, digits and `_`, not starting with a \
            digit), as PyTorch's schema parser reads them; an overload is not `default` or \
            `__name__`, which name the operator itself in PyTorch (`torch.ops.aten.add.default`). \
            torchgen splits the text without checking names, so it accepts `ädd`, `x-y` or an \
            overload `a.b`, which the dispatcher then could not find by name and the generated \
            Rust could not spell: opgen rejects them.",
        broken: Schema("add.default(Tensor self, Tensor other) -> Tensor"),
        fix: "rename it with letters, digits and `_`; choose another overload name.",
        fixed: Schema("add.Tensor(Tensor self, Tensor other) -> Tensor"),
    },
    Explanation {
        rule: Rule::DuplicateName,
        meaning: "No two arguments share a name, and no two returns: arguments are passed by \
            name (in Python, in the arguments struct of the Rust API, as parameters of the \
            generated functions). torchgen does not detect duplicates; opgen rejects them.",
        broken: Schema("clamp2(Tensor self, Scalar min, Scalar min) -> Tensor"),
        fix: "rename one of them.",
        fixed: Schema("clamp2(Tensor self, Scalar min, Scalar max) -> Tensor"),
    },
];
