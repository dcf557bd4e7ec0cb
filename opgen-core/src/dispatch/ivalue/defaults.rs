//! The boxed value of a schema default literal (`alpha=1`, `int[2] padding=0`,
//! `reduction=Mean`), which `OperatorHandle::fill_defaults` pushes: the typed value of
//! [`crate::plan::arg_default`] (the one model of defaults, which the generated arguments
//! structs render too), boxed as the argument's schema type is boxed.

use super::IValue;
use crate::dispatch::list::ListItem;
use crate::dispatch::tensor::Tensor;
use crate::dispatch::value::{
    Device, Generator, Layout, MemoryFormat, QScheme, Scalar, ScalarType, Storage, Stream,
};
use crate::plan::{ArgDefault, arg_default};
use crate::schema::{ArgType, BaseType, Literal};

/// The value of a schema default literal for an argument of type `ty`, if it has one:
/// `alpha=1` for `Scalar` is `Int(1)`, `int[2] padding=0` is `IntList([0, 0])`,
/// `reduction=Mean` is `Int(1)`, `memory_format=contiguous_format` is a `MemoryFormat`.
/// A scalar default of a fixed-size list longer than [`crate::plan::MAX_REPEATED_DEFAULT`]
/// (`int[4294967295] x=0`) has none, so no call allocates an attacker-sized list.
///
/// ```
/// use opgen_core::dispatch::{DispatchKeySet, IValue, Tensor, default_value};
/// use opgen_core::schema::{Literal, parse_type};
/// #[derive(Clone, Debug, PartialEq)]
/// struct MyTensor;
/// impl Tensor for MyTensor {
///     fn key_set(&self) -> DispatchKeySet { DispatchKeySet::EMPTY }
/// }
/// let padding = default_value::<MyTensor>(&parse_type("int[2]").unwrap(), &Literal::Int(0));
/// assert_eq!(padding, Some(IValue::from(vec![0i64, 0])));
/// let huge = default_value::<MyTensor>(&parse_type("int[4294967295]").unwrap(), &Literal::Int(0));
/// assert_eq!(huge, None);
/// ```
pub fn default_value<T: Tensor>(ty: &ArgType, literal: &Literal) -> Option<IValue<T>> {
    boxed(ty, &arg_default(ty, literal)?)
}

/// `value`, a default of type `ty`, boxed.
fn boxed<T: Tensor>(ty: &ArgType, value: &ArgDefault) -> Option<IValue<T>> {
    use ArgDefault as D;
    Some(match (ty.strip_optional(), value) {
        (_, D::None) => IValue::None,
        (ArgType::List { elem, .. }, D::List(items)) => list(elem, items)?,
        (ty, D::Some(inner)) => boxed(ty, inner)?,
        (_, D::Scalar(inner)) => IValue::from(scalar(inner)?),
        (_, D::Int(i)) => IValue::Int(*i),
        (_, D::Float(f)) => IValue::Float(*f),
        (_, D::Bool(b)) => IValue::Bool(*b),
        (_, D::Str(s)) => IValue::from(s.as_str()),
        (_, D::ScalarType(v)) => IValue::ScalarType(*v),
        (_, D::Layout(v)) => IValue::Layout(*v),
        (_, D::MemoryFormat(v)) => IValue::MemoryFormat(*v),
        (_, D::QScheme(v)) => IValue::QScheme(*v),
        (_, D::Device(v)) => IValue::Device(*v),
        (_, D::List(_)) => return None,
    })
}

fn scalar(value: &ArgDefault) -> Option<Scalar> {
    match value {
        ArgDefault::Int(i) => Some(Scalar::Int(*i)),
        ArgDefault::Float(f) => Some(Scalar::Float(*f)),
        ArgDefault::Bool(b) => Some(Scalar::Bool(*b)),
        ArgDefault::Scalar(inner) => scalar(inner),
        _ => None,
    }
}

/// A list of the items `read` reads; for an optional element type, `None` items too.
fn items_of<T, X>(
    items: &[ArgDefault],
    optional: bool,
    read: impl Fn(&ArgDefault) -> Option<X>,
) -> Option<IValue<T>>
where
    X: ListItem<T>,
    Option<X>: ListItem<T>,
{
    if optional {
        let read = |d: &ArgDefault| match d {
            ArgDefault::None => Some(None),
            ArgDefault::Some(inner) => read(inner).map(Some),
            _ => None,
        };
        (items.iter().map(read))
            .collect::<Option<Vec<_>>>()
            .map(IValue::from)
    } else {
        (items.iter().map(read))
            .collect::<Option<Vec<_>>>()
            .map(IValue::from)
    }
}

fn list<T: Tensor>(elem: &ArgType, items: &[ArgDefault]) -> Option<IValue<T>> {
    let (base, optional) = match elem {
        ArgType::Base(b) => (*b, false),
        ArgType::Optional(inner) => match inner.as_ref() {
            ArgType::Base(b) => (*b, true),
            _ => return None,
        },
        _ => return None,
    };
    use ArgDefault as D;
    // Handles (tensors, generators, storages, streams) have no literal: only `[]`.
    fn none<X>(_: &ArgDefault) -> Option<X> {
        None
    }
    match base {
        BaseType::Int | BaseType::SymInt => items_of::<T, i64>(items, optional, |d| match d {
            D::Int(i) => Some(*i),
            _ => None,
        }),
        BaseType::DeviceIndex => items_of::<T, i8>(items, optional, |d| match d {
            D::Int(i) => i8::try_from(*i).ok(),
            _ => None,
        }),
        BaseType::Float => items_of::<T, f64>(items, optional, |d| match d {
            D::Float(f) => Some(*f),
            _ => None,
        }),
        BaseType::Bool | BaseType::SymBool => items_of::<T, bool>(items, optional, |d| match d {
            D::Bool(b) => Some(*b),
            _ => None,
        }),
        BaseType::Str => items_of::<T, String>(items, optional, |d| match d {
            D::Str(s) => Some(s.clone()),
            _ => None,
        }),
        BaseType::Scalar => items_of::<T, Scalar>(items, optional, scalar),
        BaseType::ScalarType => items_of::<T, ScalarType>(items, optional, |d| match d {
            D::ScalarType(v) => Some(*v),
            _ => None,
        }),
        BaseType::Layout => items_of::<T, Layout>(items, optional, |d| match d {
            D::Layout(v) => Some(*v),
            _ => None,
        }),
        BaseType::MemoryFormat => items_of::<T, MemoryFormat>(items, optional, |d| match d {
            D::MemoryFormat(v) => Some(*v),
            _ => None,
        }),
        BaseType::QScheme => items_of::<T, QScheme>(items, optional, |d| match d {
            D::QScheme(v) => Some(*v),
            _ => None,
        }),
        BaseType::Device => items_of::<T, Device>(items, optional, |d| match d {
            D::Device(v) => Some(*v),
            _ => None,
        }),
        BaseType::Generator => items_of::<T, Generator>(items, optional, none),
        BaseType::Storage => items_of::<T, Storage>(items, optional, none),
        BaseType::Stream => items_of::<T, Stream>(items, optional, none),
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
