//! The schema parser. It splits the text exactly where torchgen splits it (SCHEMA.md §1.2),
//! so it accepts and rejects the same strings, but it keeps byte offsets, reports every
//! independent problem it finds, and names the rule each one breaks.
//!
//! [`parse_schema`] first tries the fast path (`fast.rs`), which reads the common, valid
//! schemas in one pass and gives up on anything else; this full parser then reads the text
//! and is the reference for what is accepted and for every error.

use std::ops::Range;

use smallvec::smallvec;
use smol_str::SmolStr;

use super::error::{Rule, SchemaError};
use super::literal::{list_depth, parse_literal};
use super::model::{
    AliasAnnotation, AliasSet, ArgType, Argument, BaseOperatorName, BaseType, DefaultValue,
    OperatorName, Return, Schema, TypeBox,
};

const AUGMENTED_ASSIGNMENT: [&str; 11] = [
    "add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or",
];
const CUSTOM_CLASS_PREFIX: &str = "__torch__.torch.classes.";

/// How deep a type (`?` and `[]` suffixes) or a list default may nest (R90). Real schemas
/// nest two levels at most (`Tensor?[]`); the limit keeps every stage that walks a type or
/// a literal (printing, comparing, dropping, planning, code generation) within a small,
/// fixed stack, whatever the input.
pub const MAX_NESTING: usize = 32;

/// Parses and checks a schema string: rules R1–R35 of SCHEMA.md.
///
/// On failure, returns every problem found, in the order torchgen would meet them (so the
/// first error carries the rule torchgen reports).
///
/// ```
/// use opgen_core::schema::{parse_schema, Rule};
/// let s = parse_schema("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)").unwrap();
/// assert_eq!(s.arguments.len(), 4);
/// let errors = parse_schema("relu(Tensr self) -> Tensor").unwrap_err();
/// assert_eq!((errors[0].rule, errors[0].range.clone()), (Rule::UnknownType, 5..10));
/// ```
pub fn parse_schema(text: &str) -> Result<Schema, Vec<SchemaError>> {
    // Most schemas are read by the fast path; it leaves everything else, errors included, to
    // the full parser below (see `fast.rs`).
    if let Some(schema) = super::fast::parse(text) {
        #[cfg(any(test, fuzzing))]
        assert_full_parser_agrees(text, &schema);
        return Ok(schema);
    }
    match parse_lenient(text) {
        (Some(schema), errors) if errors.is_empty() => Ok(schema),
        (_, errors) => Err(errors),
    }
}

/// The fast path may only accept what the full parser accepts, as the same model. Checked
/// in this crate's unit tests (the corpus and property tests go through here) and under
/// cargo-fuzz; never in users' builds, where a panic would reach the macro's callers.
#[cfg(any(test, fuzzing))]
fn assert_full_parser_agrees(text: &str, fast: &Schema) {
    match parse_lenient(text) {
        (Some(full), errors) if errors.is_empty() => assert_eq!(
            &full, fast,
            "the fast path read `{text}` differently from the full parser"
        ),
        (_, errors) => {
            panic!("the fast path accepted `{text}`, which the full parser rejects: {errors:?}")
        }
    }
}

/// The canonical form of a schema that breaks no rule but R2 (for example `-> (Tensor)` or
/// an empty argument slot); the errors otherwise.
///
/// ```
/// use opgen_core::schema::canonicalize;
/// assert_eq!(canonicalize("relu(Tensor self, , int x) -> (Tensor)").unwrap(), "relu(Tensor self, int x) -> Tensor");
/// ```
pub fn canonicalize(text: &str) -> Result<String, Vec<SchemaError>> {
    match parse_lenient(text) {
        (Some(schema), _) => Ok(schema.to_string()),
        (None, errors) => Err(errors),
    }
}

/// The schema, if it parsed and passed R24–R35 (even when it is not canonical), and every
/// error found, R2 last.
fn parse_lenient(text: &str) -> (Option<Schema>, Vec<SchemaError>) {
    let mut p = Parser::new(text);
    let parsed = p.schema();
    let Some(schema) = parsed.filter(|_| p.errors.is_empty()) else {
        let mut errors = p.errors;
        errors.append(&mut p.canonical);
        if errors.is_empty() {
            errors.push(SchemaError::new(
                Rule::Shape,
                0..text.len(),
                "invalid schema",
            ));
        }
        return (None, errors);
    };
    let mut errors = super::invariants::check_invariants(&schema, &p.layout);
    // Names are opgen's rules (torchgen does not check them): after torchgen's.
    errors.extend(super::names::check_names(text, &schema, &p.layout));
    if !errors.is_empty() {
        errors.append(&mut p.canonical);
        return (None, errors);
    }
    let mut errors = p.canonical;
    if errors.is_empty() && !super::roundtrip::prints_as(&schema, text) {
        errors.push(not_canonical(text, &schema.to_string()));
    }
    (Some(schema), errors)
}

