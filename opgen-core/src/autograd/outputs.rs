//! The tensors among an operator's returns, for attaching a backward node to them.

use crate::dispatch::{Device, Layout, MemoryFormat, QScheme, Scalar, ScalarType, Tensor};

/// An operator's return value as the Autograd kernel sees it: which tensors it holds, by
/// return position. Implemented for the return types of operators: `()`, `T`, `Vec<T>`,
/// `Option<T>` and tuples of up to six returns.
pub trait Outputs<T: Tensor> {
    /// Calls `f` with (return position, tensor) for each tensor, in order.
    fn visit(&self, f: &mut dyn FnMut(usize, &T));
}

/// One element of a tuple of returns.
pub trait OutputElem<T: Tensor> {
    /// Calls `f` with (`position`, tensor) for each tensor of the element.
    fn visit_elem(&self, position: usize, f: &mut dyn FnMut(usize, &T));
}

impl<T: Tensor> OutputElem<T> for T {
    fn visit_elem(&self, position: usize, f: &mut dyn FnMut(usize, &T)) {
        f(position, self)
    }
}

impl<T: Tensor> OutputElem<T> for Vec<T> {
    fn visit_elem(&self, position: usize, f: &mut dyn FnMut(usize, &T)) {
        self.iter().for_each(|t| f(position, t))
    }
}

impl<T: Tensor> OutputElem<T> for Option<T> {
    fn visit_elem(&self, position: usize, f: &mut dyn FnMut(usize, &T)) {
        if let Some(t) = self {
            f(position, t)
        }
    }
}

macro_rules! no_tensor_elem {
    ($($ty:ty),*) => {$(
        impl<T: Tensor> OutputElem<T> for $ty {
            fn visit_elem(&self, _: usize, _: &mut dyn FnMut(usize, &T)) {}
        }
    )*};
}
no_tensor_elem!(
    i64,
    f64,
    bool,
    Scalar,
    ScalarType,
    QScheme,
    Layout,
    Device,
    MemoryFormat
);

impl<T: Tensor> Outputs<T> for () {
    fn visit(&self, _: &mut dyn FnMut(usize, &T)) {}
}

impl<T: Tensor> Outputs<T> for T {
    fn visit(&self, f: &mut dyn FnMut(usize, &T)) {
        f(0, self)
    }
}

impl<T: Tensor> Outputs<T> for Vec<T> {
    fn visit(&self, f: &mut dyn FnMut(usize, &T)) {
        self.visit_elem(0, f)
    }
}

impl<T: Tensor> Outputs<T> for Option<T> {
    fn visit(&self, f: &mut dyn FnMut(usize, &T)) {
        self.visit_elem(0, f)
    }
}

macro_rules! tuple_outputs {
    ($($name:ident $i:tt),+) => {
        impl<T: Tensor, $($name: OutputElem<T>),+> Outputs<T> for ($($name,)+) {
            fn visit(&self, f: &mut dyn FnMut(usize, &T)) {
                $(self.$i.visit_elem($i, f);)+
            }
        }
    };
}
tuple_outputs!(A 0, B 1);
tuple_outputs!(A 0, B 1, C 2);
tuple_outputs!(A 0, B 1, C 2, D 3);
tuple_outputs!(A 0, B 1, C 2, D 3, E 4);
tuple_outputs!(A 0, B 1, C 2, D 3, E 4, F 5);
