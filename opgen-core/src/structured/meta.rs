//! [`StructuredMeta`]: what a meta function sets its outputs through, in the three modes of
//! the generated kernels (functional, in-place, out).

use std::fmt;

use crate::dispatch::{DispatchKey, Error, ErrorKind, Tensor, TensorOptions};

/// Which kernel of a structured group runs the meta function; it decides what
/// [`StructuredMeta::set_output`] does (SCHEMA.md §5.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// The functional operator (`add`): outputs are allocated with [`Tensor::empty`].
    Functional,
    /// The in-place operator (`add_`): the output is `self`, which must already have the
    /// output's dtype, device and sizes (never resized).
    InPlace,
    /// The out operator (`add.out`): the outputs are the out arguments, checked for dtype
    /// and device and resized when their sizes differ.
    Out,
}

/// The hooks of a meta function's base (`structured_inherits = "B"`): a value of `B` is
/// created (with `Default`) for each call, the meta function reaches it with
/// [`StructuredMeta::base_mut`], [`MetaBase::on_output`] runs after each output is set
/// (torchgen: the parent's `set_output_raw_strided`), and the impl receives `&B`.
///
/// `()` is the base of operators without `structured_inherits`.
///
/// ```
/// use opgen_core::dispatch::{Error, Tensor};
/// use opgen_core::structured::MetaBase;
///
/// /// Remembers the shape of every output, as `TensorIteratorBase` learns about its outputs.
/// #[derive(Default)]
/// struct ShapeLog(Vec<Vec<i64>>);
///
/// impl<T: Tensor> MetaBase<T> for ShapeLog {
///     fn on_output(&mut self, _index: usize, output: &T) -> Result<(), Error> {
///         self.0.push(output.sizes()?);
///         Ok(())
///     }
/// }
/// ```
pub trait MetaBase<T: Tensor>: Default + Send + 'static {
    /// Called after output `index` is set (allocated, checked or resized).
    fn on_output(&mut self, index: usize, output: &T) -> Result<(), Error> {
        let _ = (index, output);
        Ok(())
    }
}

impl<T: Tensor> MetaBase<T> for () {}

/// The context of a meta function: it says which outputs to produce with
/// [`set_output`](StructuredMeta::set_output), and reads them back with
/// [`output`](StructuredMeta::output). The generated kernels create it in the
/// [`Mode`] of the operator called; a test can create one to run a meta function alone.
///
/// Every output must be set exactly once; [`finish`](StructuredMeta::finish) reports one
/// that was not.
///
/// ```
/// use opgen_core::dispatch::{DispatchKey, Error, Tensor, TensorOptions};
/// use opgen_core::structured::{Mode, StructuredMeta};
/// # use opgen_core::dispatch::DispatchKeySet;
/// # #[derive(Clone, Debug)]
/// # struct MyTensor(Vec<i64>);
/// # impl Tensor for MyTensor {
/// #     fn key_set(&self) -> DispatchKeySet { DispatchKey::Meta.into() }
/// #     fn sizes(&self) -> Result<Vec<i64>, Error> { Ok(self.0.clone()) }
/// #     fn empty(sizes: &[i64], _: Option<&[i64]>, _: &TensorOptions) -> Result<Self, Error> {
/// #         Ok(MyTensor(sizes.to_vec()))
/// #     }
/// # }
///
/// // A meta function: one output of `self`'s shape.
/// fn relu_meta(meta: &mut StructuredMeta<'_, MyTensor>, self_: &MyTensor) -> Result<(), Error> {
///     meta.set_output(0, &self_.sizes()?, TensorOptions::new())
/// }
///
/// let mut meta = StructuredMeta::new("aten::relu.out", DispatchKey::Meta, Mode::Functional, &["out"], vec![])?;
/// relu_meta(&mut meta, &MyTensor(vec![2, 3]))?;
/// let ((), outputs) = meta.finish()?;
/// assert_eq!(outputs[0].0, [2, 3]);
///
/// // A meta function that sets nothing is an error naming the operator and the output.
/// let meta = StructuredMeta::<MyTensor>::new("aten::relu.out", DispatchKey::Meta, Mode::Functional, &["out"], vec![])?;
/// let err = meta.finish().unwrap_err().to_string();
/// assert_eq!(err, "the meta function did not set output 0 (`out`) (`aten::relu.out` at `Meta`)");
/// # Ok::<(), Error>(())
/// ```
pub struct StructuredMeta<'a, T: Tensor, B = ()> {
    operator: &'a str,
    key: DispatchKey,
    mode: Mode,
    names: &'a [&'a str],
    /// In-place: `self` per output; out: the out tensors; functional: empty.
    given: Vec<T>,
    outputs: Vec<Option<T>>,
    base: B,
}

