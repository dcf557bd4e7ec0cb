//! R1–R35: one schema string.

use super::Example::Schema;
use super::Explanation;
use crate::schema::Rule;

/// The entries of R1–R35, in rule order.
pub(super) const EXPLANATIONS: [Explanation; 35] = [
    Explanation {
        rule: Rule::Shape,
        meaning: "A schema is an operator name, the argument list in parentheses, the arrow \
            ` -> ` with one space on each side, and the returns. Anything else (no arrow, an \
            arrow without its spaces, a missing name, text after the returns) is not a schema.",
        broken: Schema("clamp_max(Tensor self, Scalar max)->Tensor"),
        fix: "write the arrow as ` -> `.",
        fixed: Schema("clamp_max(Tensor self, Scalar max) -> Tensor"),
    },
    Explanation {
        rule: Rule::NotCanonical,
        meaning: "Schemas are compared, hashed and registered by their text, so each one is \
            written in exactly one way: the canonical form the printer produces. A lone return \
            in parentheses, several returns without them, an empty argument slot or a `*` with \
            nothing after it all have a canonical spelling that differs.\n\n\
            `opgen fmt FILE.yaml --write` rewrites such schemas to their canonical form.",
        broken: Schema("sigmoid(Tensor self) -> (Tensor)"),
        fix: "drop the parentheses around a single return.",
        fixed: Schema("sigmoid(Tensor self) -> Tensor"),
    },
    Explanation {
        rule: Rule::EmptyName,
        meaning: "The operator's base name, before the `.` of the overload and after any \
            namespace, cannot be empty.",
        broken: Schema(".Scalar(Tensor self, Scalar other) -> Tensor"),
        fix: "write the operator's name before the overload.",
        fixed: Schema("mul.Scalar(Tensor self, Scalar other) -> Tensor"),
    },
    Explanation {
        rule: Rule::OutSuffix,
        meaning: "Out variants are told apart by their overload name (`mul.out`), so a base \
            name ending in `_out` is reserved and rejected.",
        broken: Schema("mul_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"),
        fix: "move `out` into the overload name.",
        fixed: Schema("mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"),
    },
    Explanation {
        rule: Rule::BadDunder,
        meaning: "A dunder name whose word starts with `i` is read as an augmented assignment \
            (`__iadd__` is in-place `__add__`), so the rest must be one of the words that have \
            one: `add`, `sub`, `mul`, `div`, `mod`, `pow`, `lshift`, `rshift`, `and`, `xor`, \
            `or`. Other dunders starting with `i` are rejected.",
        broken: Schema("__index__(Tensor self) -> int"),
        fix: "use a plain name for operators that are not augmented assignments.",
        fixed: Schema("index_value(Tensor self) -> int"),
    },
    Explanation {
        rule: Rule::FunctionalSuffix,
        meaning: "The `_functional` suffix names the functional twin of a mutable operator; it \
            cannot be combined with an in-place name (a trailing `_`) or a dunder name.",
        broken: Schema("update_functional_(Tensor(a!) self) -> Tensor(a!)"),
        fix: "drop the trailing `_`: a `_functional` operator writes nothing.",
        fixed: Schema("update_functional(Tensor self) -> Tensor"),
    },
    Explanation {
        rule: Rule::EmptyOverload,
        meaning: "A `.` after the base name starts the overload name, which cannot be empty.",
        broken: Schema("pow.(Tensor self, Scalar exponent) -> Tensor"),
        fix: "name the overload, or remove the `.`.",
        fixed: Schema("pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor"),
    },
    Explanation {
        rule: Rule::EmptyNamespace,
        meaning: "A `::` in the name separates a namespace from the operator name; the \
            namespace before it cannot be empty.",
        broken: Schema("::gelu(Tensor self) -> Tensor"),
        fix: "write the namespace, or remove the `::`.",
        fixed: Schema("myops::gelu(Tensor self) -> Tensor"),
    },
    Explanation {
        rule: Rule::ArgumentShape,
        meaning: "Each argument is a type, one space, and a name, optionally followed by `=` \
            and a default. An argument without a name (or with the name after the default) \
            does not parse.",
        broken: Schema("softmax(Tensor self, int) -> Tensor"),
        fix: "give every argument a name.",
        fixed: Schema("softmax(Tensor self, int dim) -> Tensor"),
    },
    Explanation {
        rule: Rule::MultipleEquals,
        meaning: "An argument holds at most one `=`, the one before its default; a second one \
            (even inside a string default) makes the argument unreadable.",
        broken: Schema("pad(Tensor self, int[] pad, str mode=\"a=b\") -> Tensor"),
        fix: "use a default without `=`.",
        fixed: Schema("pad(Tensor self, int[] pad, str mode=\"constant\") -> Tensor"),
    },
    Explanation {
        rule: Rule::EmptyDefault,
        meaning: "An `=` after an argument's name must be followed by its default value.",
        broken: Schema("cumsum(Tensor self, int dim=) -> Tensor"),
        fix: "write the default, or remove the `=`.",
        fixed: Schema("cumsum(Tensor self, int dim=0) -> Tensor"),
    },
    Explanation {
        rule: Rule::DuplicateStar,
        meaning: "The `*` marker makes every argument after it keyword-only; it appears at \
            most once.",
        broken: Schema("norm(Tensor self, *, Scalar p, *, int dim) -> Tensor"),
        fix: "keep one `*`, before the first keyword-only argument.",
        fixed: Schema("norm(Tensor self, *, Scalar p, int dim) -> Tensor"),
    },
    Explanation {
        rule: Rule::NonOutAfterOut,
        meaning: "Out arguments (keyword-only arguments the operator writes, `Tensor(a!) out`) \
            close the argument list: once one appears, every later argument is an out \
            argument too.",
        broken: Schema("neg.out(Tensor self, *, Tensor(a!) out, int flag=0) -> Tensor(a!)"),
        fix: "move the other keyword-only arguments before the out arguments.",
        fixed: Schema("neg.out(Tensor self, *, int flag=0, Tensor(a!) out) -> Tensor(a!)"),
    },
    Explanation {
        rule: Rule::WrittenPreSelf,
        meaning: "Arguments before `self` cannot be written (`Tensor(a!)`); PyTorch's code \
            generator does not support written arguments in that position.",
        broken: Schema("scatter_into(Tensor(a!) dest, Tensor self) -> ()"),
        fix: "put the written argument after `self`.",
        fixed: Schema("scatter_into(Tensor self, Tensor(a!) dest) -> ()"),
    },
    Explanation {
        rule: Rule::DuplicateTensorOptions,
        meaning: "The four keyword-only arguments `ScalarType? dtype, Layout? layout, Device? \
            device, bool? pin_memory`, in that order, form the TensorOptions group that the \
            Rust API gathers into one `options` argument. A schema has at most one such \
            group.",
        broken: Schema(
            "twice(*, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        ),
        fix: "keep one group.",
        fixed: Schema(
            "twice(*, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        ),
    },
    Explanation {
        rule: Rule::UnknownType,
        meaning: "Types are the schema language's base types (`Tensor`, `int`, `SymInt`, \
            `float`, `bool`, `str`, `Scalar`, `ScalarType`, `Layout`, `Device`, `MemoryFormat`, \
            `Generator`, ...), with `?` for optional, `[]` or `[N]` for lists, and custom \
            classes under `__torch__.torch.classes.`. Names are case-sensitive and contain no \
            spaces, so a missing space after a comma also ends up here.",
        broken: Schema("lerp(Tensor self, Tensr end, Scalar weight) -> Tensor"),
        fix: "spell the type as the schema language does.",
        fixed: Schema("lerp(Tensor self, Tensor end, Scalar weight) -> Tensor"),
    },
    Explanation {
        rule: Rule::BadListSize,
        meaning: "A fixed list size (`int[2]`) is a positive number written without leading \
            zeros.",
        broken: Schema("max_pool1d(Tensor self, int[0] kernel_size) -> Tensor"),
        fix: "write a positive size, or `[]` for a list of any length.",
        fixed: Schema("max_pool1d(Tensor self, int[1] kernel_size) -> Tensor"),
    },
    Explanation {
        rule: Rule::AnnotationPosition,
        meaning: "Alias annotations such as `(a)` or `(a!)` belong to tensors only, and only in \
            the forms `Tensor(a)`, `Tensor(a)?` and `Tensor(a)[]`: on another type, or after \
            `?` or a fixed size, they are rejected.",
        broken: Schema("fill_(Tensor(a!) self, int(b) value) -> Tensor(a!)"),
        fix: "annotate tensors only.",
        fixed: Schema("fill_(Tensor(a!) self, int value) -> Tensor(a!)"),
    },
    Explanation {
        rule: Rule::AnnotationSyntax,
        meaning: "An annotation is one lowercase letter naming an alias set, or two joined by \
            `|`, optionally followed by `!` (written) and by ` -> ` and the sets it may alias \
            afterwards (`*` for any).",
        broken: Schema("relu_(Tensor(A!) self) -> Tensor(A!)"),
        fix: "name alias sets with lowercase letters.",
        fixed: Schema("relu_(Tensor(a!) self) -> Tensor(a!)"),
    },
    Explanation {
        rule: Rule::WriteAliasSetSize,
        meaning: "A written tensor (`!`) belongs to exactly one alias set; `a|b!` is \
            ambiguous about which one is written.",
        broken: Schema("swap_(Tensor(a|b!) self) -> Tensor(a|b!)"),
        fix: "write one alias set.",
        fixed: Schema("swap_(Tensor(a!) self) -> Tensor(a!)"),
    },
    Explanation {
        rule: Rule::AliasSetsBothLarge,
        meaning: "In an annotation with an arrow, the sets before and after ` -> ` cannot both \
            have more than one member.",
        broken: Schema("mix(Tensor(a|b -> c|d) self) -> Tensor"),
        fix: "keep at most one member on one side.",
        fixed: Schema("mix(Tensor(a -> c|d) self) -> Tensor"),
    },
    Explanation {
        rule: Rule::TooManyAliasLetters,
        meaning: "At most two letters can be joined before the arrow: a third one is lost when \
            the annotation is read, so the schema would not print back as written.",
        broken: Schema("mix(Tensor(a|b|c) self) -> Tensor(a|b|c)"),
        fix: "use at most two letters.",
        fixed: Schema("mix(Tensor(a|b) self) -> Tensor(a|b)"),
    },
    Explanation {
        rule: Rule::EmptyReturns,
        meaning: "The text after ` -> ` cannot be empty; an operator that returns nothing says \
            `()`.",
        broken: Schema("record_stream(Tensor(a!) self, Stream s) -> "),
        fix: "write `()` for no returns.",
        fixed: Schema("record_stream(Tensor(a!) self, Stream s) -> ()"),
    },
    Explanation {
        rule: Rule::OutReturnMismatch,
        meaning: "An out variant returns its out arguments: the first return has the first out \
            argument's annotation, the second the second's, and so on.",
        broken: Schema("exp.out(Tensor self, *, Tensor(a!) out) -> Tensor"),
        fix: "annotate the return like the out argument it returns.",
        fixed: Schema("exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"),
    },
    Explanation {
        rule: Rule::ReturnedMutablePositional,
        meaning: "A written positional argument other than `self` (a buffer the operator \
            updates) is not returned: the caller already holds it. A return is that argument \
            when it shares its alias set, so reusing the letter of an out argument for such a \
            buffer returns it too.",
        broken: Schema(
            "accumulate.out(Tensor self, Tensor(a!) total, *, Tensor(a!) out) -> Tensor(a!)",
        ),
        fix: "give the buffer its own alias set.",
        fixed: Schema(
            "accumulate.out(Tensor self, Tensor(b!) total, *, Tensor(a!) out) -> Tensor(a!)",
        ),
    },
    Explanation {
        rule: Rule::MixedReturns,
        meaning: "Either every return is a written alias (`Tensor(a!)`, the in-place and out \
            forms) or none is; the two cannot be mixed.",
        broken: Schema("cummax_update(Tensor(a!) self, int dim) -> (Tensor(a!), Tensor)"),
        fix: "return either the written `self` or new tensors only.",
        fixed: Schema("cummax_update(Tensor(a!) self, int dim) -> Tensor"),
    },
    Explanation {
        rule: Rule::UnaliasedMutableReturn,
        meaning: "A written return (`Tensor(a!)`) hands back an argument the operator wrote: it \
            must share its alias set with an out argument or with `self`.",
        broken: Schema("fill_value(Tensor self, Scalar value) -> Tensor(a!)"),
        fix: "annotate the argument that is written and returned.",
        fixed: Schema("fill_value(Tensor(a!) self, Scalar value) -> Tensor(a!)"),
    },
    Explanation {
        rule: Rule::TensorListOutReturns,
        meaning: "When an out argument is not a plain `Tensor` (a list `Tensor(a!)[]` or an \
            optional `Tensor(a!)?`), the schema returns nothing.",
        broken: Schema("split_into.out(Tensor self, *, Tensor(a!)[] out) -> Tensor(a!)[]"),
        fix: "return `()`.",
        fixed: Schema("split_into.out(Tensor self, *, Tensor(a!)[] out) -> ()"),
    },
    Explanation {
        rule: Rule::OutReturnCount,
        meaning: "With plain `Tensor` out arguments, the schema returns exactly one value per \
            out argument (arguments named `_scratch_...` excepted), in order.",
        broken: Schema("aminmax.out(Tensor self, *, Tensor(a!) min, Tensor(b!) max) -> Tensor(a!)"),
        fix: "return every out argument.",
        fixed: Schema(
            "aminmax.out(Tensor self, *, Tensor(a!) min, Tensor(b!) max) -> (Tensor(a!) min, Tensor(b!) max)",
        ),
    },
    Explanation {
        rule: Rule::InplaceWithoutMutableSelf,
        meaning: "A name with a trailing `_` (or an augmented-assignment dunder such as \
            `__iadd__`) says the operator works in place, so it has a `self` argument marked \
            written.",
        broken: Schema("floor_(Tensor self) -> Tensor"),
        fix: "mark `self` written and return it.",
        fixed: Schema("floor_(Tensor(a!) self) -> Tensor(a!)"),
    },
    Explanation {
        rule: Rule::InplaceMustReturnSelf,
        meaning: "An in-place operator on a `Tensor` returns exactly one value: `self`, with \
            `self`'s annotation.",
        broken: Schema("ceil_(Tensor(a!) self) -> ()"),
        fix: "return `self`.",
        fixed: Schema("ceil_(Tensor(a!) self) -> Tensor(a!)"),
    },
    Explanation {
        rule: Rule::InplaceNonTensorSelf,
        meaning: "An in-place operator whose `self` is not a plain tensor (a written list \
            `Tensor(a!)[]` or optional) returns nothing.",
        broken: Schema("_foreach_ceil_(Tensor(a!)[] self) -> Tensor(a!)[]"),
        fix: "return `()`.",
        fixed: Schema("_foreach_ceil_(Tensor(a!)[] self) -> ()"),
    },
    Explanation {
        rule: Rule::TensorOptionsNotFunctional,
        meaning: "The TensorOptions group (`dtype`, `layout`, `device`, `pin_memory`) says where \
            and how a new tensor is made, so only functional schemas, which return new \
            tensors, have it; an out or in-place variant writes into tensors that already \
            exist.",
        broken: Schema(
            "fill.out(Scalar value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, Tensor(a!) out) -> Tensor(a!)",
        ),
        fix: "drop the group from the out variant; the out tensor has its dtype and device.",
        fixed: Schema("fill.out(Scalar value, *, Tensor(a!) out) -> Tensor(a!)"),
    },
    Explanation {
        rule: Rule::FunctionalOverload,
        meaning: "An overload name containing `functional` is reserved for functional schemas \
            (no written arguments), the functional twins of mutable operators.",
        broken: Schema("clip_.functional(Tensor(a!) self) -> Tensor(a!)"),
        fix: "pick another overload name for a schema that writes.",
        fixed: Schema("clip_.inplace(Tensor(a!) self) -> Tensor(a!)"),
    },
    Explanation {
        rule: Rule::InplaceAndOut,
        meaning: "A schema is in-place (its name ends in `_` and it writes `self`) or an out \
            variant (it writes keyword-only out arguments), never both.",
        broken: Schema("round_.functional_out(Tensor(a!) self, *, Tensor(a!) out) -> Tensor(a!)"),
        fix: "make it either in-place or an out variant.",
        fixed: Schema("round.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"),
    },
];