/// Parses a type such as `int[2]?` on its own (R16–R17).
///
/// ```
/// use opgen_core::schema::{parse_type, ArgType, BaseType};
/// let t = parse_type("Tensor?[]").unwrap();
/// assert_eq!(t, ArgType::list(ArgType::optional(ArgType::Base(BaseType::Tensor)), None));
/// ```
pub fn parse_type(text: &str) -> Result<ArgType, SchemaError> {
    let mut p = Parser::new(text);
    match p.ty(text, 0) {
        Some(t) => Ok(t),
        None => Err(p.errors.remove(0)),
    }
}

/// Parses an operator name with optional namespace and overload (`aten::add_.Tensor`),
/// checking R3–R8. Used for `structured_delegate` and `autogen` values too.
pub fn parse_operator_name(text: &str) -> Result<OperatorName, Vec<SchemaError>> {
    let mut p = Parser::new(text);
    match p.operator_name(text, 0) {
        Some(n) if p.errors.is_empty() => Ok(n),
        _ => Err(p.errors),
    }
}

/// Byte ranges of the parts of a parsed schema, for pointing errors at them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Layout {
    pub name: Range<usize>,
    pub arguments: Vec<Range<usize>>,
    pub returns: Vec<Range<usize>>,
    pub returns_all: Range<usize>,
}

