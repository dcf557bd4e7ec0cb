//! An operator as calls and lookups see it ([`OperatorEntry`]), and the facts of its `def`
//! ([`OpInfo`]), whose schema is parsed when the operator is first needed.

use std::any::TypeId;
use std::borrow::Cow;
use std::fmt;
use std::num::NonZeroU64;
use std::sync::{Arc, OnceLock, Weak};

use rustc_hash::FxHasher;
use std::hash::Hasher;

use super::Inner;
use crate::dispatch::Variants;
use crate::dispatch::device::DeviceChecks;
use crate::dispatch::erased::LiveTable;
use crate::dispatch::error::{Error, ErrorKind, Site};
use crate::dispatch::operator::NameScan;
pub(crate) use crate::schema::Schema;
use crate::schema::{SchemaError, parse_schema};

/// An operator's name: `ns::op.overload` in one string, with the lengths of its parts.
pub(crate) struct QualifiedName {
    /// Borrowed from a schema text that lives as long as the program (link-time `def`s).
    text: Cow<'static, str>,
    /// Length of `ns`.
    namespace: usize,
    /// Length of `ns::op`.
    name: usize,
}

impl QualifiedName {
    /// `namespace::op` with `overload` (empty for none).
    pub(crate) fn new(namespace: &str, op: &str, overload: &str) -> QualifiedName {
        let dot = usize::from(!overload.is_empty());
        let mut text = String::with_capacity(namespace.len() + 2 + op.len() + dot + overload.len());
        text.push_str(namespace);
        text.push_str("::");
        text.push_str(op);
        let name = text.len();
        if !overload.is_empty() {
            text.push('.');
            text.push_str(overload);
        }
        QualifiedName {
            text: Cow::Owned(text),
            namespace: namespace.len(),
            name,
        }
    }

    /// `full` (`ns::op.overload`), whose `ns` is `namespace` bytes long and `ns::op`
    /// `name` bytes long.
    pub(crate) fn borrowed(full: &'static str, namespace: usize, name: usize) -> QualifiedName {
        QualifiedName {
            text: Cow::Borrowed(full),
            namespace,
            name,
        }
    }

    /// `ns::op.overload` (`ns::op` without overload).
    pub(crate) fn full(&self) -> &str {
        &self.text
    }

    /// `ns`.
    pub(crate) fn namespace(&self) -> &str {
        self.text.get(..self.namespace).unwrap_or_default()
    }

    /// `ns::op`.
    #[inline]
    pub(crate) fn name(&self) -> &str {
        self.text.get(..self.name).unwrap_or_default()
    }

    /// `overload`, empty for none (then the empty end of the text, not a dangling pointer).
    #[inline]
    pub(crate) fn overload(&self) -> &str {
        let start = (self.name + 1).min(self.text.len());
        self.text.get(start..).unwrap_or_default()
    }
}

/// The hash the name index files an operator under.
pub(crate) fn name_hash(name: &str, overload: &str) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(name.as_bytes());
    hasher.write_u8(0xff);
    hasher.write(overload.as_bytes());
    let h = hasher.finish();
    // The index takes the low bits; fold the high ones in.
    h ^ (h >> 29)
}

/// The hash of an operator name without overload (`ns::op`), for the list of its overloads.
pub(crate) fn base_hash(name: &str) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(name.as_bytes());
    hasher.finish()
}

/// An operator as calls see it: its name and its current table. Entries are created on the
/// first registration that names the operator and live as long as the dispatcher, so
/// handles stay valid whatever registrations come and go.
pub(crate) struct OperatorEntry {
    /// Position in the registry's list of operators.
    pub(crate) id: u32,
    pub(crate) qualified: QualifiedName,
    /// [`name_hash`] of the name and overload.
    pub(crate) hash: u64,
    /// The dispatch table calls read (handles point straight at it), made on the
    /// operator's first lookup; after that, every registration that concerns the operator
    /// rewrites it at once. So the thousands of operators defined at link time cost no
    /// table each until used.
    pub(crate) table: OnceLock<Box<LiveTable>>,
    pub(crate) dispatcher: Weak<Inner>,
}

impl OperatorEntry {
    /// `ns::op.overload`.
    pub(crate) fn full_name(&self) -> &str {
        self.qualified.full()
    }

    /// Whether the table is made (see `table`).
    #[inline]
    pub(crate) fn is_ready(&self) -> bool {
        self.table.get().is_some()
    }
}

impl fmt::Debug for OperatorEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OperatorEntry({})", self.full_name())
    }
}

