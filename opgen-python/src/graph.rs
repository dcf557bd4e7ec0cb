//! `t.grad_fn` from Python: a node of the backward graph (`torch.autograd.graph.Node`), with
//! its `name()` and `next_functions`.

use std::sync::Arc;

use opgen_core::autograd::Node as GraphNode;
use opgen_core::dispatch::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A node of any tensor type's graph.
pub(crate) trait DynNode: Send + Sync + 'static {
    fn name(&self) -> &'static str;
    /// The nodes the node's gradients go to, with the input number of each; `None` where an
    /// input needs no gradient.
    fn next(&self) -> Vec<Option<(Node, u32)>>;
    /// The node's address: two objects of one node compare equal.
    fn address(&self) -> usize;
}

impl<T: Tensor> DynNode for Arc<GraphNode<T>> {
    fn name(&self) -> &'static str {
        GraphNode::name(self)
    }

    fn next(&self) -> Vec<Option<(Node, u32)>> {
        (self.next_edges().iter())
            .map(|edge| {
                edge.as_ref()
                    .map(|e| (Node::new(e.node.clone()), e.input_nr))
            })
            .collect()
    }

    fn address(&self) -> usize {
        Arc::as_ptr(self) as *const () as usize
    }
}

/// A node of the backward graph: the `grad_fn` of a tensor computed by an operator that
/// records one (`MulBackward0`), or a leaf's gradient accumulator (`AccumulateGrad`).
#[pyclass(frozen, name = "Node", module = "opgen.autograd.graph")]
pub struct Node {
    inner: Box<dyn DynNode>,
}

impl Node {
    pub(crate) fn new<T: Tensor>(node: Arc<GraphNode<T>>) -> Node {
        Node {
            inner: Box::new(node),
        }
    }

    /// The node's name (`MulBackward0`).
    pub(crate) fn node_name(&self) -> &'static str {
        self.inner.name()
    }
}

#[pymethods]
impl Node {
    /// The node's name (`MulBackward0`).
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    /// `((node, input_nr), ...)`: where the node's gradients go, `(None, 0)` for an input
    /// that needs none.
    #[getter]
    fn next_functions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items = (self.inner.next().into_iter())
            .map(|edge| match edge {
                Some((node, nr)) => (Py::new(py, node)?.into_any(), nr).into_pyobject(py),
                None => (py.None(), 0u32).into_pyobject(py),
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, items)
    }

    fn __repr__(&self) -> String {
        format!(
            "<{} object at {:#x}>",
            self.inner.name(),
            self.inner.address()
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Node>()
            .is_ok_and(|o| o.get().inner.address() == self.inner.address())
    }

    fn __hash__(&self) -> isize {
        self.inner.address() as isize
    }
}

/// The stub of `autograd/graph.pyi` (after the generated-file line).
pub(crate) const GRAPH_STUB: &str = "\
from typing import Any, Optional

class Node:
    def name(self) -> str: ...
    @property
    def next_functions(self) -> tuple[tuple[Optional[Node], int], ...]: ...
class RemovableHandle:
    @property
    def id(self) -> int: ...
    def remove(self) -> None: ...
    def __enter__(self) -> RemovableHandle: ...
    def __exit__(self, *args: Any) -> None: ...
";