struct Parser<'a> {
    src: &'a str,
    errors: Vec<SchemaError>,
    /// R2 problems, reported after everything else (torchgen finds them last).
    canonical: Vec<SchemaError>,
    layout: Layout,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Self {
        Parser {
            src,
            errors: Vec::new(),
            canonical: Vec::new(),
            layout: Layout::default(),
        }
    }

    fn err(&mut self, rule: Rule, range: Range<usize>, msg: impl Into<String>) -> &mut SchemaError {
        self.errors.push(SchemaError::new(rule, range, msg));
        let last = self.errors.len() - 1;
        &mut self.errors[last]
    }

    fn schema(&mut self) -> Option<Schema> {
        let src = self.src;
        if has_line_break(src)
            && let Some(nl) = src.bytes().position(|b| b == b'\n' || b == b'\r')
        {
            self.err(
                Rule::Shape,
                nl..nl + 1,
                "a schema is one line; found a line break",
            )
            .hint = Some("write the whole schema on one line".into());
            return None;
        }
        let Some(open) = src.find('(') else {
            self.err(
                Rule::Shape,
                0..src.len(),
                "expected `NAME(ARGS) -> RETURNS`; found no `(`",
            )
            .hint = Some("write the arguments in parentheses after the operator name".into());
            return None;
        };
        let arrow = rfind_bytes(src, b") -> ").filter(|&a| a >= open);
        let Some(arrow) = arrow else {
            let (range, msg) = match src.find("->") {
                Some(i) => (
                    i..i + 2,
                    "expected `) -> ` before the returns, with one space on each side of `->`",
                ),
                None => (
                    src.len()..src.len(),
                    "expected ` -> RETURNS` after the arguments",
                ),
            };
            self.err(Rule::Shape, range, msg).hint = Some(
                "write the schema as `NAME(ARGS) -> RETURNS`, e.g. `relu(Tensor self) -> Tensor`"
                    .into(),
            );
            return None;
        };
        if open == 0 {
            self.err(
                Rule::Shape,
                0..1,
                "the schema has no operator name before `(`",
            )
            .hint = Some("start the schema with the operator name, e.g. `relu(`".into());
            return None;
        }
        let name = self.operator_name(&src[..open], 0);
        self.layout.name = 0..open;
        let arguments = self.arguments(open + 1, arrow);
        let returns = self.returns(arrow + 5);
        Some(Schema {
            name: name?,
            arguments: arguments?,
            returns: returns?,
        })
    }

    fn operator_name(&mut self, text: &str, at: usize) -> Option<OperatorName> {
        let (op_part, overload) = match text.find('.') {
            Some(dot) => {
                let ov = &text[dot + 1..];
                if ov.is_empty() {
                    self.err(
                        Rule::EmptyOverload,
                        at + dot..at + dot + 1,
                        "`.` is not followed by an overload name",
                    )
                    .hint = Some("write the overload name after `.`, or remove the `.`".into());
                    return None;
                }
                (&text[..dot], Some(SmolStr::new(ov)))
            }
            None => (text, None),
        };
        let (namespace, op, op_at) = match rfind_bytes(op_part, b"::") {
            Some(i) => {
                if i == 0 {
                    self.err(
                        Rule::EmptyNamespace,
                        at..at + 2,
                        "`::` is not preceded by a namespace",
                    )
                    .hint = Some(
                        "write the namespace before `::` (e.g. `aten::`), or remove `::`".into(),
                    );
                    return None;
                }
                (
                    Some(SmolStr::new(&op_part[..i])),
                    &op_part[i + 2..],
                    at + i + 2,
                )
            }
            None => (None, op_part, at),
        };
        let name = self.base_name(op, op_at)?;
        Some(OperatorName {
            namespace,
            name,
            overload,
        })
    }

    fn base_name(&mut self, op: &str, at: usize) -> Option<BaseOperatorName> {
        let range = at..at + op.len();
        if op.is_empty() {
            self.err(Rule::EmptyName, at..at, "the operator name is empty")
                .hint = Some("write the operator's name, e.g. `relu`".into());
            return None;
        }
        if let Some(stem) = op.strip_suffix("_out") {
            self.err(
                Rule::OutSuffix,
                range.end - 4..range.end,
                format!("operator name `{op}` ends in `_out`, which is reserved"),
            )
            .hint = Some(format!("name out variants with an overload: `{stem}.out`"));
            return None;
        }
        let dunder_word = op
            .strip_prefix("__")
            .and_then(|s| s.strip_suffix("__"))
            .filter(|w| !w.is_empty() && !w.contains('_'));
        let (mut base, inplace, dunder) = match dunder_word {
            Some(word) => match word.strip_prefix('i') {
                Some(rest) if AUGMENTED_ASSIGNMENT.contains(&rest) => (rest, true, true),
                Some(_) => {
                    self.err(
                        Rule::BadDunder,
                        range,
                        format!("unexpected dunder method `{op}` starting with `i`"),
                    )
                    .hint = Some(format!(
                        "in-place dunders are `__i` + one of {}; rename the operator",
                        AUGMENTED_ASSIGNMENT.join(", ")
                    ));
                    return None;
                }
                None => (word, false, true),
            },
            None => match op.strip_suffix('_') {
                Some(b) => (b, true, false),
                None => (op, false, false),
            },
        };
        let mut functional_overload = false;
        if let Some(b) = base.strip_suffix("_functional") {
            if dunder || inplace {
                self.err(
                    Rule::FunctionalSuffix,
                    range,
                    format!("`{op}` combines `_functional` with an in-place name"),
                )
                .hint = Some(
                    "`_functional` marks the functional variant; drop the trailing `_`".into(),
                );
                return None;
            }
            functional_overload = true;
            base = b;
        }
        Some(BaseOperatorName {
            base: SmolStr::new(base),
            inplace,
            dunder,
            functional_overload,
        })
    }

    fn arguments(&mut self, start: usize, end: usize) -> Option<Vec<Argument>> {
        #[derive(PartialEq)]
        enum State {
            Positional,
            KwargOnly,
            Out,
        }
        let src = self.src;
        let mut state = State::Positional;
        let pieces = count_pieces(&src[start..end]);
        let mut args = Vec::with_capacity(pieces);
        self.layout.arguments.reserve_exact(pieces);
        let mut ok = true;
        let mut star: Option<Range<usize>> = None;
        let mut after_star = 0;
        let mut first_out: Option<SmolStr> = None;
        for (piece, at) in split_at_comma_space(&src[start..end], start) {
            let range = at..at + piece.len();
            if piece.is_empty() {
                if end > start {
                    let slot = at.saturating_sub(2)..(at + 2).min(end);
                    self.canonical.push(
                        SchemaError::new(Rule::NotCanonical, slot, "empty argument slot")
                            .with_hint("remove the extra `, `"),
                    );
                }
                continue;
            }
            if piece == "*" {
                if state != State::Positional {
                    self.err(
                        Rule::DuplicateStar,
                        range,
                        "the keyword-only marker `*` appears twice",
                    )
                    .hint = Some("keep only the first `*`".into());
                    ok = false;
                } else {
                    state = State::KwargOnly;
                    star = Some(range);
                }
                continue;
            }
            let Some(mut arg) = self.argument(piece, at) else {
                ok = false;
                continue;
            };
            if arg.is_write() {
                if state == State::KwargOnly {
                    state = State::Out;
                    first_out = Some(arg.name.clone());
                }
            } else if state == State::Out {
                let out = first_out.clone().unwrap_or_default();
                self.err(
                    Rule::NonOutAfterOut,
                    range.clone(),
                    format!(
                        "non-mutable argument `{}` follows the out argument `{out}`",
                        arg.name
                    ),
                )
                .hint = Some(format!(
                    "move `{}` before `{out}`; out arguments come last",
                    arg.name
                ));
                ok = false;
            }
            if state != State::Positional {
                arg.kwarg_only = true;
                after_star += 1;
            }
            args.push(arg);
            self.layout.arguments.push(range);
        }
        if let Some(star) = star
            && after_star == 0
            && ok
        {
            self.canonical.push(
                SchemaError::new(
                    Rule::NotCanonical,
                    star,
                    "`*` is not followed by any argument",
                )
                .with_hint("remove the `*`, or add keyword-only arguments after it"),
            );
        }
        if !ok {
            return None;
        }
        self.check_argument_groups(&args);
        Some(args)
    }

    /// R14 and R15: checked by torchgen once all arguments are read.
    fn check_argument_groups(&mut self, args: &[Argument]) {
        // Taken for the duration, so errors can be recorded while reading the ranges.
        let ranges = std::mem::take(&mut self.layout.arguments);
        let positional = || (0..args.len()).filter(|&i| !args[i].kwarg_only);
        if positional().any(|i| args[i].name == "self") {
            for i in positional().take_while(|&i| args[i].name != "self") {
                if args[i].is_write() {
                    self.err(
                        Rule::WrittenPreSelf,
                        ranges[i].clone(),
                        format!("argument `{}` before `self` is written (`!`)", args[i].name),
                    )
                    .hint = Some("move the written argument after `self`, or drop its `!`".into());
                }
            }
        }
        let kwargs: Vec<usize> = (0..args.len())
            .filter(|&i| args[i].kwarg_only && !args[i].is_write())
            .collect();
        let mut seen = false;
        let mut k = 0;
        while k < kwargs.len() {
            if k + 4 <= kwargs.len() && is_tensor_options(&args[kwargs[k]..=kwargs[k + 3]]) {
                if seen {
                    let r = ranges[kwargs[k]].start..ranges[kwargs[k + 3]].end;
                    self.err(Rule::DuplicateTensorOptions, r, "the TensorOptions arguments `dtype, layout, device, pin_memory` appear twice")
                        .hint = Some("keep one `dtype, layout, device, pin_memory` group".into());
                }
                seen = true;
                k += 4;
            } else {
                k += 1;
            }
        }
        self.layout.arguments = ranges;
    }

    fn argument(&mut self, piece: &str, at: usize) -> Option<Argument> {
        let range = at..at + piece.len();
        let scan = ArgumentScan::of(piece);
        if !scan.has_space {
            self.err(
                Rule::ArgumentShape,
                range,
                format!("argument `{piece}` has no name"),
            )
            .hint = Some("write the type, one space, then the name, e.g. `Tensor other`".into());
            return None;
        }
        let (decl, default) = match scan.first_eq {
            Some(eq) => {
                if let Some(second) = scan.second_eq {
                    let s = at + second;
                    self.err(
                        Rule::MultipleEquals,
                        s..s + 1,
                        format!("argument `{piece}` has more than one `=`"),
                    )
                    .hint = Some("a default may not contain `=`".into());
                    return None;
                }
                let text = &piece[eq + 1..];
                if list_depth(text) > MAX_NESTING {
                    let d = at + eq + 1;
                    self.err(
                        Rule::TooDeep,
                        d..d + text.len(),
                        format!("the default nests more than {MAX_NESTING} lists"),
                    )
                    .hint = Some("a list default is flat, e.g. `[0,1]`".into());
                    return None;
                }
                if text.is_empty() {
                    self.err(
                        Rule::EmptyDefault,
                        at + eq..at + eq + 1,
                        format!("`=` in `{piece}` is not followed by a default"),
                    )
                    .hint = Some("write the default value after `=`, or remove `=`".into());
                    return None;
                }
                (&piece[..eq], Some(text))
            }
            None => (piece, None),
        };
        let Some(sp) = scan.last_space_in_decl else {
            self.err(
                Rule::ArgumentShape,
                range,
                format!("argument `{piece}` has no name before its default"),
            )
            .hint = Some("write `TYPE NAME=DEFAULT`".into());
            return None;
        };
        let (type_part, name) = (&decl[..sp], &decl[sp + 1..]);
        if name.is_empty() {
            self.err(
                Rule::ArgumentShape,
                range,
                format!("argument `{piece}` has an empty name"),
            )
            .hint = Some("write the type, one space, then the name, e.g. `Tensor other`".into());
            return None;
        }
        let (ty, annotation) = self.annotated_type(type_part, at)?;
        let default = default.map(|text| DefaultValue {
            text: SmolStr::new(text),
            value: parse_literal(text),
        });
        Some(Argument {
            name: SmolStr::new(name),
            ty,
            annotation,
            default,
            kwarg_only: false,
        })
    }

    /// `Tensor(a!)`, `Tensor(a)?`, `Tensor(a)[]` or a plain type.
    fn annotated_type(
        &mut self,
        text: &str,
        at: usize,
    ) -> Option<(ArgType, Option<AliasAnnotation>)> {
        if let Some(rest) = text.strip_prefix("Tensor(")
            && let Some(close) = rest.rfind(')').filter(|&c| c > 0)
        {
            let inner = &rest[..close];
            let suffix = &rest[close + 1..];
            let inner_at = at + 7;
            let ty = match suffix {
                "" => ArgType::Base(BaseType::Tensor),
                "?" => ArgType::Optional(TypeBox::base(BaseType::Tensor)),
                "[]" => ArgType::List {
                    elem: TypeBox::base(BaseType::Tensor),
                    size: None,
                },
                _ => {
                    let s = inner_at + close + 1;
                    self.err(
                        Rule::AnnotationPosition,
                        s..s + suffix.len(),
                        format!("unrecognized alias annotation form `Tensor(...){suffix}`"),
                    )
                    .hint = Some(
                        "annotations go only in `Tensor(a)`, `Tensor(a)?` and `Tensor(a)[]`".into(),
                    );
                    return None;
                }
            };
            let annotation = self.annotation(inner, inner_at)?;
            return Some((ty, Some(annotation)));
        }
        if text.ends_with(')')
            && let Some(paren) = text.find('(')
        {
            self.err(
                Rule::AnnotationPosition,
                at..at + text.len(),
                format!("alias annotation in `{text}` is not right after the word `Tensor`"),
            )
            .hint = Some(format!(
                "annotations go only in `Tensor(a)`, `Tensor(a)?` and `Tensor(a)[]`{}",
                if text.starts_with("Tensor") && paren > 6 {
                    format!("; write `Tensor(...){}`", &text[6..paren])
                } else {
                    String::new()
                }
            ));
            return None;
        }
        Some((self.ty(text, at)?, None))
    }

    fn annotation(&mut self, text: &str, at: usize) -> Option<AliasAnnotation> {
        let range = at..at + text.len();
        let Some(ann) = scan_annotation(text) else {
            self.err(Rule::AnnotationSyntax, range, format!("unrecognized alias annotation `{text}`"))
                .hint = Some("write lowercase letters joined by `|`, then an optional `!`, then an optional ` -> ` with `*` or letters, e.g. `a!` or `a -> *`".into());
            return None;
        };
        if ann.is_write && ann.before.len() > 1 {
            self.err(
                Rule::WriteAliasSetSize,
                range,
                format!("alias set `{text}` is larger than one and cannot be written"),
            )
            .hint = Some("a written tensor names exactly one alias set, e.g. `a!`".into());
            return None;
        }
        if ann.before.len() > 1 && ann.after.len() > 1 {
            self.err(
                Rule::AliasSetsBothLarge,
                range,
                format!(
                    "alias sets before and after ` -> ` in `{text}` both have more than one member"
                ),
            )
            .hint = Some("keep one letter on one side of the arrow".into());
            return None;
        }
        if ann.before.len() > 2 {
            self.err(
                Rule::TooManyAliasLetters,
                range,
                format!(
                    "alias annotation `{text}` names more than two alias sets before the arrow"
                ),
            )
            .hint = Some("use at most two letters, e.g. `a|b`".into());
            return None;
        }
        Some(ann)
    }

    /// A type, read from its outermost suffix in: `int[]?` is an optional list. Iterative,
    /// and at most [`MAX_NESTING`] suffixes deep (R90), so that no later stage recurses
    /// deeper than that on a parsed type.
    fn ty(&mut self, t: &str, at: usize) -> Option<ArgType> {
        // The suffixes, outermost first: `None` for `?`, `Some(size)` for `[]` or `[N]`.
        let mut suffixes: Vec<Option<Option<u32>>> = Vec::new();
        let mut rest = t;
        loop {
            if let Some(inner) = rest.strip_suffix('?')
                && !inner.is_empty()
            {
                suffixes.push(None);
                rest = inner;
            } else if let Some(body) = rest.strip_suffix(']')
                && let Some(open) = body.rfind('[')
                && open > 0
                && body[open + 1..].bytes().all(|b| b.is_ascii_digit())
            {
                let size = self.list_size(&body[open + 1..], at + open + 1)?;
                suffixes.push(Some(size));
                rest = &body[..open];
            } else {
                break;
            }
            if suffixes.len() > MAX_NESTING {
                self.err(
                    Rule::TooDeep,
                    at..at + t.len(),
                    format!("the type nests more than {MAX_NESTING} levels of `?` and `[]`"),
                )
                .hint = Some(
                    "a schema type has at most a few suffixes, e.g. `Tensor?[]` or `int[]?`".into(),
                );
                return None;
            }
        }
        let mut ty = self.base_type_or_class(rest, at)?;
        for suffix in suffixes.into_iter().rev() {
            ty = match suffix {
                None => ArgType::optional(ty),
                Some(size) => ArgType::list(ty, size),
            };
        }
        Some(ty)
    }

    /// The `N` of `[N]` (`None` for `[]`), R17.
    fn list_size(&mut self, digits: &str, at: usize) -> Option<Option<u32>> {
        if digits.is_empty() {
            return Some(None);
        }
        match digits.parse::<u32>() {
            Ok(n) if n > 0 && !digits.starts_with('0') => Some(Some(n)),
            _ => {
                self.err(
                    Rule::BadListSize,
                    at..at + digits.len(),
                    format!("list size `{digits}` is not a positive number without leading zeros"),
                )
                .hint = Some("write `[]` for a list of any length, or a size such as `[2]`".into());
                None
            }
        }
    }

    /// A type without suffixes: a base type or a custom class (R16).
    fn base_type_or_class(&mut self, t: &str, at: usize) -> Option<ArgType> {
        if let Some(class) = t.strip_prefix(CUSTOM_CLASS_PREFIX)
            && !class.is_empty()
            && class
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        {
            return Some(ArgType::CustomClass(SmolStr::new(class)));
        }
        if let Some(b) = base_type(t) {
            return Some(ArgType::Base(b));
        }
        let e = self.err(Rule::UnknownType, at..at + t.len(), unknown_type_message(t));
        e.hint = Some(unknown_type_hint(t));
        None
    }

    fn returns(&mut self, start: usize) -> Option<Vec<Return>> {
        let src = self.src;
        let text = &src[start..];
        self.layout.returns_all = start..src.len();
        if text.is_empty() {
            self.err(
                Rule::EmptyReturns,
                start.saturating_sub(1)..start,
                "the returns after `->` are empty",
            )
            .hint = Some("write `()` for an operator that returns nothing".into());
            return None;
        }
        if text == "()" {
            return Some(Vec::new());
        }
        let parens = text.len() >= 2 && text.starts_with('(') && text.ends_with(')');
        let (inner, inner_at) = if parens {
            (&text[1..text.len() - 1], start + 1)
        } else {
            (text, start)
        };
        let pieces = count_pieces(inner);
        let mut returns = Vec::with_capacity(pieces);
        self.layout.returns.reserve_exact(pieces);
        let mut ok = true;
        for (piece, at) in split_at_comma_space(inner, inner_at) {
            match self.ret(piece, at) {
                Some(r) => {
                    returns.push(r);
                    self.layout.returns.push(at..at + piece.len());
                }
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        if parens && returns.len() == 1 {
            self.canonical.push(
                SchemaError::new(
                    Rule::NotCanonical,
                    start..src.len(),
                    "a single return is written in parentheses",
                )
                .with_hint(format!("write `-> {inner}`")),
            );
        } else if !parens && returns.len() > 1 {
            self.canonical.push(
                SchemaError::new(
                    Rule::NotCanonical,
                    start..src.len(),
                    "several returns are written without parentheses",
                )
                .with_hint(format!("write `-> ({text})`")),
            );
        }
        Some(returns)
    }

    fn ret(&mut self, piece: &str, at: usize) -> Option<Return> {
        let (type_part, name) = match piece.rfind(' ') {
            Some(sp) => (&piece[..sp], Some(SmolStr::new(&piece[sp + 1..]))),
            None => (piece, None),
        };
        if piece.is_empty() {
            self.err(Rule::UnknownType, at..at, "empty return type")
                .hint = Some("remove the extra `, ` or write the return's type".into());
            return None;
        }
        let (ty, annotation) = self.annotated_type(type_part, at)?;
        Some(Return {
            name,
            ty,
            annotation,
        })
    }
}

/// Splits at every `", "` as torchgen does, yielding each piece with its byte offset.
fn split_at_comma_space(text: &str, at: usize) -> impl Iterator<Item = (&str, usize)> {
    // `str::split(", ")` sets up a two-way searcher per call; looking for a comma and
    // checking the next byte is faster. `", "` cannot overlap itself, so this splits
    // exactly where `split` does.
    let bytes = text.as_bytes();
    let mut from = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let mut i = from;
        let end = loop {
            match bytes[i..].iter().position(|&b| b == b',') {
                Some(k) if bytes.get(i + k + 1) == Some(&b' ') => break i + k,
                Some(k) => i += k + 1,
                None => {
                    done = true;
                    break bytes.len();
                }
            }
        };
        let piece = (&text[from..end], at + from);
        from = end + 2;
        Some(piece)
    })
}

