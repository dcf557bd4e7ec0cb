//! The parsed form of an operator schema.
//!
//! Every type here prints back with [`std::fmt::Display`] exactly as torchgen prints it, so
//! `parse_schema(s)?.to_string() == s` for every schema torchgen accepts (SCHEMA.md §1.10).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use smallvec::SmallVec;
use smol_str::SmolStr;

/// A whole schema: `add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Schema {
    /// `add.Tensor`, with an optional `ns::` prefix.
    pub name: OperatorName,
    /// All arguments in schema order: positional first, then keyword-only (those with
    /// [`Argument::kwarg_only`] set), out arguments last.
    pub arguments: Vec<Argument>,
    /// The returns; empty for `()`.
    pub returns: Vec<Return>,
}

/// An operator name with its overload: `aten::add_.Tensor`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OperatorName {
    /// The namespace written before `::` in the schema itself, if any.
    pub namespace: Option<SmolStr>,
    /// The operator name proper (`add_`, `__iand__`).
    pub name: BaseOperatorName,
    /// The overload name (`Tensor`); `None` when the schema has none.
    pub overload: Option<SmolStr>,
}

/// The operator name without overload, decomposed as torchgen does (SCHEMA.md §1.4).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BaseOperatorName {
    /// The base: `add` for `add`, `add_` and `__iadd__`; `normal` for `normal_functional`.
    pub base: SmolStr,
    /// A trailing `_`, or a `__iX__` dunder.
    pub inplace: bool,
    /// Written `__X__`.
    pub dunder: bool,
    /// Written with the `_functional` suffix.
    pub functional_overload: bool,
}

/// One argument: `Tensor(a!) out`, `Scalar alpha=1`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Argument {
    /// The argument's name (`self`, `other`).
    pub name: SmolStr,
    /// Its type, without the alias annotation.
    pub ty: ArgType,
    /// The alias annotation written after `Tensor`, if any.
    pub annotation: Option<AliasAnnotation>,
    /// The default value, if any.
    pub default: Option<DefaultValue>,
    /// Written after the `*` marker.
    pub kwarg_only: bool,
}

/// One return: `Tensor(a!)`, `Tensor values`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Return {
    /// The return's name, if it has one.
    pub name: Option<SmolStr>,
    /// Its type, without the alias annotation.
    pub ty: ArgType,
    /// The alias annotation written after `Tensor`, if any.
    pub annotation: Option<AliasAnnotation>,
}

/// A schema type (SCHEMA.md §1.5).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ArgType {
    /// One of the 19 base types.
    Base(BaseType),
    /// `T?`.
    Optional(TypeBox),
    /// `T[]` (size `None`) or `T[N]`.
    List {
        /// The element type.
        elem: TypeBox,
        /// The fixed size, if written.
        size: Option<u32>,
    },
    /// `__torch__.torch.classes.NS.Name`; holds the part after `__torch__.torch.classes.`.
    CustomClass(SmolStr),
}

/// The inner type of `T?` and `T[]`: dereferences to an [`ArgType`], as the `Box` it stands
/// for would, and compares, hashes, prints and debug-prints as that type.
///
/// Every `?` and `[]` of every parsed type needs one, so the common inner types (a base type
/// `B`, and `B?`, `B[]`, `B[N]` for `N` up to [`TypeBox::SHARED_SIZES`]) point into a static
/// table shared by all schemas instead of a heap box of their own; the rest (custom classes,
/// deeper nesting, larger sizes) are boxed. [`TypeBox::new`] picks the form.
#[derive(Clone)]
pub struct TypeBox(TypeBoxRepr);

#[derive(Clone)]
enum TypeBoxRepr {
    Shared(&'static ArgType),
    Boxed(Box<ArgType>),
}

/// The alias sets on one side of an annotation, in the order written: up to four letters are
/// kept inline (the vector is no larger for four than for two).
pub type AliasSet = SmallVec<[char; 4]>;

/// The 19 base types torchgen knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum BaseType {
    Tensor,
    Scalar,
    Int,
    SymInt,
    Float,
    Bool,
    Str,
    ScalarType,
    Layout,
    Device,
    DeviceIndex,
    MemoryFormat,
    Generator,
    Storage,
    Stream,
    QScheme,
    SymBool,
    DimVector,
    GraphModule,
}