/// The schema of a `def`: text to parse on first use (link-time definitions, checked when
/// their crate was compiled), or already parsed (definitions made at run time).
enum SchemaSource {
    Text(&'static str),
    Parsed,
}

/// What calls and checks need from a schema, computed when it is parsed.
pub(crate) struct SchemaFacts {
    pub(crate) schema: Arc<Schema>,
    /// Positions of the arguments whose type may hold tensors.
    pub(crate) tensor_args: Vec<usize>,
    /// The same positions as bits, when there are some and all are below 64; else `None`.
    pub(crate) tensor_mask: Option<NonZeroU64>,
    pub(crate) num_args: usize,
}

impl SchemaFacts {
    pub(crate) fn new(schema: Arc<Schema>) -> SchemaFacts {
        let tensor_args: Vec<usize> = (schema.arguments.iter().enumerate())
            .filter(|(_, a)| a.ty.is_tensor_like())
            .map(|(i, _)| i)
            .collect();
        let tensor_mask = (tensor_args.iter())
            .try_fold(0u64, |mask, &i| {
                Some(mask | 1u64.checked_shl(u32::try_from(i).ok()?)?)
            })
            .and_then(NonZeroU64::new);
        SchemaFacts {
            num_args: schema.arguments.len(),
            tensor_args,
            tensor_mask,
            schema,
        }
    }
}

/// How many Rust signatures an operator remembers as checked against its schema, so that
/// `typed()` compares a type id instead of checking again.
const TYPED_CACHE: usize = 4;

/// The facts of an operator's `def`: its schema (parsed on first use), the variants and
/// device settings recorded with it, and the Rust signatures already checked against it.
pub(crate) struct OpInfo {
    source: SchemaSource,
    /// Set once the schema is parsed (read on the call path, so no `Result` to look into).
    facts: OnceLock<SchemaFacts>,
    /// Set instead if it does not parse.
    invalid: OnceLock<Vec<SchemaError>>,
    pub(crate) site: Site,
    /// The variants given with [`Library::def_with_variants`](crate::dispatch::Library::def_with_variants),
    /// for the catalog; `None` when not recorded.
    pub(crate) variants: Option<Variants>,
    /// The device check and guard recorded with [`Library::def_native_at`](crate::dispatch::Library::def_native_at).
    pub(crate) device: Option<DeviceChecks>,
    typed: [OnceLock<TypeId>; TYPED_CACHE],
}

impl OpInfo {
    /// The facts of a schema parsed already.
    pub(crate) fn parsed(schema: Arc<Schema>, site: Site) -> OpInfo {
        OpInfo {
            source: SchemaSource::Parsed,
            facts: OnceLock::from(SchemaFacts::new(schema)),
            ..OpInfo::text("", site)
        }
    }

    /// The facts of a schema text to parse when first needed; [`split_schema_name`] has
    /// read its name.
    pub(crate) fn text(text: &'static str, site: Site) -> OpInfo {
        OpInfo {
            source: SchemaSource::Text(text),
            facts: OnceLock::new(),
            invalid: OnceLock::new(),
            site,
            variants: None,
            device: None,
            typed: Default::default(),
        }
    }

    /// The schema's facts if the schema is parsed already: what the call path reads.
    #[inline(always)]
    pub(crate) fn parsed_facts(&self) -> Option<&SchemaFacts> {
        self.facts.get()
    }

    /// The schema's facts, parsing it on first use.
    #[inline]
    pub(crate) fn facts(&self) -> Result<&SchemaFacts, Error> {
        match self.facts.get() {
            Some(facts) => Ok(facts),
            None => self.parse_once(),
        }
    }

    /// Parses the schema (once: another thread may be parsing it too) and keeps the facts
    /// or the errors.
    #[cold]
    fn parse_once(&self) -> Result<&SchemaFacts, Error> {
        if let Some(errors) = self.invalid.get() {
            return Err(self.invalid(errors));
        }
        match self.parse() {
            Ok(facts) => Ok(self.facts.get_or_init(|| facts)),
            Err(errors) => Err(self.invalid(self.invalid.get_or_init(|| errors))),
        }
    }

    /// The schema, parsing it on first use.
    pub(crate) fn schema(&self) -> Result<&Arc<Schema>, Error> {
        self.facts().map(|f| &f.schema)
    }

    #[cold]
    fn parse(&self) -> Result<SchemaFacts, Vec<SchemaError>> {
        let SchemaSource::Text(text) = self.source else {
            // `parsed` sets the facts; a parsed source is never parsed again.
            return Err(Vec::new());
        };
        let schema = parse_schema(text)?;
        // The name was taken from the text without parsing it: the parser must read the
        // same one.
        let read = split_schema_name(text).map(|(_, op, overload)| (op, overload));
        let parsed = &schema.name;
        let same = read.is_some_and(|(op, overload)| {
            parsed.operator_name() == op
                && parsed.overload.as_deref().unwrap_or_default() == overload
        });
        if !same {
            return Err(Vec::new());
        }
        Ok(SchemaFacts::new(Arc::new(schema)))
    }

    #[cold]
    fn invalid(&self, errors: &[SchemaError]) -> Error {
        let schema = match self.source {
            SchemaSource::Text(text) => text.to_string(),
            SchemaSource::Parsed => String::new(),
        };
        if errors.is_empty() {
            return Error::internal(format!(
                "the schema `{schema}` parses to another name than the one it was registered under"
            ));
        }
        ErrorKind::InvalidSchema {
            schema,
            errors: errors.to_vec(),
            site: self.site,
        }
        .into()
    }