/// Where an argument's separators are: what `contains(' ')`, `find('=')` (twice) and
/// `rfind(' ')` on the part before `=` would say, found in one pass over the bytes.
struct ArgumentScan {
    has_space: bool,
    first_eq: Option<usize>,
    second_eq: Option<usize>,
    /// The last space before the first `=` (or in the whole piece, without `=`).
    last_space_in_decl: Option<usize>,
}

impl ArgumentScan {
    fn of(piece: &str) -> ArgumentScan {
        let mut scan = ArgumentScan {
            has_space: false,
            first_eq: None,
            second_eq: None,
            last_space_in_decl: None,
        };
        for (i, &b) in piece.as_bytes().iter().enumerate() {
            match b {
                b' ' => {
                    scan.has_space = true;
                    if scan.first_eq.is_none() {
                        scan.last_space_in_decl = Some(i);
                    }
                }
                b'=' if scan.first_eq.is_none() => scan.first_eq = Some(i),
                b'=' if scan.second_eq.is_none() => scan.second_eq = Some(i),
                _ => {}
            }
        }
        scan
    }
}

/// `text.find(pat)` for the short ASCII patterns of the grammar, without setting up a
/// substring searcher (which costs more than the search in these short strings).
fn find_bytes(text: &str, pat: &[u8]) -> Option<usize> {
    text.as_bytes()
        .windows(pat.len())
        .position(|w| w[0] == pat[0] && w == pat)
}

