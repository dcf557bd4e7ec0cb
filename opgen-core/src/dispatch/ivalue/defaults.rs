//! The boxed value of a schema default literal (`alpha=1`, `int[2] padding=0`,
//! `reduction=Mean`), which `OperatorHandle::fill_defaults` pushes.

use super::IValue;
use crate::dispatch::list::ListItem;
use crate::dispatch::tensor::Tensor;
use crate::dispatch::value::{
    Device, Generator, Layout, MemoryFormat, QScheme, Scalar, ScalarType, Storage, Stream,
};
use crate::schema::{ArgType, BaseType, Literal};

/// The value of a schema default literal for an argument of type `ty`, if it has one:
/// `alpha=1` for `Scalar` is `Int(1)`, `int[2] padding=0` is `IntList([0, 0])`,
/// `reduction=Mean` is `Int(1)`, `memory_format=contiguous_format` is a `MemoryFormat`.
pub(crate) fn default_value<T: Tensor>(ty: &ArgType, literal: &Literal) -> Option<IValue<T>> {
    if let (Literal::None, ArgType::Optional(_)) = (literal, ty) {
        return Some(IValue::None);
    }
    let ty = ty.strip_optional();
    if let ArgType::List { elem, size } = ty {
        return default_list(elem, *size, literal);
    }
    let ArgType::Base(base) = ty else { return None };
    Some(match (base, literal) {
        (BaseType::Int | BaseType::SymInt | BaseType::DeviceIndex, Literal::Int(i)) => {
            IValue::Int(*i)
        }
        // at::Reduction: None = 0, Mean = 1, Sum = 2.
        (BaseType::Int, Literal::Ident(r)) => IValue::Int(match r.as_str() {
            "Mean" => 1,
            "Sum" => 2,
            _ => return None,
        }),
        (BaseType::Float, _) => IValue::Float(float(literal)?),
        (BaseType::Bool | BaseType::SymBool, Literal::Bool(b)) => IValue::Bool(*b),
        (BaseType::Str, Literal::Str(s)) => IValue::from(s.as_str()),
        (BaseType::Scalar, _) => IValue::from(scalar(literal)?),
        (BaseType::ScalarType, Literal::Ident(n)) => IValue::ScalarType(ScalarType::from_name(n)?),
        (BaseType::Layout, Literal::Ident(n)) => IValue::Layout(Layout::from_name(n)?),
        (BaseType::MemoryFormat, Literal::Ident(n)) => {
            IValue::MemoryFormat(MemoryFormat::from_name(n)?)
        }
        (BaseType::QScheme, Literal::Ident(n)) => IValue::QScheme(QScheme::from_name(n)?),
        (BaseType::Device, _) => IValue::Device(device(literal)?),
        _ => return None,
    })
}

fn int(literal: &Literal) -> Option<i64> {
    match literal {
        Literal::Int(i) => Some(*i),
        _ => None,
    }
}

fn float(literal: &Literal) -> Option<f64> {
    match literal {
        Literal::Int(i) => Some(*i as f64),
        Literal::Float(f) => Some(f.0),
        _ => None,
    }
}

fn boolean(literal: &Literal) -> Option<bool> {
    match literal {
        Literal::Bool(b) => Some(*b),
        _ => None,
    }
}

