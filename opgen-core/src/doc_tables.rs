//! The generated table of `docs/TYPES.md`: every schema type with its Rust parameter type
//! (read and written), its return type, and the boxed values it takes, computed from
//! [`plan::argument_type`](crate::plan::argument_type), [`plan::return_type`] and the boxed
//! conversions of the runtime ([`ArgFamily::from_ivalue`]), so the page cannot drift from
//! the code. `OPGEN_BLESS=1 cargo test -p opgen-core --lib doc_tables` rewrites the table.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::dispatch::{
    ArgFamily, Complex, Device, DeviceType, Dimname, DispatchKey, DispatchKeySet, Generator,
    IValue, Layout, MemoryFormat, QScheme, Scalar, ScalarType, Storage, Stream, Tensor,
};
use crate::plan::{RustType, argument_type, return_type};
use crate::schema::{ArgType, parse_type};

/// A tensor type for probing conversions.
#[derive(Clone, Debug)]
struct P;

impl Tensor for P {
    fn key_set(&self) -> DispatchKeySet {
        DispatchKey::CPU.into()
    }
}

/// The schema's base types, in the order of the table.
const BASES: [&str; 19] = [
    "Tensor",
    "int",
    "SymInt",
    "float",
    "bool",
    "SymBool",
    "str",
    "Scalar",
    "ScalarType",
    "Layout",
    "Device",
    "DeviceIndex",
    "MemoryFormat",
    "QScheme",
    "Generator",
    "Storage",
    "Stream",
    "DimVector",
    "GraphModule",
];

/// Forms beyond `X`, `X?`, `X[]` of every base type.
const EXTRAS: [&str; 12] = [
    "Tensor?[]",
    "Tensor[]?",
    "int[2]",
    "int[]?",
    "int[1]?",
    "SymInt[2]",
    "SymInt[]?",
    "float[2]",
    "float[]?",
    "bool[3]",
    "str[]?",
    "__torch__.torch.classes.ns.Name",
];

/// Every schema type of the table.
fn schema_types() -> Vec<String> {
    let mut types = Vec::new();
    for base in BASES {
        for form in [base.to_string(), format!("{base}?"), format!("{base}[]")] {
            types.push(form);
        }
    }
    types.extend(EXTRAS.iter().map(|t| t.to_string()));
    types.retain(|t| parse_type(t).is_ok());
    types
}

/// One boxed value of each kind, named as the table shows it.
fn samples() -> Vec<(&'static str, IValue<P>)> {
    let device = Device {
        kind: DeviceType::CPU,
        index: None,
    };
    vec![
        ("IValue::None", IValue::None),
        ("IValue::Bool", IValue::Bool(true)),
        ("IValue::Int", IValue::Int(1)),
        ("IValue::Float", IValue::Float(1.0)),
        (
            "IValue::Complex",
            IValue::Complex(Arc::new(Complex { re: 1.0, im: 0.0 })),
        ),
        ("IValue::Str", IValue::from("s")),
        ("IValue::Tensor", IValue::Tensor(P)),
        ("IValue::IntList", IValue::IntList(Arc::new(vec![1, 2]))),
        (
            "IValue::FloatList",
            IValue::FloatList(Arc::new(vec![1.0, 2.0])),
        ),
        (
            "IValue::BoolList",
            IValue::BoolList(Arc::new(vec![true; 3])),
        ),
        ("IValue::TensorList", IValue::TensorList(Arc::new(vec![P]))),
        (
            "IValue::OptionalTensorList",
            IValue::OptionalTensorList(Arc::new(vec![Some(P), None])),
        ),
        (
            "IValue::ScalarList",
            IValue::ScalarList(Arc::new(vec![Scalar::Int(1)])),
        ),
        ("IValue::ScalarType", IValue::ScalarType(ScalarType::Float)),
        ("IValue::Layout", IValue::Layout(Layout::Strided)),
        ("IValue::Device", IValue::Device(device)),
        (
            "IValue::MemoryFormat",
            IValue::MemoryFormat(MemoryFormat::Contiguous),
        ),
        ("IValue::QScheme", IValue::QScheme(QScheme::PerTensorAffine)),
        ("IValue::Generator", IValue::Generator(Generator::new(0u8))),
        ("IValue::Storage", IValue::Storage(Storage::new(0u8))),
        ("IValue::Stream", IValue::from(Stream { device, id: 0 })),
        ("IValue::Dimname", IValue::Dimname(Dimname::new("n"))),
        ("IValue::Tuple", IValue::Tuple(Arc::new(Vec::new()))),
        ("IValue::List(str[])", IValue::from(vec![String::from("s")])),
        ("IValue::List(DeviceIndex[])", IValue::from(vec![0i8])),
        (
            "IValue::List(ScalarType[])",
            IValue::from(vec![ScalarType::Float]),
        ),
        (
            "IValue::List(Layout[])",
            IValue::from(vec![Layout::Strided]),
        ),
        ("IValue::List(Device[])", IValue::from(vec![device])),
        (
            "IValue::List(MemoryFormat[])",
            IValue::from(vec![MemoryFormat::Contiguous]),
        ),
        (
            "IValue::List(QScheme[])",
            IValue::from(vec![QScheme::PerTensorAffine]),
        ),
        (
            "IValue::List(Generator[])",
            IValue::from(vec![Generator::new(0u8)]),
        ),
        (
            "IValue::List(Storage[])",
            IValue::from(vec![Storage::new(0u8)]),
        ),
        (
            "IValue::List(Stream[])",
            IValue::from(vec![Stream { device, id: 0 }]),
        ),
    ]
}