/// An alias annotation: `a`, `a!`, `a -> *`, `a|b`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AliasAnnotation {
    /// The alias sets before the arrow (one or two lowercase letters).
    pub before: AliasSet,
    /// Written with `!`: the operator writes to this tensor.
    pub is_write: bool,
    /// The alias sets after ` -> `; `'*'` is the wildcard. Empty when there is no arrow.
    pub after: AliasSet,
}

/// A default value: the text as written (printed back verbatim) and what it means.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DefaultValue {
    /// The text after `=`, exactly as written.
    pub text: SmolStr,
    /// The text read as a literal.
    pub value: Literal,
}

/// A default value read as a literal (SCHEMA.md §1.8).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Literal {
    /// `None`.
    None,
    /// `True` or `False`.
    Bool(bool),
    /// A decimal integer such as `-100`.
    Int(i64),
    /// A float such as `1e-05` or `0.5`.
    Float(Float),
    /// A quoted string, with its escapes resolved.
    Str(SmolStr),
    /// `[]`, `[0,1]`.
    List(Vec<Literal>),
    /// An enum-like identifier: `Mean`, `contiguous_format`, `long`.
    Ident(SmolStr),
    /// Text torchgen accepts but that is none of the above (kept for printing only).
    Other(SmolStr),
}

/// An `f64` that compares and hashes by its bits, so that literals can be `Eq`.
#[derive(Debug, Clone, Copy)]
pub struct Float(pub f64);

impl PartialEq for Float {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}
impl Eq for Float {}
impl Hash for Float {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

impl BaseType {
    /// All base types, in SCHEMA.md's order.
    pub const ALL: [BaseType; 19] = [
        BaseType::Tensor,
        BaseType::Scalar,
        BaseType::Int,
        BaseType::SymInt,
        BaseType::Float,
        BaseType::Bool,
        BaseType::Str,
        BaseType::ScalarType,
        BaseType::Layout,
        BaseType::Device,
        BaseType::DeviceIndex,
        BaseType::MemoryFormat,
        BaseType::Generator,
        BaseType::Storage,
        BaseType::Stream,
        BaseType::QScheme,
        BaseType::SymBool,
        BaseType::DimVector,
        BaseType::GraphModule,
    ];

    /// The name as written in schemas.
    pub fn as_str(self) -> &'static str {
        match self {
            BaseType::Tensor => "Tensor",
            BaseType::Scalar => "Scalar",
            BaseType::Int => "int",
            BaseType::SymInt => "SymInt",
            BaseType::Float => "float",
            BaseType::Bool => "bool",
            BaseType::Str => "str",
            BaseType::ScalarType => "ScalarType",
            BaseType::Layout => "Layout",
            BaseType::Device => "Device",
            BaseType::DeviceIndex => "DeviceIndex",
            BaseType::MemoryFormat => "MemoryFormat",
            BaseType::Generator => "Generator",
            BaseType::Storage => "Storage",
            BaseType::Stream => "Stream",
            BaseType::QScheme => "QScheme",
            BaseType::SymBool => "SymBool",
            BaseType::DimVector => "DimVector",
            BaseType::GraphModule => "GraphModule",
        }
    }

    /// The base type written `name`, if any (case-sensitive).
    pub fn from_name(name: &str) -> Option<BaseType> {
        BaseType::ALL.into_iter().find(|b| b.as_str() == name)
    }
}

impl ArgType {
    /// `T?`.
    pub fn optional(inner: ArgType) -> ArgType {
        ArgType::Optional(TypeBox::new(inner))
    }

    /// `T[]` (size `None`) or `T[N]`.
    pub fn list(elem: ArgType, size: Option<u32>) -> ArgType {
        ArgType::List {
            elem: TypeBox::new(elem),
            size,
        }
    }

    /// The innermost base type, if the type is not a custom class.
    pub fn base(&self) -> Option<BaseType> {
        match self {
            ArgType::Base(b) => Some(*b),
            ArgType::Optional(t) | ArgType::List { elem: t, .. } => t.base(),
            ArgType::CustomClass(_) => None,
        }
    }

    /// Exactly `B?` for the base type `b`.
    pub fn is_optional_of(&self, b: BaseType) -> bool {
        matches!(self, ArgType::Optional(t) if **t == ArgType::Base(b))
    }