impl<'a, T: Tensor, B: MetaBase<T>> StructuredMeta<'a, T, B> {
    /// A context for the operator `operator` (`aten::add.out`, for messages) running at
    /// `key`, whose outputs are named `names` (the out arguments). `given` holds the tensors
    /// the outputs must be: `self` (in-place) or the out arguments (out), one per output;
    /// nothing for [`Mode::Functional`].
    pub fn new(
        operator: &'a str,
        key: DispatchKey,
        mode: Mode,
        names: &'a [&'a str],
        given: Vec<T>,
    ) -> Result<Self, Error> {
        let expected = match mode {
            Mode::Functional => 0,
            Mode::InPlace | Mode::Out => names.len(),
        };
        if given.len() != expected {
            return Err(structured_error(
                operator,
                key,
                format!(
                    "the {mode} kernel has {} output tensors for {expected} outputs",
                    given.len()
                ),
            ));
        }
        Ok(StructuredMeta {
            operator,
            key,
            mode,
            names,
            given,
            outputs: names.iter().map(|_| None).collect(),
            base: B::default(),
        })
    }

    /// Sets output `index` to a tensor of `sizes` with `options` (contiguous): allocates it
    /// (functional), checks `self` against it (in-place) or checks and resizes the out
    /// argument (out). Unset fields of `options` are not checked; a functional output takes
    /// [`TensorOptions`]' defaults for them, so pass the full options of an input
    /// (`self_.options()?`).
    pub fn set_output(
        &mut self,
        index: usize,
        sizes: &[i64],
        options: TensorOptions,
    ) -> Result<(), Error> {
        self.set(index, sizes, None, options)
    }

    /// [`set_output`](StructuredMeta::set_output) with strides: a functional output is
    /// allocated with them; an out argument that is resized gets contiguous strides
    /// ([`Tensor::resize_`] has no strides), and one that is not keeps its own, as PyTorch
    /// restrides only when it resizes.
    pub fn set_output_strided(
        &mut self,
        index: usize,
        sizes: &[i64],
        strides: &[i64],
        options: TensorOptions,
    ) -> Result<(), Error> {
        self.set(index, sizes, Some(strides), options)
    }

    fn set(
        &mut self,
        index: usize,
        sizes: &[i64],
        strides: Option<&[i64]>,
        options: TensorOptions,
    ) -> Result<(), Error> {
        let Some(slot) = self.outputs.get(index) else {
            return Err(self.error(format!(
                "the meta function set output {index}, but the operator has {} outputs",
                self.names.len()
            )));
        };
        if slot.is_some() {
            return Err(self.error(format!(
                "the meta function set output {index} (`{}`) twice",
                self.name(index)
            )));
        }
        let output = match self.mode {
            Mode::Functional => T::empty(sizes, strides, &options)?,
            Mode::InPlace => {
                let target = self.given_at(index)?;
                check_inplace(target, sizes, &options, |m| self.error(m))?;
                target.clone()
            }
            Mode::Out => {
                let target = self.given_at(index)?;
                check_out(target, &options, |m| self.error(m))?;
                let mut target = target.clone();
                if target.sizes()? != sizes {
                    target.resize_(sizes)?;
                }
                target
            }
        };
        self.base.on_output(index, &output)?;
        self.outputs[index] = Some(output);
        Ok(())
    }

    /// Output `index`, once set.
    pub fn output(&self, index: usize) -> Result<&T, Error> {
        match self.outputs.get(index) {
            Some(Some(output)) => Ok(output),
            Some(None) => Err(self.error(format!(
                "output {index} (`{}`) is read before the meta function set it",
                self.name(index)
            ))),
            None => Err(self.error(format!(
                "output {index} does not exist; the operator has {} outputs",
                self.names.len()
            ))),
        }
    }

    /// Output `index` as PyTorch's `maybe_get_output(i)` sees it: once set, the output;
    /// before, the tensor it will be (in-place: `self`; out: the out argument), or `None`
    /// for a functional output. Meta functions whose output depends on a given tensor read
    /// it: a reduction into an out argument computes in the out argument's dtype, and
    /// `TensorIterator`-style operators cast into an output of another dtype (`cat`,
    /// `add_` on a `Float` `self` with a `Double` operand).
    ///
    /// ```
    /// use opgen_core::dispatch::{DispatchKey, Error, Tensor, TensorOptions};
    /// use opgen_core::structured::{Mode, StructuredMeta};
    /// # use opgen_core::dispatch::DispatchKeySet;
    /// # #[derive(Clone, Debug, PartialEq)]
    /// # struct MyTensor(Vec<i64>);
    /// # impl Tensor for MyTensor {
    /// #     fn key_set(&self) -> DispatchKeySet { DispatchKey::CPU.into() }
    /// #     fn sizes(&self) -> Result<Vec<i64>, Error> { Ok(self.0.clone()) }
    /// #     fn options(&self) -> Result<TensorOptions, Error> { Ok(TensorOptions::new()) }
    /// #     fn resize_(&mut self, sizes: &[i64]) -> Result<(), Error> { self.0 = sizes.to_vec(); Ok(()) }
    /// # }
    /// let out = MyTensor(vec![0]);
    /// let mut meta = StructuredMeta::<MyTensor>::new("aten::neg.out", DispatchKey::CPU, Mode::Out, &["out"], vec![out.clone()])?;
    /// assert_eq!(meta.maybe_get_output(0), Some(&out)); // the out argument, before set_output
    /// meta.set_output(0, &[3], TensorOptions::new())?;
    /// assert_eq!(meta.maybe_get_output(0), Some(&MyTensor(vec![3]))); // resized
    /// let functional = StructuredMeta::<MyTensor>::new("aten::neg.out", DispatchKey::CPU, Mode::Functional, &["out"], vec![])?;
    /// assert_eq!(functional.maybe_get_output(0), None);
    /// assert_eq!(functional.maybe_get_output(1), None);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn maybe_get_output(&self, index: usize) -> Option<&T> {
        match self.outputs.get(index)? {
            Some(output) => Some(output),
            None => self.given.get(index),
        }
    }

    /// The mode of the kernel running the meta function.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The key of the kernel running the meta function.
    pub fn key(&self) -> DispatchKey {
        self.key
    }

    /// The operator (`aten::add.out`).
    pub fn operator(&self) -> &str {
        self.operator
    }

    /// The base (`structured_inherits`).
    pub fn base(&self) -> &B {
        &self.base
    }

    /// The base, to record what the impl needs.
    pub fn base_mut(&mut self) -> &mut B {
        &mut self.base
    }

    /// The base and the outputs, in order; an error if the meta function did not set one.
    pub fn finish(self) -> Result<(B, Vec<T>), Error> {
        let mut outputs = Vec::with_capacity(self.outputs.len());
        for (i, output) in self.outputs.iter().enumerate() {
            match output {
                Some(output) => outputs.push(output.clone()),
                None => {
                    return Err(self.error(format!(
                        "the meta function did not set output {i} (`{}`)",
                        self.name(i)
                    )));
                }
            }
        }
        Ok((self.base, outputs))
    }

    fn given_at(&self, index: usize) -> Result<&T, Error> {
        self.given
            .get(index)
            .ok_or_else(|| Error::internal("a structured kernel has fewer tensors than outputs"))
    }

    fn name(&self, index: usize) -> &str {
        self.names.get(index).copied().unwrap_or("?")
    }

    fn error(&self, message: String) -> Error {
        structured_error(self.operator, self.key, message)
    }
}