    /// Whether the Rust signature `sig` was checked against this schema already.
    #[inline]
    pub(crate) fn is_typed_ok(&self, sig: TypeId) -> bool {
        self.typed.iter().any(|slot| slot.get() == Some(&sig))
    }

    /// Remembers that `sig` fits the schema (if there is room; else it is checked again).
    pub(crate) fn remember_typed(&self, sig: TypeId) {
        for slot in &self.typed {
            match slot.get() {
                Some(&known) if known == sig => return,
                Some(_) => {}
                None => {
                    // Another thread may fill the slot first; then try the next one.
                    if slot.set(sig).is_ok() {
                        return;
                    }
                    if slot.get() == Some(&sig) {
                        return;
                    }
                }
            }
        }
    }
}

/// Splits a schema's name (`[ns::]op[.overload](...`) off its text without parsing the
/// rest: `(namespace, op, overload)`, or `None` if the name is not a plain one (the parser
/// then reports what is wrong).
pub(crate) fn split_schema_name(text: &str) -> Option<(Option<&str>, &str, &str)> {
    NameScan::of(text).split(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names_have_their_parts() {
        let q = QualifiedName::new("aten", "add", "Tensor");
        assert_eq!(
            (q.full(), q.namespace(), q.name(), q.overload()),
            ("aten::add.Tensor", "aten", "aten::add", "Tensor")
        );
        let q = QualifiedName::new("aten", "relu", "");
        assert_eq!(
            (q.full(), q.namespace(), q.name(), q.overload()),
            ("aten::relu", "aten", "aten::relu", "")
        );
    }

    #[test]
    fn schema_names_split_without_parsing() {
        assert_eq!(
            split_schema_name("add.Tensor(Tensor self) -> Tensor"),
            Some((None, "add", "Tensor"))
        );
        assert_eq!(
            split_schema_name("aten::relu (Tensor self) -> Tensor"),
            Some((Some("aten"), "relu", ""))
        );
        assert_eq!(split_schema_name("a_1.b2  (x)"), Some((None, "a_1", "b2")));
        for odd in [
            "(Tensor x) -> Tensor",
            "a.(x)",
            "::a(x)",
            "a b(x)",
            "a.b.c(x)",
            "a",
            "a::b::c(x)",
            "a.b::c(x)",
            "a:b(x)",
        ] {
            assert_eq!(split_schema_name(odd), None, "{odd}");
        }
    }

    /// [`split_schema_name`] as a plain byte loop: what the one-pass scan must agree with.
    fn split_bytewise(text: &str) -> Option<(Option<&str>, &str, &str)> {
        let bytes = text.as_bytes();
        let (mut namespace_end, mut dot, mut end) = (None, None, None);
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'(' => {
                    end = Some(i);
                    break;
                }
                b':' if bytes.get(i + 1) == Some(&b':')
                    && namespace_end.is_none()
                    && dot.is_none() =>
                {
                    namespace_end = Some(i);
                    i += 1;
                }
                b'.' if dot.is_none() => dot = Some(i),
                b if b.is_ascii_alphanumeric() || b == b'_' => {}
                b' ' if bytes[i..].iter().find(|&&c| c != b' ') == Some(&b'(') => {
                    end = Some(i);
                    break;
                }
                _ => return None,
            }
            i += 1;
        }
        let end = end?;
        let name_start = namespace_end.map_or(0, |n| n + 2);
        let namespace = match namespace_end {
            Some(n) => Some(text.get(..n).filter(|ns| !ns.is_empty())?),
            None => None,
        };
        let (op, overload) = match dot {
            Some(d) => (text.get(name_start..d)?, text.get(d + 1..end)?),
            None => (text.get(name_start..end)?, ""),
        };
        let valid = !op.is_empty() && (dot.is_none() || !overload.is_empty());
        valid.then_some((namespace, op, overload))
    }

    #[test]
    fn one_pass_name_scans_agree_with_byte_loops() {
        use crate::dispatch::OperatorName;
        // Every text of up to five of these characters, alone and after a run of identifier
        // bytes longer than the scan's eight-byte words: one string, leaked, so that its
        // slices are `'static` as `OperatorName::read` wants them.
        let alphabet = ['a', '_', '1', ':', '.', ' ', '(', 'é'];
        let mut texts = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..5 {
            last = (last.iter())
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(last.iter().cloned());
        }
        let long: Vec<String> = texts.iter().map(|t| format!("abcdefghi{t}")).collect();
        texts.extend(long);
        let all: &'static str = String::leak(texts.concat());
        let mut at = 0;
        for t in &texts {
            let text = &all[at..at + t.len()];
            at += t.len();
            assert_eq!(split_schema_name(text), split_bytewise(text), "{text:?}");
            assert_eq!(OperatorName::read(text), OperatorName::of(text), "{text:?}");
        }
    }
}