    /// `T?`.
    pub fn is_optional(&self) -> bool {
        matches!(self, ArgType::Optional(_))
    }

    /// `T[]` or `T[N]`.
    pub fn is_list(&self) -> bool {
        matches!(self, ArgType::List { .. })
    }

    /// The type without one level of `?`.
    pub fn strip_optional(&self) -> &ArgType {
        match self {
            ArgType::Optional(t) => t,
            t => t,
        }
    }

    /// Whether a value of this type may hold tensors (`Tensor`, `Tensor?`, `Tensor[]`,
    /// `Tensor?[]`, ...): such arguments take part in computing a call's dispatch key set.
    pub fn is_tensor_like(&self) -> bool {
        self.base() == Some(BaseType::Tensor)
    }

    /// Exactly `Tensor`.
    pub fn is_plain_tensor(&self) -> bool {
        *self == ArgType::Base(BaseType::Tensor)
    }

    /// Whether the type mentions `SymInt` anywhere (torchgen's `is_symint_like`; `SymBool`
    /// does not count).
    pub fn is_symint_like(&self) -> bool {
        self.base() == Some(BaseType::SymInt)
    }
}

/// Expands to `[f(0), f(1), ..., f(18)]`: one entry per base type, in [`BaseType::ALL`] order.
macro_rules! per_base {
    ($f:ident) => {
        [
            $f(0),
            $f(1),
            $f(2),
            $f(3),
            $f(4),
            $f(5),
            $f(6),
            $f(7),
            $f(8),
            $f(9),
            $f(10),
            $f(11),
            $f(12),
            $f(13),
            $f(14),
            $f(15),
            $f(16),
            $f(17),
            $f(18),
        ]
    };
}

/// `B` for every base type.
static SHARED_BASE: [ArgType; 19] = per_base!(shared_base);
/// `B?` for every base type.
static SHARED_OPTIONAL: [ArgType; 19] = per_base!(shared_optional);
/// `B[]` for every base type.
static SHARED_LIST: [ArgType; 19] = per_base!(shared_list);
/// `B[N]` for every base type and `N` in `1..=SHARED_SIZES`.
static SHARED_SIZED: [[ArgType; TypeBox::SHARED_SIZES as usize]; 19] = per_base!(shared_sized);

const fn shared_base(b: usize) -> ArgType {
    ArgType::Base(BaseType::ALL[b])
}

const fn shared_optional(b: usize) -> ArgType {
    ArgType::Optional(TypeBox(TypeBoxRepr::Shared(&SHARED_BASE[b])))
}

const fn shared_list(b: usize) -> ArgType {
    ArgType::List {
        elem: TypeBox(TypeBoxRepr::Shared(&SHARED_BASE[b])),
        size: None,
    }
}

const fn shared_sized(b: usize) -> [ArgType; TypeBox::SHARED_SIZES as usize] {
    const fn sized(b: usize, n: u32) -> ArgType {
        ArgType::List {
            elem: TypeBox(TypeBoxRepr::Shared(&SHARED_BASE[b])),
            size: Some(n),
        }
    }
    [
        sized(b, 1),
        sized(b, 2),
        sized(b, 3),
        sized(b, 4),
        sized(b, 5),
        sized(b, 6),
        sized(b, 7),
        sized(b, 8),
    ]
}

impl TypeBox {
    /// The largest `N` for which `B[N]` is shared rather than boxed.
    pub const SHARED_SIZES: u32 = 8;

    /// Holds `ty`: shared if it is a base type, `B?`, `B[]` or a small `B[N]`, boxed otherwise.
    pub fn new(ty: ArgType) -> TypeBox {
        match TypeBox::shared(&ty) {
            Some(shared) => TypeBox(TypeBoxRepr::Shared(shared)),
            None => TypeBox(TypeBoxRepr::Boxed(Box::new(ty))),
        }
    }

    /// The base type `b`.
    pub fn base(b: BaseType) -> TypeBox {
        TypeBox(TypeBoxRepr::Shared(&SHARED_BASE[b as usize]))
    }