fn string(literal: &Literal) -> Option<String> {
    match literal {
        Literal::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

fn scalar(literal: &Literal) -> Option<Scalar> {
    match literal {
        Literal::Int(i) => Some(Scalar::Int(*i)),
        Literal::Float(f) => Some(Scalar::Float(f.0)),
        Literal::Bool(b) => Some(Scalar::Bool(*b)),
        _ => None,
    }
}

fn named<V>(literal: &Literal, from_name: fn(&str) -> Option<V>) -> Option<V> {
    match literal {
        Literal::Ident(n) => from_name(n),
        _ => None,
    }
}

fn device(literal: &Literal) -> Option<Device> {
    match literal {
        Literal::Str(s) | Literal::Ident(s) => s.parse().ok(),
        _ => None,
    }
}

/// A list of the items `parse` reads; for an optional element type, `None` items too.
fn items_of<T, X>(
    items: &[Literal],
    optional: bool,
    parse: impl Fn(&Literal) -> Option<X>,
) -> Option<IValue<T>>
where
    X: ListItem<T>,
    Option<X>: ListItem<T>,
{
    if optional {
        let read = |l: &Literal| match l {
            Literal::None => Some(None),
            l => parse(l).map(Some),
        };
        items
            .iter()
            .map(read)
            .collect::<Option<Vec<_>>>()
            .map(IValue::from)
    } else {
        items
            .iter()
            .map(parse)
            .collect::<Option<Vec<_>>>()
            .map(IValue::from)
    }
}

fn default_list<T: Tensor>(
    elem: &ArgType,
    size: Option<u32>,
    literal: &Literal,
) -> Option<IValue<T>> {
    let items: Vec<Literal> = match (literal, size) {
        (Literal::List(items), _) => items.clone(),
        // `int[2] padding=0` repeats the scalar to the list's size.
        (scalar, Some(n)) => vec![scalar.clone(); n as usize],
        _ => return None,
    };
    let (base, optional) = match elem {
        ArgType::Base(b) => (*b, false),
        ArgType::Optional(inner) => match inner.as_ref() {
            ArgType::Base(b) => (*b, true),
            _ => return None,
        },
        _ => return None,
    };
    // Handles (tensors, generators, storages, streams) have no literal: only `[]`.
    fn none<X>(_: &Literal) -> Option<X> {
        None
    }
    match base {
        BaseType::Int | BaseType::SymInt => items_of::<T, i64>(&items, optional, int),
        BaseType::DeviceIndex => items_of::<T, i8>(&items, optional, |l| {
            int(l).and_then(|i| i8::try_from(i).ok())
        }),
        BaseType::Float => items_of::<T, f64>(&items, optional, float),
        BaseType::Bool | BaseType::SymBool => items_of::<T, bool>(&items, optional, boolean),
        BaseType::Str => items_of::<T, String>(&items, optional, string),
        BaseType::Scalar => items_of::<T, Scalar>(&items, optional, scalar),
        BaseType::ScalarType => {
            items_of::<T, ScalarType>(&items, optional, |l| named(l, ScalarType::from_name))
        }
        BaseType::Layout => {
            items_of::<T, Layout>(&items, optional, |l| named(l, Layout::from_name))
        }
        BaseType::MemoryFormat => {
            items_of::<T, MemoryFormat>(&items, optional, |l| named(l, MemoryFormat::from_name))
        }
        BaseType::QScheme => {
            items_of::<T, QScheme>(&items, optional, |l| named(l, QScheme::from_name))
        }
        BaseType::Device => items_of::<T, Device>(&items, optional, device),
        BaseType::Generator => items_of::<T, Generator>(&items, optional, none),
        BaseType::Storage => items_of::<T, Storage>(&items, optional, none),
        BaseType::Stream => items_of::<T, Stream>(&items, optional, none),
        BaseType::Tensor if optional => items
            .is_empty()
            .then(|| IValue::from(Vec::<Option<T>>::new())),
        BaseType::Tensor => items.is_empty().then(|| IValue::from(Vec::<T>::new())),
        BaseType::DimVector | BaseType::GraphModule => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::tests::TestTensor;
    use crate::schema::{Float, parse_type};

    fn default(ty: &str, literal: Literal) -> Option<IValue<TestTensor>> {
        default_value(&parse_type(ty).unwrap(), &literal)
    }

    #[test]
    fn defaults_follow_the_schema_type() {
        assert_eq!(default("Scalar", Literal::Int(1)), Some(IValue::Int(1)));
        assert_eq!(
            default("Scalar", Literal::Float(Float(0.5))),
            Some(IValue::from(Scalar::Float(0.5)))
        );
        assert_eq!(default("float", Literal::Int(2)), Some(IValue::Float(2.0)));
        assert_eq!(
            default("int[2]", Literal::Int(0)),
            Some(IValue::from(vec![0i64, 0]))
        );
        assert_eq!(
            default(
                "int[1]",
                Literal::List(vec![Literal::Int(-2), Literal::Int(-1)])
            ),
            Some(IValue::from(vec![-2i64, -1]))
        );
        assert_eq!(
            default("int", Literal::Ident("Mean".into())),
            Some(IValue::Int(1))
        );
        assert_eq!(
            default("ScalarType?", Literal::Ident("long".into())),
            Some(IValue::ScalarType(ScalarType::Long))
        );
        assert_eq!(default("Tensor?", Literal::None), Some(IValue::None));
        assert_eq!(default("float[]?", Literal::None), Some(IValue::None));
        assert_eq!(
            default("float", Literal::Float(Float(1e-5))),
            Some(IValue::Float(1e-5))
        );
        assert_eq!(
            default("bool[3]", Literal::Bool(true)),
            Some(IValue::from(vec![true; 3]))
        );
        assert_eq!(
            default("MemoryFormat", Literal::Ident("contiguous_format".into())),
            Some(IValue::MemoryFormat(MemoryFormat::Contiguous))
        );
        let names = Literal::List(vec![Literal::Str("a".into()), Literal::Str("b".into())]);
        assert_eq!(
            default("str[]", names),
            Some(IValue::from(vec!["a".to_string(), "b".to_string()]))
        );
        let sizes = Literal::List(vec![Literal::Int(2), Literal::None]);
        assert_eq!(
            default("int?[]", sizes),
            Some(IValue::from(vec![Some(2i64), None]))
        );
        assert_eq!(
            default("ScalarType[]", Literal::List(vec![])),
            Some(IValue::from(Vec::<ScalarType>::new()))
        );
        assert_eq!(
            default("Tensor?[]", Literal::List(vec![])),
            Some(IValue::from(Vec::<Option<TestTensor>>::new()))
        );
        let dtypes = Literal::List(vec![Literal::Ident("long".into())]);
        assert_eq!(
            default("ScalarType?[]", dtypes),
            Some(IValue::from(vec![Some(ScalarType::Long)]))
        );
        assert_eq!(
            default("Generator[]", Literal::List(vec![Literal::Int(1)])),
            None
        );
        assert_eq!(default("int[]", Literal::Int(0)), None);
        assert_eq!(default("Tensor", Literal::Int(0)), None);
    }
}
