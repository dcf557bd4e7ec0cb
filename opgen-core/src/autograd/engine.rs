//! The engine: runs the backward graph from some outputs (PyTorch's `Engine::execute`).
//!
//! Dependencies are counted first (how many edges lead into each node reachable from the
//! roots); a node runs when all its gradients have arrived, the ready nodes ordered by
//! sequence number (the most recently created first; leaf accumulators first of all), ties
//! in arrival order. Gradients arriving at the same input of a node are summed. For
//! [`grad`](super::grad), only the nodes on a path to the requested inputs run, and the
//! gradients of the inputs are captured instead of accumulated.

use std::collections::BinaryHeap;
use std::sync::Arc;

use super::error::{AutogradError, AutogradErrorKind, as_autograd_error};
use super::grad_mode::GradModeGuard;
use super::meta::Differentiable;
use smallvec::SmallVec;

use super::node::{BackwardContext, Edge, Grads, Node};
use crate::dispatch::{Error, Tensor};

// Keys are node addresses: a fast hash is enough.
type HashMap<K, V> = rustc_hash::FxHashMap<K, V>;
type HashSet<K> = rustc_hash::FxHashSet<K>;

type Key = usize;

fn key<T: Tensor>(node: &Arc<Node<T>>) -> Key {
    Arc::as_ptr(node) as *const () as usize
}

/// What [`grad`](super::grad) asks of a node: capture some of its incoming gradients, and
/// whether it must run (it leads to a captured node).
#[derive(Default)]
struct ExecInfo {
    needed: bool,
    /// (input of the node, position among the requested inputs).
    captures: Vec<(u32, usize)>,
}

struct Ready<T: Tensor> {
    node: Arc<Node<T>>,
    inputs: Grads<T>,
    order: u64,
}

impl<T: Tensor> PartialEq for Ready<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl<T: Tensor> Eq for Ready<T> {}
impl<T: Tensor> PartialOrd for Ready<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T: Tensor> Ord for Ready<T> {
    /// Higher sequence numbers first; among equals, the first to arrive.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.node.sequence_nr())
            .cmp(&other.node.sequence_nr())
            .then(other.order.cmp(&self.order))
    }
}

/// One backward pass.
pub(crate) struct GraphTask<T: Differentiable> {
    keep_graph: bool,
    dependencies: HashMap<Key, usize>,
    not_ready: HashMap<Key, Grads<T>>,
    exec_info: Option<HashMap<Key, ExecInfo>>,
    captured: Vec<Option<T>>,
    ready: BinaryHeap<Ready<T>>,
    arrivals: u64,
}

impl<T: Differentiable> GraphTask<T> {
    /// A task over the graph behind `roots`; `captures` (for `grad`) are the edges whose
    /// gradients to capture, by position.
    pub fn new(
        roots: &[Edge<T>],
        keep_graph: bool,
        captures: Option<&[Option<Edge<T>>]>,
    ) -> GraphTask<T> {
        let mut task = GraphTask {
            keep_graph,
            dependencies: HashMap::default(),
            not_ready: HashMap::default(),
            exec_info: None,
            captured: Vec::new(),
            ready: BinaryHeap::new(),
            arrivals: 0,
        };
        task.compute_dependencies(roots);
        if let Some(captures) = captures {
            task.captured = vec![None; captures.len()];
            task.exec_info = Some(exec_info(roots, captures));
        }
        task
    }

    fn compute_dependencies(&mut self, roots: &[Edge<T>]) {
        let mut seen: HashSet<Key> = HashSet::default();
        let mut stack: Vec<Arc<Node<T>>> = Vec::new();
        for edge in roots {
            *self.dependencies.entry(key(&edge.node)).or_insert(0) += 1;
            if seen.insert(key(&edge.node)) {
                stack.push(edge.node.clone());
            }
        }
        while let Some(node) = stack.pop() {
            for edge in node.next_edges().iter().flatten() {
                *self.dependencies.entry(key(&edge.node)).or_insert(0) += 1;
                if seen.insert(key(&edge.node)) {
                    stack.push(edge.node.clone());
                }
            }
        }
    }