/// `text.rfind(pat)`, as [`find_bytes`].
fn rfind_bytes(text: &str, pat: &[u8]) -> Option<usize> {
    text.as_bytes()
        .windows(pat.len())
        .rposition(|w| w[0] == pat[0] && w == pat)
}

/// At least as many as the pieces [`split_at_comma_space`] yields, to size vectors once.
/// Counting every comma (list defaults such as `[0,1]` have some) is a loop the compiler
/// vectorises.
fn count_pieces(text: &str) -> usize {
    1 + text.bytes().filter(|&b| b == b',').count()
}

/// Whether `text` has a `\n` or `\r`. Both are below 0x0E, and a schema rarely has any
/// such byte, so eight bytes at a time are tested for one (the "has a byte less than n" bit
/// trick, exact for n <= 128) before looking for the two exactly.
fn has_line_break(text: &str) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let bytes = text.as_bytes();
    let (words, tail) = bytes.as_chunks::<8>();
    let low_byte = words.iter().any(|w| {
        let x = u64::from_le_bytes(*w);
        x.wrapping_sub(ONES * 0x0E) & !x & HIGH_BITS != 0
    }) || tail.iter().any(|&b| b < 0x0E);
    low_byte && bytes.iter().any(|&b| b == b'\n' || b == b'\r')
}

