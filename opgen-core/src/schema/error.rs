//! Errors as values: a rule id, a message, the byte range of the offending text, a hint.

use std::fmt;
use std::ops::Range;

use super::render::{bounded_text, caret_excerpt};

macro_rules! rules {
    ($($variant:ident = $id:literal : $summary:literal,)*) => {
        /// The validation rules of SCHEMA.md §2, one variant per rule id.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule {
            $(#[doc = $summary] $variant,)*
        }

        impl Rule {
            /// Every rule, in id order.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The rule id as SCHEMA.md writes it: `R16`.
            pub fn id(self) -> &'static str {
                match self { $(Rule::$variant => $id,)* }
            }

            /// One line saying what the rule requires.
            pub fn summary(self) -> &'static str {
                match self { $(Rule::$variant => $summary,)* }
            }

            /// The rule with id `id` (`"R16"`), if any.
            pub fn from_id(id: &str) -> Option<Rule> {
                Rule::ALL.iter().copied().find(|r| r.id() == id)
            }
        }
    };
}

rules! {
    Shape = "R1": "the schema has the shape `NAME(ARGS) -> RETURNS`",
    NotCanonical = "R2": "the schema is written in canonical form",
    EmptyName = "R3": "the operator name is not empty",
    OutSuffix = "R4": "a base name does not end in `_out`",
    BadDunder = "R5": "a dunder starting with `i` is an augmented assignment",
    FunctionalSuffix = "R6": "`_functional` is not combined with in-place or dunder names",
    EmptyOverload = "R7": "a `.` is followed by an overload name",
    EmptyNamespace = "R8": "a `::` is preceded by a namespace",
    ArgumentShape = "R9": "an argument is a type, a space and a name",
    MultipleEquals = "R10": "an argument contains at most one `=`",
    EmptyDefault = "R11": "a default after `=` is not empty",
    DuplicateStar = "R12": "the keyword-only marker `*` appears at most once",
    NonOutAfterOut = "R13": "out arguments come last",
    WrittenPreSelf = "R14": "arguments before `self` are not written",
    DuplicateTensorOptions = "R15": "the TensorOptions group appears at most once",
    UnknownType = "R16": "every type is a known schema type",
    BadListSize = "R17": "a fixed list size is a positive number without leading zeros",
    AnnotationPosition = "R18": "annotations appear only as `Tensor(x)`, `Tensor(x)?`, `Tensor(x)[]`",
    AnnotationSyntax = "R19": "an annotation is lowercase letters joined by `|`, `!`, ` -> `",
    WriteAliasSetSize = "R20": "a write annotation names exactly one alias set",
    AliasSetsBothLarge = "R21": "alias sets before and after ` -> ` are not both larger than one",
    TooManyAliasLetters = "R22": "at most two alias letters before the arrow",
    EmptyReturns = "R23": "the returns are not empty",
    OutReturnMismatch = "R24": "the i-th out argument and the i-th return share an annotation",
    ReturnedMutablePositional = "R25": "written positional arguments other than `self` are not returned",
    MixedReturns = "R26": "either all returns are write-aliases or none are",
    UnaliasedMutableReturn = "R27": "a written return aliases an out argument or `self`",
    TensorListOutReturns = "R28": "a schema with non-`Tensor` out arguments returns nothing",
    OutReturnCount = "R29": "a schema returns one value per out argument",
    InplaceWithoutMutableSelf = "R30": "an in-place operator has a written `self` argument",
    InplaceMustReturnSelf = "R31": "an in-place operator on a `Tensor` returns `self`",
    InplaceNonTensorSelf = "R32": "an in-place operator on a non-`Tensor` self returns nothing",
    TensorOptionsNotFunctional = "R33": "TensorOptions appear only in functional schemas",
    FunctionalOverload = "R34": "overloads containing `functional` are functional schemas",
    InplaceAndOut = "R35": "a schema is not both in-place and out",
    EntryFunc = "R36": "an entry is a mapping with a string `func` and at most one namespace level",
    UnknownField = "R37": "an entry has only known fields",
    FieldType = "R38": "each entry field has the right value type",
    BadVariants = "R39": "`variants` lists `function` and `method`",
    BadDeviceCheck = "R40": "`device_check` is `NoCheck` or `ExactSame`",
    ConstRefWithOut = "R41": "`use_const_ref_for_mutable_tensors` is not set on out schemas",
    DelegateName = "R42": "`structured_delegate` and `structured_inherits` carry no namespace",
    ModuleMethod = "R43": "an entry with `python_module` is not a method",
    PrecomputedNeedsStructured = "R44": "`precomputed` requires `structured: True`",
    PrecomputedSyntax = "R45": "`precomputed` lines are `param -> decl, decl`",
    PrecomputedUppercase = "R46": "precomputed names are not all upper case",
    UnknownTag = "R47": "every tag is declared in tags.yaml",
    UnknownDispatchKey = "R48": "every dispatch key is a supported key",
    ManualRegistrationWithDispatch = "R49": "`dispatch` and `manual_kernel_registration` are exclusive",
    RedundantDispatch = "R50": "a lone default CompositeImplicitAutograd entry is redundant",
    SingletonCompositeImplicit = "R51": "a lone CompositeImplicitAutograd kernel has the default name",
    FactoryNeedsExplicit = "R52": "factory-like operators need an explicit dispatch entry",
    MultipleComposite = "R53": "at most one composite key per entry",
    KernelNamespaceDepth = "R54": "a kernel name has at most three namespace levels",
    AutogenName = "R55": "`autogen` lists valid operator names",
    UfuncNotStructured = "R56": "`ufunc_inner_loop` requires a structured out schema",
    UfuncSyntax = "R57": "`ufunc_inner_loop` keys and values are well formed",
    UfuncDtype = "R58": "ufunc dtypes are known scalar types or classes",
    DelegateWithStructuredKey = "R59": "a structured delegate lists no structured backend key",
    OutVariants = "R60": "out schemas have only the `function` variant",
    StructuredNotOut = "R61": "`structured: True` only on out schemas",
    DelegateOnOut = "R62": "`structured_delegate` only on non-out schemas",
    StructuredDeviceGuard = "R63": "structured entries do not set `device_guard: False`",
    CppNoDefaultArgs = "R64": "`cpp_no_default_args` names arguments with defaults",
    InheritsNeedsStructured = "R65": "`structured_inherits` requires `structured: True`",
    ForeachDeviceCheck = "R66": "`_foreach` operators set `device_check: NoCheck`",
    MissingSeededTag = "R67": "random-looking operators carry `nondeterministic_seeded`",
    DuplicateOperator = "R68": "an operator is registered once per dispatch key",
    MissingDelegate = "R69": "a `structured_delegate` names an existing structured entry",
    PythonKeyword = "R70": "argument names are not Python keywords",
    InplaceViewNaming = "R71": "`inplace_view` operators are in-place with an out-of-place sibling",
    DuplicateSignature = "R72": "no two entries share a signature and a kind",
    LoneOut = "R73": "an out entry has a sibling with the same signature",
    NoOutVariant = "R74": "a group can get an out variant or is allow-listed",
    MixedStructured = "R75": "a group is all structured or all unstructured",
    WrongDelegate = "R76": "structured members delegate to their group's out member",
    StructuredComposite = "R77": "a structured out has no CompositeImplicitAutograd kernel",
    AutogenMismatch = "R78": "`autogen` names exactly what torchgen generates",
    MutableNeedsFunctionalSuffix = "R79": "a mutable group's functional member has `_functional`",
    MissingFunctional = "R80": "a group has a functional member",
    NamespaceMismatch = "R81": "group members share a namespace",
    MissingInplaceViewTag = "R82": "in-place view operators carry `inplace_view`",
    ViewCopy = "R83": "view operators have tagged `_copy` siblings and agree on composites",
    MethodWithoutSelf = "R84": "a method variant needs a `self` argument",
    UnsizedBoolList = "R85": "a `bool` list has a fixed size",
    ListDefault = "R86": "an unsized list default is written in brackets",
    ReturnType = "R87": "returns are not fixed-size lists or unsupported optionals",
    MutableListReturn = "R88": "a written tensor list is not returned",
    UnmappableType = "R89": "custom classes and `GraphModule` have no Rust mapping",
    TooDeep = "R90": "types and list defaults nest at most 32 levels",
    BadName = "R91": "names are ASCII identifiers and overloads are not reserved words",
    DuplicateName = "R92": "argument names are unique, and so are return names",
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One problem found in a schema string (or in a field of a yaml entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The rule that was broken.
    pub rule: Rule,
    /// What is wrong: lowercase, the offending text in backticks.
    pub message: String,
    /// Byte range of the offending text in the checked string.
    pub range: Range<usize>,
    /// How to fix it, if there is something to say.
    pub hint: Option<String>,
}

impl SchemaError {
    /// An error for `rule` at `range`.
    pub fn new(rule: Rule, range: Range<usize>, message: impl Into<String>) -> SchemaError {
        SchemaError {
            rule,
            message: message.into(),
            range,
            hint: None,
        }
    }

    /// The same error with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> SchemaError {
        self.hint = Some(hint.into());
        self
    }

    /// The error as a block of text: `error[R16]: message`, the source line (a window of
    /// it, if long), a caret line under the offending range, the hint, and where to read
    /// more about the rule. Bounded in size and time whatever the source's length (see
    /// [`caret_excerpt`], [`bounded_text`]).
    ///
    /// ```
    /// let errors = opgen_core::schema::parse_schema("relu(Tensr self) -> Tensor").unwrap_err();
    /// let text = errors[0].render("relu(Tensr self) -> Tensor");
    /// assert!(text.starts_with("error[R16]: unknown type `Tensr`\n"));
    /// assert!(text.contains("  relu(Tensr self) -> Tensor\n       ^^^^^\n"));
    /// assert!(text.ends_with("for more information about this error, run `opgen explain R16`\n"));
    /// ```
    pub fn render(&self, source: &str) -> String {
        let head = format!("error[{}]: {}", self.rule.id(), bounded_text(&self.message));
        self.render_with_head(head, source)
    }

    /// [`render`](Self::render) for a compiler, which prints `error: ` before the text
    /// itself: the rule id follows the message (`unknown type `Tensr` [R16]`), so the word
    /// "error" is printed once.
    ///
    /// ```
    /// let errors = opgen_core::schema::parse_schema("relu(Tensr self) -> Tensor").unwrap_err();
    /// let text = errors[0].render_for_compiler("relu(Tensr self) -> Tensor");
    /// assert!(text.starts_with("unknown type `Tensr` [R16]\n"));
    /// ```
    pub fn render_for_compiler(&self, source: &str) -> String {
        let head = format!("{} [{}]", bounded_text(&self.message), self.rule.id());
        self.render_with_head(head, source)
    }

    fn render_with_head(&self, mut out: String, source: &str) -> String {
        out.push('\n');
        out.push_str(&caret_excerpt(source, self.range.clone()));
        write_help(&mut out, self.hint.as_deref(), Some(self.rule));
        out
    }
}

/// The `help: hint` line, then the pointer to the rule's explanation.
pub(crate) fn write_help(out: &mut String, hint: Option<&str>, rule: Option<Rule>) {
    if let Some(hint) = hint {
        out.push_str("help: ");
        out.push_str(&bounded_text(hint));
        out.push('\n');
    }
    if let Some(rule) = rule {
        out.push_str(&format!(
            "for more information about this error, run `opgen explain {}`\n",
            rule.id()
        ));
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]", bounded_text(&self.message), self.rule.id())?;
        if let Some(h) = &self.hint {
            write!(f, "; {}", bounded_text(h))?;
        }
        Ok(())
    }
}

impl std::error::Error for SchemaError {}