/// Which boxed values a parameter family takes.
type Probe = fn(&mut IValue<P>) -> bool;

fn probe<F: ArgFamily<P>>() -> (RustType, Probe) {
    (F::rust_type(), |v| F::from_ivalue(v).is_ok())
}

/// Every parameter family of the runtime (a mapped type without one fails the test).
fn probes() -> Vec<(RustType, Probe)> {
    vec![
        probe::<&'static P>(),
        probe::<&'static mut P>(),
        probe::<Option<&'static P>>(),
        probe::<Option<&'static mut P>>(),
        probe::<&'static [P]>(),
        probe::<&'static mut [P]>(),
        probe::<&'static [Option<P>]>(),
        probe::<&'static [i64]>(),
        probe::<Option<&'static [i64]>>(),
        probe::<&'static [f64]>(),
        probe::<Option<&'static [f64]>>(),
        probe::<&'static str>(),
        probe::<Option<&'static str>>(),
        probe::<&'static [Scalar]>(),
        probe::<[bool; 3]>(),
        probe::<i64>(),
        probe::<Option<i64>>(),
        probe::<f64>(),
        probe::<Option<f64>>(),
        probe::<bool>(),
        probe::<Option<bool>>(),
        probe::<i8>(),
        probe::<Option<i8>>(),
        probe::<Scalar>(),
        probe::<Option<Scalar>>(),
        probe::<ScalarType>(),
        probe::<Option<ScalarType>>(),
        probe::<Layout>(),
        probe::<Option<Layout>>(),
        probe::<Device>(),
        probe::<Option<Device>>(),
        probe::<MemoryFormat>(),
        probe::<Option<MemoryFormat>>(),
        probe::<QScheme>(),
        probe::<Option<QScheme>>(),
        probe::<Stream>(),
        probe::<Option<Stream>>(),
        probe::<Generator>(),
        probe::<Option<Generator>>(),
        probe::<Storage>(),
        probe::<&'static [String]>(),
        probe::<&'static [ScalarType]>(),
        probe::<&'static [Layout]>(),
        probe::<&'static [Device]>(),
        probe::<&'static [MemoryFormat]>(),
        probe::<&'static [QScheme]>(),
        probe::<&'static [Generator]>(),
        probe::<&'static [Storage]>(),
        probe::<&'static [Stream]>(),
        probe::<&'static [i8]>(),
        probe::<&'static [bool]>(),
        probe::<Option<&'static [P]>>(),
        probe::<Option<&'static [String]>>(),
        probe::<Option<Storage>>(),
    ]
}

/// The boxed values the parameter type `rust` takes, as the runtime converts them.
fn boxed_values(rust: &RustType, probes: &[(RustType, Probe)]) -> String {
    let Some((_, accepts)) = probes.iter().find(|(t, _)| t == rust) else {
        panic!(
            "no probe for the parameter type `{rust}`: add `probe::<..>()` for its `ArgFamily` \
             in doc_tables.rs"
        );
    };
    let names: Vec<String> = (samples().into_iter())
        .filter_map(|(name, mut value)| accepts(&mut value).then(|| format!("`{name}`")))
        .collect();
    names.join(", ")
}