/// [`BaseType::from_name`] as one `match`, which the compiler turns into a switch on the
/// length before comparing bytes.
pub(super) fn base_type(name: &str) -> Option<BaseType> {
    Some(match name {
        "Tensor" => BaseType::Tensor,
        "Scalar" => BaseType::Scalar,
        "int" => BaseType::Int,
        "SymInt" => BaseType::SymInt,
        "float" => BaseType::Float,
        "bool" => BaseType::Bool,
        "str" => BaseType::Str,
        "ScalarType" => BaseType::ScalarType,
        "Layout" => BaseType::Layout,
        "Device" => BaseType::Device,
        "DeviceIndex" => BaseType::DeviceIndex,
        "MemoryFormat" => BaseType::MemoryFormat,
        "Generator" => BaseType::Generator,
        "Storage" => BaseType::Storage,
        "Stream" => BaseType::Stream,
        "QScheme" => BaseType::QScheme,
        "SymBool" => BaseType::SymBool,
        "DimVector" => BaseType::DimVector,
        "GraphModule" => BaseType::GraphModule,
        _ => return None,
    })
}

fn is_tensor_options(four: &[Argument]) -> bool {
    let expected = [
        ("dtype", BaseType::ScalarType),
        ("layout", BaseType::Layout),
        ("device", BaseType::Device),
        ("pin_memory", BaseType::Bool),
    ];
    four.len() == 4
        && four.iter().zip(expected).all(|(a, (name, base))| {
            a.name == name && (a.ty == ArgType::Base(base) || a.ty.is_optional_of(base))
        })
}

