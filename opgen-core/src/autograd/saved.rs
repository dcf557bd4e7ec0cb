//! Saved values of a backward node (PyTorch's `SavedVariable`): a tensor kept for the
//! backward pass, with the version it had when saved.

use std::cell::Cell;
use std::sync::Arc;

use super::error::AutogradErrorKind;
use super::meta::set_history;
use super::node::Node;
use crate::dispatch::{DeviceType, Error, Tensor};

thread_local! {
    /// Set when an inference tensor is saved: read by [`checked_save`].
    static SAVED_INFERENCE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `save`, which saves the values of a node (the constructors of [`SavedVariable`]
/// cannot fail), and refuses it if it saved an inference tensor: PyTorch's check in
/// `SavedVariable`'s constructor ("Inference tensors cannot be saved for backward...").
pub(crate) fn checked_save<R>(save: impl FnOnce() -> Result<R, Error>) -> Result<R, Error> {
    let outer = SAVED_INFERENCE.with(|c| c.replace(false));
    let saved = save();
    if SAVED_INFERENCE.with(|c| c.replace(outer)) {
        return Err(AutogradErrorKind::InferenceSaved.into());
    }
    saved
}

/// A tensor a backward formula uses, saved by the Autograd kernel.
///
/// Saving records the tensor's version; [`SavedVariable::unpack`] refuses a tensor modified
/// in place since ("one of the variables needed for gradient computation has been modified
/// by an inplace operation"), and one freed by a `backward` that did not retain the graph
/// ("Trying to backward through the graph a second time").
///
/// An input is kept as is. An output of the node that saves it is kept without its autograd
/// state (a node holding its own output would be a reference cycle); unpacking gives a
/// handle whose `grad_fn` is the node, so that double backward sees the right graph.
pub struct SavedVariable<T: Tensor> {
    data: Option<T>,
    was_defined: bool,
    version: u64,
    /// `Some(output_nr)` for an output of the saving node.
    output_nr: Option<u32>,
}

impl<T: Tensor> SavedVariable<T> {
    /// Saves an input (or any tensor that is not an output of the node). An inference
    /// tensor makes the enclosing `checked_save` fail, as PyTorch's `SavedVariable`
    /// refuses one.
    pub fn input(t: &T) -> SavedVariable<T> {
        if t.is_inference() {
            SAVED_INFERENCE.with(|c| c.set(true));
        }
        SavedVariable {
            data: Some(t.clone()),
            was_defined: true,
            version: t.version().unwrap_or(0),
            output_nr: None,
        }
    }

    /// Saves an optional input (`Tensor?`).
    pub fn optional(t: Option<&T>) -> SavedVariable<T> {
        t.map_or_else(SavedVariable::none, SavedVariable::input)
    }

    /// Saves output `output_nr` (among the differentiable outputs) of the node that saves
    /// it.
    pub fn output(t: &T, output_nr: u32) -> SavedVariable<T> {
        let data = match t.materialize_autograd_meta() {
            Some(meta) => (meta.ops().detach)(t).unwrap_or_else(|_| t.clone()),
            None => t.clone(),
        };
        SavedVariable {
            data: Some(data),
            was_defined: true,
            version: t.version().unwrap_or(0),
            output_nr: Some(output_nr),
        }
    }

    /// Nothing saved: an undefined tensor, or a value a formula turned out not to need.
    pub fn none() -> SavedVariable<T> {
        SavedVariable {
            data: None,
            was_defined: false,
            version: 0,
            output_nr: None,
        }
    }

    /// Whether a tensor was saved (and not yet freed).
    pub fn is_saved(&self) -> bool {
        self.data.is_some()
    }

    /// Frees the tensor (after `backward` without `retain_graph`).
    pub fn reset(&mut self) {
        self.data = None;
    }

    /// The saved tensor, for the node `saved_for` that runs (`None` if nothing was saved).
    ///
    /// # Errors
    /// The tensor was freed by an earlier `backward`, or modified in place since it was
    /// saved.
    pub fn unpack(&self, saved_for: &Arc<Node<T>>) -> Result<Option<T>, Error> {
        let Some(data) = &self.data else {
            if self.was_defined {
                return Err(AutogradErrorKind::BackwardTwice.into());
            }
            return Ok(None);
        };
        let current = data.version().unwrap_or(self.version);
        if current != self.version {
            return Err(self.modified_error(data, current, saved_for));
        }
        let Some(output_nr) = self.output_nr else {
            return Ok(Some(data.clone()));
        };
        let Some(meta) = data.materialize_autograd_meta() else {
            return Ok(Some(data.clone()));
        };
        let t = (meta.ops().detach)(data)?;
        set_history(&t, saved_for, output_nr);
        Ok(Some(t))
    }

    /// [`Self::unpack`] for a tensor that must have been saved: a missing one is an error.
    pub fn get(&self, saved_for: &Arc<Node<T>>) -> Result<T, Error> {
        self.unpack(saved_for)?.ok_or_else(|| {
            Error::internal(format!(
                "{} used a saved tensor that was not saved",
                saved_for.name()
            ))
        })
    }

    #[cold]
    fn modified_error(&self, data: &T, current: u64, saved_for: &Arc<Node<T>>) -> Error {
        let output_of = match self.output_nr {
            Some(nr) => Some((nr, saved_for.name().to_string())),
            None => super::meta::grad_fn(data).map(|n| {
                let nr = data.autograd_meta().map_or(0, |m| m.state().output_nr);
                (nr, n.name().to_string())
            }),
        };
        AutogradErrorKind::ModifiedInplace {
            tensor: describe(data),
            output_of,
            version: current,
            expected: self.version,
        }
        .into()
    }
}

/// `torch.FloatTensor [2, 3]`: the tensor's type as PyTorch names it, and its shape.
pub(crate) fn describe<T: Tensor>(t: &T) -> String {
    let ty = match t.options() {
        Ok(o) => {
            let dtype = o.dtype_or_default();
            let name = match dtype.name() {
                "Bool" => "BoolTensor".to_string(),
                other => format!("{other}Tensor"),
            };
            match o.device_or_default().kind {
                DeviceType::CPU => format!("torch.{name}"),
                device => format!("torch.{}.{name}", device.name().to_ascii_lowercase()),
            }
        }
        Err(_) => std::any::type_name::<T>().to_string(),
    };
    match t.sizes() {
        Ok(sizes) => {
            let items: Vec<String> = sizes.iter().map(i64::to_string).collect();
            format!("{ty} [{}]", items.join(", "))
        }
        Err(_) => ty,
    }
}