    fn should_execute(&self, node: &Arc<Node<T>>) -> bool {
        match &self.exec_info {
            None => true,
            Some(info) => info
                .get(&key(node))
                .is_some_and(|i| i.needed || !i.captures.is_empty()),
        }
    }

    /// Delivers `grad` to input `input_nr` of `node`, and queues the node once every
    /// gradient it waits for has arrived.
    fn deliver(&mut self, edge: &Edge<T>, grad: Option<T>) -> Result<(), Error> {
        let k = key(&edge.node);
        let remaining = self.dependencies.get_mut(&k).map(|d| {
            *d -= 1;
            *d
        });
        let is_ready = remaining == Some(0);
        if is_ready {
            self.dependencies.remove(&k);
        }
        if !self.not_ready.contains_key(&k) && !self.should_execute(&edge.node) {
            return Ok(());
        }
        let buffer = self
            .not_ready
            .entry(k)
            .or_insert_with(|| (0..edge.node.num_inputs().max(1)).map(|_| None).collect());
        if let (Some(grad), Some(slot)) = (grad, buffer.get_mut(edge.input_nr as usize)) {
            *slot = Some(match slot.take() {
                Some(old) => old.accumulate(&grad)?,
                None => grad,
            });
        }
        if is_ready {
            let inputs = self.not_ready.remove(&k).unwrap_or_default();
            self.arrivals += 1;
            self.ready.push(Ready {
                node: edge.node.clone(),
                inputs,
                order: self.arrivals,
            });
        }
        Ok(())
    }

    /// Runs the graph with `grads` arriving at `roots`; returns the captured gradients.
    pub fn execute(
        mut self,
        roots: &[Edge<T>],
        grads: Vec<Option<T>>,
    ) -> Result<Vec<Option<T>>, Error> {
        for (edge, grad) in roots.iter().zip(grads) {
            self.deliver(edge, grad)?;
        }
        while let Some(task) = self.ready.pop() {
            self.evaluate(task.node, task.inputs)?;
        }
        Ok(self.captured)
    }

    fn evaluate(&mut self, node: Arc<Node<T>>, mut inputs: Grads<T>) -> Result<(), Error> {
        let context = |e: Error| with_context(e, node.name());
        let mut hooks_done = false;
        if let Some(info) = &self.exec_info {
            let (needed, captures) = match info.get(&key(&node)) {
                Some(i) => (i.needed, i.captures.clone()),
                None => (false, Vec::new()),
            };
            if !needed {
                node.run_tensor_hooks(&mut inputs, T::accumulate)
                    .map_err(context)?;
                hooks_done = true;
            }
            for (input_nr, position) in captures {
                self.captured[position] = inputs.get(input_nr as usize).cloned().flatten();
            }
            if !needed {
                return Ok(());
            }
        }
        if !hooks_done {
            node.run_tensor_hooks(&mut inputs, T::accumulate)
                .map_err(context)?;
        }
        node.run_pre_hooks(&mut inputs).map_err(context)?;
        let needed: SmallVec<[bool; 4]> = (node.next_edges().iter())
            .map(|e| e.as_ref().is_some_and(|e| self.should_execute(&e.node)))
            .collect();
        let mut ctx = BackwardContext::new(&node, inputs, &needed);
        {
            let mut function = node.function();
            function.apply(&mut ctx).map_err(context)?;
            if !self.keep_graph {
                function.release_saved();
            }
        }
        let (mut outputs, grads) = ctx.into_outputs();
        validate_outputs(&node, &mut outputs).map_err(context)?;
        node.run_post_hooks(&outputs, &grads).map_err(context)?;
        for (edge, grad) in node.next_edges().iter().zip(outputs) {
            if let Some(edge) = edge {
                self.deliver(edge, grad)?;
            }
        }
        Ok(())
    }
}