/// The grammar `[a-z](|[a-z])* !? ( -> (\*|[a-z](|[a-z])*))?`, anchored at both ends.
fn scan_annotation(text: &str) -> Option<AliasAnnotation> {
    fn letters(s: &str) -> Option<AliasSet> {
        let mut out = AliasSet::new();
        for (i, part) in s.split('|').enumerate() {
            let mut cs = part.chars();
            let (Some(c), None) = (cs.next(), cs.next()) else {
                return None;
            };
            if !c.is_ascii_lowercase() || (i > 0 && out.is_empty()) {
                return None;
            }
            out.push(c);
        }
        Some(out)
    }
    let (before_part, after) = match find_bytes(text, b" -> ") {
        Some(i) => (&text[..i], Some(&text[i + 4..])),
        None => (text, None),
    };
    let (before_part, is_write) = match before_part.strip_suffix('!') {
        Some(b) => (b, true),
        None => (before_part, false),
    };
    let before = letters(before_part)?;
    let after = match after {
        None => AliasSet::new(),
        Some("*") => smallvec!['*'],
        Some(a) => letters(a)?,
    };
    Some(AliasAnnotation {
        before,
        is_write,
        after,
    })
}

fn unknown_type_message(t: &str) -> String {
    if t.is_empty() {
        "missing type".to_string()
    } else if t.contains(',') {
        format!("unknown type `{t}`; a `,` must be followed by one space")
    } else if t.contains(" -> ") || t.contains("->") {
        format!(
            "unknown type `{t}`; an annotation with ` -> ` is only allowed on named returns and arguments"
        )
    } else {
        format!("unknown type `{t}`")
    }
}