impl<T: Tensor, B> fmt::Debug for StructuredMeta<'_, T, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StructuredMeta")
            .field("operator", &self.operator)
            .field("key", &self.key)
            .field("mode", &self.mode)
            .field(
                "set",
                &self.outputs.iter().map(Option::is_some).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Functional => "functional",
            Mode::InPlace => "in-place",
            Mode::Out => "out",
        })
    }
}

/// A [`ErrorKind::Structured`] error.
pub(crate) fn structured_error(operator: &str, key: DispatchKey, message: String) -> Error {
    ErrorKind::Structured {
        operator: operator.to_string(),
        key,
        message,
    }
    .into()
}

/// PyTorch's `check_inplace`: `self` already has the output's dtype, device and sizes.
fn check_inplace<T: Tensor>(
    target: &T,
    sizes: &[i64],
    options: &TensorOptions,
    error: impl Fn(String) -> Error,
) -> Result<(), Error> {
    let have = target.options()?;
    if let (Some(want), Some(got)) = (options.dtype, have.dtype)
        && want != got
    {
        return Err(error(format!(
            "Bad in-place call: input tensor dtype {got} and output tensor dtype {want} should match"
        )));
    }
    if let (Some(want), Some(got)) = (options.device, have.device)
        && want != got
    {
        return Err(error(format!(
            "Bad in-place call: input tensor device {got} and output tensor device {want} should match"
        )));
    }
    let got = target.sizes()?;
    if got != sizes {
        return Err(error(format!(
            "Bad in-place call: input tensor size {got:?} and output tensor size {sizes:?} should match"
        )));
    }
    Ok(())
}

/// PyTorch's `resize_out` checks: the out tensor has the output's dtype and device.
fn check_out<T: Tensor>(
    target: &T,
    options: &TensorOptions,
    error: impl Fn(String) -> Error,
) -> Result<(), Error> {
    let have = target.options()?;
    if let (Some(want), Some(got)) = (options.dtype, have.dtype)
        && want != got
    {
        return Err(error(format!(
            "Expected out tensor to have dtype {want}, but got {got} instead"
        )));
    }
    if let (Some(want), Some(got)) = (options.device, have.device)
        && want != got
    {
        return Err(error(format!(
            "Expected out tensor to have device {want}, but got {got} instead"
        )));
    }
    Ok(())
}