fn cell(t: Option<RustType>) -> String {
    t.map_or_else(|| "—".to_string(), |t| format!("`{t}`"))
}

/// The table, in markdown.
pub(crate) fn types_table() -> String {
    let probes = probes();
    let mut s = String::from(
        "| schema type | parameter | written parameter (`Tensor(a!)`) | return | boxed (`IValue`) |\n|---|---|---|---|---|\n",
    );
    for text in schema_types() {
        let Ok(ty) = parse_type(&text) else { continue };
        let read = argument_type(&ty, false);
        let written = is_tensor_like(&ty).then(|| argument_type(&ty, true));
        let boxed = read
            .as_ref()
            .map_or_else(|| "—".to_string(), |r| boxed_values(r, &probes));
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {boxed} |",
            text.replace('|', "\\|"),
            cell(read),
            written.map_or_else(String::new, cell),
            cell(return_type(&ty)),
        );
    }
    s
}

fn is_tensor_like(ty: &ArgType) -> bool {
    match ty {
        ArgType::Optional(t) | ArgType::List { elem: t, .. } => is_tensor_like(t),
        t => t.is_plain_tensor(),
    }
}

const BEGIN: &str = "<!-- types table: generated by opgen-core/src/doc_tables.rs -->\n";
const END: &str = "<!-- end of types table -->\n";

/// `docs/TYPES.md`'s table is [`types_table`]'s; `OPGEN_BLESS=1` rewrites it.
#[test]
fn docs_types_md_has_the_generated_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/TYPES.md");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let (Some(begin), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        panic!("docs/TYPES.md lacks the table markers");
    };
    let table = types_table();
    let on_disk = &text[begin + BEGIN.len()..end];
    if on_disk != table && std::env::var_os("OPGEN_BLESS").is_some() {
        let new = format!("{}{BEGIN}{table}{}", &text[..begin], &text[end..]);
        std::fs::write(path, new).expect("docs/TYPES.md is writable");
        return;
    }
    assert!(
        on_disk == table,
        "docs/TYPES.md's table is not the generated one; run `OPGEN_BLESS=1 cargo test -p opgen-core --lib doc_tables`"
    );
}

#[test]
fn the_table_covers_every_base_type_and_its_forms() {
    let table = types_table();
    for base in BASES {
        assert!(table.contains(&format!("| `{base}` |")), "{base}");
    }
    // Spot checks against the mapping as the docs describe it.
    for row in [
        "| `Tensor` | `&T` | `&mut T` | `T` | `IValue::Tensor` |",
        "| `Tensor?` | `Option<&T>` | `Option<&mut T>` | `Option<T>` | `IValue::None`, `IValue::Tensor` |",
        "| `bool[3]` | `[bool; 3]` |  | `[bool; 3]` | `IValue::BoolList` |",
        "| `__torch__.torch.classes.ns.Name` | — |  | — | — |",
    ] {
        assert!(table.contains(row), "missing row {row} in:\n{table}");
    }
}

/// The README and every page of `docs/` stand on their own: no mention of the developers'
/// specs outside the repository, and every page is linked from the README.
#[test]
fn readme_and_docs_stand_on_their_own() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).expect("README.md");
    let mut pages = vec![("README.md".to_string(), readme.clone())];
    for entry in std::fs::read_dir(format!("{root}/docs")).expect("docs/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            let name = format!(
                "docs/{}",
                path.file_name().unwrap_or_default().to_string_lossy()
            );
            assert!(
                readme.contains(&format!("]({name})")),
                "README does not link {name}"
            );
            pages.push((name, std::fs::read_to_string(&path).expect("a page")));
        }
    }
    for (name, text) in &pages {
        for outside in [
            "../shared",
            "/work/shared",
            "SCHEMA.md",
            "DISPATCH.md",
            "PRODUCT.md",
            "STYLE.md",
        ] {
            assert!(!text.contains(outside), "{name} mentions `{outside}`");
        }
    }
}