    /// The shared copy of `ty`, if the table has one.
    fn shared(ty: &ArgType) -> Option<&'static ArgType> {
        match ty {
            ArgType::Base(b) => Some(&SHARED_BASE[*b as usize]),
            ArgType::Optional(t) => match **t {
                ArgType::Base(b) => Some(&SHARED_OPTIONAL[b as usize]),
                _ => None,
            },
            ArgType::List { elem, size } => match (&**elem, *size) {
                (ArgType::Base(b), None) => Some(&SHARED_LIST[*b as usize]),
                (ArgType::Base(b), Some(n @ 1..=TypeBox::SHARED_SIZES)) => {
                    Some(&SHARED_SIZED[*b as usize][n as usize - 1])
                }
                _ => None,
            },
            ArgType::CustomClass(_) => None,
        }
    }
}

impl Deref for TypeBox {
    type Target = ArgType;

    #[inline]
    fn deref(&self) -> &ArgType {
        match &self.0 {
            TypeBoxRepr::Shared(t) => t,
            TypeBoxRepr::Boxed(t) => t,
        }
    }
}

impl AsRef<ArgType> for TypeBox {
    fn as_ref(&self) -> &ArgType {
        self
    }
}

impl From<ArgType> for TypeBox {
    fn from(ty: ArgType) -> TypeBox {
        TypeBox::new(ty)
    }
}

impl PartialEq for TypeBox {
    fn eq(&self, other: &TypeBox) -> bool {
        **self == **other
    }
}

impl Eq for TypeBox {}

impl Hash for TypeBox {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl fmt::Debug for TypeBox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for TypeBox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl AliasAnnotation {
    /// Whether the annotation's after-set contains the wildcard `*`.
    pub fn has_wildcard_after(&self) -> bool {
        self.after.contains(&'*')
    }
}

impl Argument {
    /// Whether the annotation has `!`.
    pub fn is_write(&self) -> bool {
        self.annotation.as_ref().is_some_and(|a| a.is_write)
    }
}

impl Return {
    /// Whether the annotation has `!`.
    pub fn is_write(&self) -> bool {
        self.annotation.as_ref().is_some_and(|a| a.is_write)
    }
}

impl OperatorName {
    /// The name as written before the overload: `add_`, `__iand__`, `normal_functional`.
    pub fn operator_name(&self) -> String {
        self.name.to_string()
    }

    /// `name.overload`, without namespace: `add_.Tensor`, `abs`.
    pub fn full_name(&self) -> String {
        match &self.overload {
            Some(o) => format!("{}.{}", self.name, o),
            None => self.name.to_string(),
        }
    }

    /// torchgen's unambiguous name: operator name, plus `_` + overload if any (`add__Tensor`).
    pub fn unambiguous_name(&self) -> String {
        match &self.overload {
            Some(o) => format!("{}_{}", self.name, o),
            None => self.name.to_string(),
        }
    }
}

impl fmt::Display for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        let mut first = true;
        let mut star_written = false;
        for pass in [false, true] {
            for arg in self.arguments.iter().filter(|a| a.kwarg_only == pass) {
                if !first {
                    f.write_str(", ")?;
                }
                first = false;
                if arg.kwarg_only && !star_written {
                    f.write_str("*, ")?;
                    star_written = true;
                }
                write!(f, "{arg}")?;
            }
        }
        f.write_str(") -> ")?;
        match self.returns.as_slice() {
            [] => f.write_str("()"),
            [one] => write!(f, "{one}"),
            many => {
                f.write_str("(")?;
                for (i, r) in many.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{r}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for OperatorName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(ns) = &self.namespace {
            write!(f, "{ns}::")?;
        }
        write!(f, "{}", self.name)?;
        if let Some(o) = &self.overload {
            write!(f, ".{o}")?;
        }
        Ok(())
    }
}

impl fmt::Display for BaseOperatorName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.dunder {
            let i = if self.inplace { "i" } else { "" };
            write!(f, "__{i}{}__", self.base)
        } else if self.inplace {
            write!(f, "{}_", self.base)
        } else if self.functional_overload {
            write!(f, "{}_functional", self.base)
        } else {
            f.write_str(&self.base)
        }
    }
}