/// Names the node in an autograd error that names nothing yet.
fn with_context(e: Error, node: &str) -> Error {
    match as_autograd_error(&e) {
        Some(a) if a.context().is_none() => a.clone().in_context(node).into(),
        _ => e,
    }
}

/// Reduces gradients broadcast past their input's shape, and refuses shapes that cannot be
/// reduced (PyTorch's `validate_outputs`).
fn validate_outputs<T: Differentiable>(
    node: &Node<T>,
    outputs: &mut [Option<T>],
) -> Result<(), Error> {
    for (i, (edge, grad)) in node.next_edges().iter().zip(outputs.iter_mut()).enumerate() {
        let (Some(edge), Some(g)) = (edge, grad.as_ref()) else {
            continue;
        };
        let Some(expected) = edge
            .node
            .input_meta(edge.input_nr as usize)
            .and_then(|m| m.shape.as_ref())
        else {
            continue;
        };
        let Ok(got) = g.sizes() else {
            continue;
        };
        if got.as_slice() == expected.as_slice() {
            continue;
        }
        if !is_expandable_to(expected, &got) {
            return Err(AutogradError::new(AutogradErrorKind::InvalidGradient {
                node: node.name().to_string(),
                index: i,
                got,
                expected: expected.to_vec(),
            })
            .into());
        }
        *grad = Some(g.sum_to(expected)?);
    }
    Ok(())
}

/// Whether `shape` broadcasts to `desired` (PyTorch's `is_expandable_to`).
pub(crate) fn is_expandable_to(shape: &[i64], desired: &[i64]) -> bool {
    if shape.len() > desired.len() {
        return false;
    }
    (shape.iter().rev())
        .zip(desired.iter().rev())
        .all(|(&s, &d)| s == d || s == 1)
}

/// Which nodes must run and which capture a gradient, for `grad` (PyTorch's
/// `init_to_execute`): a node runs if a captured node is reachable from it.
fn exec_info<T: Tensor>(roots: &[Edge<T>], captures: &[Option<Edge<T>>]) -> HashMap<Key, ExecInfo> {
    let mut info: HashMap<Key, ExecInfo> = HashMap::default();
    for (position, edge) in captures.iter().enumerate() {
        if let Some(edge) = edge {
            let entry = info.entry(key(&edge.node)).or_default();
            entry.captures.push((edge.input_nr, position));
        }
    }
    let targets: HashSet<Key> = info.keys().copied().collect();
    // Post-order walk from the roots: (node, next child to visit). A node is needed when one
    // of its children is a target or needed.
    let mut done: HashMap<Key, bool> = HashMap::default();
    let mut stack: Vec<(Arc<Node<T>>, usize)> = roots.iter().map(|r| (r.node.clone(), 0)).collect();
    while let Some((node, i)) = stack.pop() {
        if i == 0 && done.contains_key(&key(&node)) {
            continue;
        }
        let edges = node.next_edges();
        if let Some(child) = edges.get(i) {
            stack.push((node.clone(), i + 1));
            if let Some(e) = child
                && !done.contains_key(&key(&e.node))
            {
                stack.push((e.node.clone(), 0));
            }
            continue;
        }
        let needed = edges.iter().flatten().any(|e| {
            let k = key(&e.node);
            targets.contains(&k) || done.get(&k).copied().unwrap_or(false)
        });
        done.insert(key(&node), needed);
    }
    for (k, needed) in done {
        if needed {
            info.entry(k).or_default().needed = true;
        }
    }
    info
}

/// Runs the engine under the grad mode of `create_graph`.
pub(crate) fn run<T: Differentiable>(
    roots: Vec<Edge<T>>,
    grads: Vec<Option<T>>,
    keep_graph: bool,
    create_graph: bool,
    captures: Option<&[Option<Edge<T>>]>,
) -> Result<Vec<Option<T>>, Error> {
    let _grad_mode = GradModeGuard::new(create_graph);
    let task = GraphTask::new(&roots, keep_graph, captures);
    task.execute(&roots, grads)
}