fn unknown_type_hint(t: &str) -> String {
    let names: Vec<&str> = BaseType::ALL.iter().map(|b| b.as_str()).collect();
    // Only a name within two edits is suggested, so names whose length differs by more are
    // not compared (a schema may have thousands of unknown types).
    let lower = t.to_ascii_lowercase();
    let best = names
        .iter()
        .filter(|n| n.len().abs_diff(t.len()) <= 2)
        .map(|n| {
            (
                super::suggest::edit_distance(&lower, &n.to_ascii_lowercase()),
                *n,
            )
        })
        .min();
    match best {
        Some((d, n)) if d <= 2 && !t.is_empty() => format!("did you mean `{n}`?"),
        _ => format!("schema types are {}", names.join(", ")),
    }
}

/// The R2 error for a schema that parsed but prints differently: the range covers the
/// first differing byte to the end of the input.
fn not_canonical(text: &str, printed: &str) -> SchemaError {
    let first_diff = text
        .bytes()
        .zip(printed.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(text.len().min(printed.len()));
    let mut start = first_diff;
    while start > 0 && !text.is_char_boundary(start) {
        start -= 1;
    }
    SchemaError::new(
        Rule::NotCanonical,
        start..text.len(),
        "the schema is not in canonical form",
    )
    .with_hint(format!("write it as `{printed}`"))
}