/// Writes a type with an optional annotation placed after the word `Tensor`.
fn write_annotated(
    f: &mut fmt::Formatter<'_>,
    ty: &ArgType,
    annotation: Option<&AliasAnnotation>,
) -> fmt::Result {
    let Some(a) = annotation else {
        return write!(f, "{ty}");
    };
    // Only `Tensor(x)`, `Tensor(x)?` and `Tensor(x)[]` exist (R18); print the suffix of the type.
    let suffix = match ty {
        ArgType::Optional(_) => "?",
        ArgType::List { size: None, .. } => "[]",
        _ => "",
    };
    write!(f, "Tensor({a}){suffix}")
}

impl fmt::Display for Argument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_annotated(f, &self.ty, self.annotation.as_ref())?;
        write!(f, " {}", self.name)?;
        if let Some(d) = &self.default {
            write!(f, "={}", d.text)?;
        }
        Ok(())
    }
}

impl fmt::Display for Return {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_annotated(f, &self.ty, self.annotation.as_ref())?;
        if let Some(n) = &self.name {
            write!(f, " {n}")?;
        }
        Ok(())
    }
}

impl fmt::Display for ArgType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgType::Base(b) => f.write_str(b.as_str()),
            ArgType::Optional(t) => write!(f, "{t}?"),
            ArgType::List { elem, size: None } => write!(f, "{elem}[]"),
            ArgType::List {
                elem,
                size: Some(n),
            } => write!(f, "{elem}[{n}]"),
            ArgType::CustomClass(c) => write!(f, "__torch__.torch.classes.{c}"),
        }
    }
}

impl fmt::Display for BaseType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for AliasAnnotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_letters(f, &self.before)?;
        if self.is_write {
            f.write_str("!")?;
        }
        if !self.after.is_empty() {
            f.write_str(" -> ")?;
            write_letters(f, &self.after)?;
        }
        Ok(())
    }
}

fn write_letters(f: &mut fmt::Formatter<'_>, letters: &[char]) -> fmt::Result {
    for (i, c) in letters.iter().enumerate() {
        if i > 0 {
            f.write_str("|")?;
        }
        write!(f, "{c}")?;
    }
    Ok(())
}

impl fmt::Display for DefaultValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use std::hash::{BuildHasher, RandomState};

    use super::{ArgType, BaseType, TypeBox, TypeBoxRepr};

    fn is_shared(t: &TypeBox) -> bool {
        matches!(t.0, TypeBoxRepr::Shared(_))
    }

    #[test]
    fn common_inner_types_are_shared_and_the_rest_boxed() {
        let int = || ArgType::Base(BaseType::Int);
        for (inner, shared) in [
            (int(), true),
            (ArgType::optional(int()), true),
            (ArgType::list(int(), None), true),
            (ArgType::list(int(), Some(1)), true),
            (ArgType::list(int(), Some(TypeBox::SHARED_SIZES)), true),
            (ArgType::list(int(), Some(TypeBox::SHARED_SIZES + 1)), false),
            (ArgType::optional(ArgType::optional(int())), false),
            (ArgType::CustomClass("ns.Class".into()), false),
        ] {
            let boxed = TypeBox::new(inner.clone());
            assert_eq!(is_shared(&boxed), shared, "{inner}");
            assert_eq!(*boxed, inner);
        }
        for b in BaseType::ALL {
            assert_eq!(*TypeBox::base(b), ArgType::Base(b));
        }
    }

    #[test]
    fn a_type_box_compares_hashes_and_prints_as_its_type() {
        let sized = |n| ArgType::list(ArgType::Base(BaseType::SymInt), Some(n));
        let shared = ArgType::optional(sized(2));
        let boxed = ArgType::optional(sized(9));
        assert_eq!(shared.to_string(), "SymInt[2]?");
        assert_eq!(boxed.to_string(), "SymInt[9]?");
        assert_eq!(
            format!("{boxed:?}"),
            "Optional(List { elem: Base(SymInt), size: Some(9) })"
        );
        assert_ne!(shared, boxed);
        // A boxed and a shared copy of the same type are equal, with equal hashes.
        let a = TypeBox::new(sized(3));
        let b = TypeBox(TypeBoxRepr::Boxed(Box::new(sized(3))));
        let hasher = RandomState::new();
        assert_eq!(a, b);
        assert_eq!(hasher.hash_one(&a), hasher.hash_one(&b));
        assert_eq!(hasher.hash_one(&a), hasher.hash_one(sized(3)));
        assert_eq!(b.clone(), a);
    }
}
