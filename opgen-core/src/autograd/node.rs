//! Backward nodes (PyTorch's `Node`), the edges between them, and what a node's backward
//! function sees while it runs.

use std::cell::Cell;
use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use smallvec::SmallVec;

use crate::dispatch::{Error, Tensor};

/// The backward function of a node: computes the gradients of an operator's differentiable
/// inputs from the gradients of its differentiable outputs (PyTorch's generated
/// `MulBackward0::apply`). Generated Autograd kernels (or hand-written ones) implement it on
/// a struct that holds what the formulas use, as [`SavedVariable`](super::SavedVariable)s and
/// plain values.
///
/// ```
/// use opgen_core::autograd::{Backward, BackwardContext};
/// use opgen_core::dispatch::{Error, Tensor};
///
/// /// `neg`: the gradient of `self` is `-grad`.
/// struct NegBackward<T> { neg: fn(&T) -> Result<T, Error> }
///
/// impl<T: Tensor> Backward<T> for NegBackward<T> {
///     fn name(&self) -> &'static str { "NegBackward0" }
///     fn apply(&mut self, ctx: &mut BackwardContext<'_, T>) -> Result<(), Error> {
///         if let (true, Some(grad)) = (ctx.needs(0), ctx.grad(0)) {
///             let g = (self.neg)(grad)?;
///             ctx.set(0, Some(g));
///         }
///         Ok(())
///     }
/// }
/// ```
pub trait Backward<T: Tensor>: Send + 'static {
    /// The node's name as PyTorch spells it (`MulBackward0`); error messages and graph dumps
    /// show it.
    fn name(&self) -> &'static str;

    /// Reads the gradients of the outputs from `ctx` ([`BackwardContext::grad`]) and sets
    /// those of the inputs that are needed ([`BackwardContext::needs`],
    /// [`BackwardContext::set`]). A gradient that is `None` is zero (PyTorch's undefined
    /// tensor).
    fn apply(&mut self, ctx: &mut BackwardContext<'_, T>) -> Result<(), Error>;

    /// Frees the saved values (called after the node ran, unless the graph is retained);
    /// using one afterwards is the "backward through the graph a second time" error.
    fn release_saved(&mut self) {}

    /// The hooks of the leaf whose gradient this node accumulates, read from the leaf each
    /// time the node runs (PyTorch's `AccumulateGrad::tensor_pre_hooks`). Other nodes keep
    /// their tensor hooks in the node, and have none here.
    fn leaf_hooks(&self) -> Vec<GradHook<T>> {
        Vec::new()
    }
}

/// A hook on a gradient: it may return a replacement.
pub type GradHook<T> = Arc<dyn Fn(&T) -> Result<Option<T>, Error> + Send + Sync>;

/// A node hook that runs before the node with its incoming gradients, which it may change.
pub type PreHook<T> = Arc<dyn Fn(&mut [Option<T>]) -> Result<(), Error> + Send + Sync>;

/// A node hook that runs after the node with (gradients of its inputs, gradients of its
/// outputs).
pub type PostHook<T> = Arc<dyn Fn(&[Option<T>], &[Option<T>]) -> Result<(), Error> + Send + Sync>;

/// Where a gradient goes: input `input_nr` of `node`.
pub struct Edge<T: Tensor> {
    /// The node.
    pub node: Arc<Node<T>>,
    /// Which of its inputs (the output number of the tensor in the forward).
    pub input_nr: u32,
}

impl<T: Tensor> Clone for Edge<T> {
    fn clone(&self) -> Self {
        Edge {
            node: self.node.clone(),
            input_nr: self.input_nr,
        }
    }
}

impl<T: Tensor> fmt::Debug for Edge<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.node.name(), self.input_nr)
    }
}

/// The shape a gradient flowing into one input of a node must have (the shape of the forward
/// tensor), when the tensor type reports shapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputMeta {
    /// The shape, or `None` if the tensor type has no `sizes` hook.
    pub shape: Option<SmallVec<[i64; 4]>>,
}

impl InputMeta {
    /// The metadata of `t` (its shape read with [`Tensor::sizes_inline`]).
    pub fn of<T: Tensor>(t: &T) -> InputMeta {
        InputMeta {
            shape: t.sizes_inline().ok(),
        }
    }
}

/// The hooks registered on one tensor, each with its id (what [`RemovableHandle`] removes).
pub(crate) type HookList<T> = Vec<(u64, GradHook<T>)>;

static NEXT_HOOK_ID: AtomicU64 = AtomicU64::new(0);

/// A new hook id, unique in the process.
pub(crate) fn next_hook_id() -> u64 {
    NEXT_HOOK_ID.fetch_add(1, Ordering::Relaxed)
}

/// A registered tensor hook, for removing it: PyTorch's `RemovableHandle`, which
/// [`AutogradTensor::register_hook`](super::AutogradTensor::register_hook) returns. Dropping
/// the handle leaves the hook in place; [`RemovableHandle::remove`] takes it out. The handle
/// keeps neither the tensor nor its graph alive.
pub struct RemovableHandle {
    id: u64,
    remove: Box<dyn Fn(u64) -> bool + Send + Sync>,
}

impl RemovableHandle {
    pub(crate) fn new(id: u64, remove: impl Fn(u64) -> bool + Send + Sync + 'static) -> Self {
        RemovableHandle {
            id,
            remove: Box::new(remove),
        }
    }

    /// The hook's id (unique in the process).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Removes the hook: it runs in no later backward pass. Returns whether it was still
    /// registered (removing twice, or after the tensor and its graph are gone, does
    /// nothing).
    pub fn remove(&self) -> bool {
        (self.remove)(self.id)
    }
}

impl fmt::Debug for RemovableHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemovableHandle")
            .field("id", &self.id)
            .finish()
    }
}

struct Hooks<T: Tensor> {
    /// Tensor hooks, by input number, with their ids.
    tensor: Vec<(u32, u64, GradHook<T>)>,
    /// `retain_grad` cells, by input number.
    retains: Vec<(u32, Arc<Mutex<Option<T>>>)>,
    pre: Vec<PreHook<T>>,
    post: Vec<PostHook<T>>,
}

/// Where the gradients a node computes go: most nodes have one or two edges, kept inline.
pub type NextEdges<T> = SmallVec<[Option<Edge<T>>; 2]>;

/// The shapes of a node's inputs: most nodes have one, kept inline.
pub type InputMetas = SmallVec<[InputMeta; 1]>;

/// A node of the graph: a backward function, where its results go (`next_edges`, one per
/// differentiable input of the forward, in order), the shapes of its inputs, a sequence
/// number (creation order on its thread: later nodes run first when both are ready) and
/// hooks. Shared as `Arc<Node<T>>`: a tensor's `grad_fn` and the edges of later nodes
/// point at it.
///
/// The backward function is the last field, stored in the node's own allocation
/// (`Node<T, MulBackward0>` made by [`Node::new`] and shared as `Node<T>`, whose function is
/// a `dyn Backward<T>`): making a node allocates once, as PyTorch's `make_shared<Node>`.
pub struct Node<T: Tensor, F: ?Sized = dyn Backward<T>> {
    sequence_nr: u64,
    next_edges: NextEdges<T>,
    /// The edges of each differentiable argument, when some argument is a list; otherwise
    /// argument `i` is edge `i`.
    arg_edges: Option<Box<[Range<u32>]>>,
    input_meta: InputMetas,
    name: &'static str,
    /// Made on the first hook: most nodes have none, and `has_hooks` says so without a lock.
    hooks: Mutex<Option<Box<Hooks<T>>>>,
    has_hooks: AtomicBool,
    function: Mutex<F>,
}

thread_local! {
    static NEXT_SEQUENCE_NR: Cell<u64> = const { Cell::new(0) };
}

/// Takes the next sequence number of this thread (PyTorch's
/// `at::sequence_number::get_and_increment`).
pub(crate) fn next_sequence_nr() -> u64 {
    NEXT_SEQUENCE_NR.with(|c| {
        let n = c.get();
        c.set(n + 1);
        n
    })
}

/// The sequence number of leaf accumulators, so that they run as soon as they are ready.
pub(crate) const ACCUMULATE_SEQUENCE_NR: u64 = u64::MAX;

/// How a node is made: [`Node::new`]'s arguments.
pub struct NodeParts<T: Tensor> {
    /// The sequence number (see [`Node::sequence_nr`]).
    pub sequence_nr: u64,
    /// Where each gradient the function computes goes.
    pub next_edges: NextEdges<T>,
    /// The edges of each differentiable argument, when they are not one each.
    pub arg_edges: Option<Box<[Range<u32>]>>,
    /// The shape of each input (forward output).
    pub input_meta: InputMetas,
}

impl<T: Tensor> Node<T> {
    /// A node running `function` (one allocation: the function is stored in the node).
    pub fn new<B: Backward<T>>(parts: NodeParts<T>, function: B) -> Arc<Node<T>> {
        let name = function.name();
        Arc::new(Node::<T, B> {
            sequence_nr: parts.sequence_nr,
            next_edges: parts.next_edges,
            arg_edges: parts.arg_edges,
            input_meta: parts.input_meta,
            name,
            hooks: Mutex::new(None),
            has_hooks: AtomicBool::new(false),
            function: Mutex::new(function),
        })
    }

    /// The node's name (`MulBackward0`, `AccumulateGrad`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its sequence number: the order of creation on its thread (`u64::MAX` for leaf
    /// accumulators). When several nodes are ready, the engine runs the highest first.
    pub fn sequence_nr(&self) -> u64 {
        self.sequence_nr
    }

    /// Where the gradients it computes go, one per differentiable input of the forward
    /// (`None`: that input does not require grad).
    pub fn next_edges(&self) -> &[Option<Edge<T>>] {
        &self.next_edges
    }

    /// How many gradients it takes (the forward's differentiable outputs).
    pub fn num_inputs(&self) -> usize {
        self.input_meta.len()
    }

    /// The shape of input `i`.
    pub fn input_meta(&self, i: usize) -> Option<&InputMeta> {
        self.input_meta.get(i)
    }

    /// The range of edges of differentiable argument `arg`.
    pub(crate) fn arg_range(&self, arg: usize) -> Range<usize> {
        match &self.arg_edges {
            Some(ranges) => ranges
                .get(arg)
                .map_or(0..0, |r| r.start as usize..r.end as usize),
            None => arg..arg + 1,
        }
    }

    /// How many differentiable arguments the forward had.
    pub(crate) fn num_args(&self) -> usize {
        self.arg_edges
            .as_ref()
            .map_or(self.next_edges.len(), |r| r.len())
    }

    pub(crate) fn function(&self) -> MutexGuard<'_, dyn Backward<T>> {
        self.function.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn hooks(&self) -> MutexGuard<'_, Option<Box<Hooks<T>>>> {
        self.hooks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Changes the hooks, making them on first use.
    fn edit_hooks(&self, f: impl FnOnce(&mut Hooks<T>)) {
        self.has_hooks.store(true, Ordering::Release);
        let mut hooks = self.hooks();
        f(hooks.get_or_insert_with(|| {
            Box::new(Hooks {
                tensor: Vec::new(),
                retains: Vec::new(),
                pre: Vec::new(),
                post: Vec::new(),
            })
        }));
    }

    /// Frees the saved values of its function.
    pub fn release_saved(&self) {
        self.function().release_saved();
    }

    /// Registers a hook that runs before the node, with the gradients it receives (PyTorch's
    /// `Node.register_prehook`).
    pub fn register_prehook(&self, hook: PreHook<T>) {
        self.edit_hooks(|h| h.pre.push(hook));
    }

    /// Registers a hook that runs after the node (PyTorch's `Node.register_hook`).
    pub fn register_hook(&self, hook: PostHook<T>) {
        self.edit_hooks(|h| h.post.push(hook));
    }

    /// Makes the engine look at the node's hooks (a leaf's accumulator, whose leaf has
    /// hooks: they live in the leaf).
    pub(crate) fn mark_has_hooks(&self) {
        self.has_hooks.store(true, Ordering::Release);
    }

    pub(crate) fn add_tensor_hook(&self, input_nr: u32, id: u64, hook: GradHook<T>) {
        self.edit_hooks(|h| h.tensor.push((input_nr, id, hook)));
    }

    /// Takes out the tensor hook `id`; whether it was there.
    pub(crate) fn remove_tensor_hook(&self, id: u64) -> bool {
        let mut hooks = self.hooks();
        let Some(h) = hooks.as_deref_mut() else {
            return false;
        };
        let before = h.tensor.len();
        h.tensor.retain(|(_, i, _)| *i != id);
        h.tensor.len() != before
    }

    pub(crate) fn add_retains_grad(&self, input_nr: u32, cell: Arc<Mutex<Option<T>>>) {
        self.edit_hooks(|h| {
            let known = (h.retains.iter()).any(|(n, c)| *n == input_nr && Arc::ptr_eq(c, &cell));
            if !known {
                h.retains.push((input_nr, cell));
            }
        });
    }

    /// Runs the tensor hooks on the incoming gradients (PyTorch's `call_tensor_pre_hooks`),
    /// then stores the gradients of tensors that retain theirs. A leaf's accumulator runs
    /// the leaf's hooks.
    pub(crate) fn run_tensor_hooks(
        &self,
        grads: &mut [Option<T>],
        add: fn(&T, &T) -> Result<T, Error>,
    ) -> Result<(), Error> {
        if !self.has_hooks.load(Ordering::Acquire) {
            return Ok(());
        }
        if self.sequence_nr == ACCUMULATE_SEQUENCE_NR {
            let hooks = self.function().leaf_hooks();
            for hook in hooks {
                if let Some(Some(g)) = grads.first()
                    && let Some(new) = hook(g)?
                {
                    grads[0] = Some(new);
                }
            }
        }
        let (tensor, retains) = match self.hooks().as_deref() {
            Some(h) if !h.tensor.is_empty() || !h.retains.is_empty() => {
                (h.tensor.clone(), h.retains.clone())
            }
            _ => return Ok(()),
        };
        for (nr, _, hook) in tensor {
            if let Some(Some(g)) = grads.get(nr as usize)
                && let Some(new) = hook(g)?
            {
                grads[nr as usize] = Some(new);
            }
        }
        for (nr, cell) in retains {
            if let Some(Some(g)) = grads.get(nr as usize) {
                let mut slot = cell.lock().unwrap_or_else(|e| e.into_inner());
                *slot = Some(match slot.take() {
                    Some(old) => add(&old, g)?,
                    None => g.clone(),
                });
            }
        }
        Ok(())
    }

    pub(crate) fn run_pre_hooks(&self, grads: &mut [Option<T>]) -> Result<(), Error> {
        if !self.has_hooks.load(Ordering::Acquire) {
            return Ok(());
        }
        let pre = match self.hooks().as_deref() {
            Some(h) if !h.pre.is_empty() => h.pre.clone(),
            _ => return Ok(()),
        };
        pre.iter().try_for_each(|hook| hook(grads))
    }

    pub(crate) fn run_post_hooks(
        &self,
        grad_inputs: &[Option<T>],
        grads: &[Option<T>],
    ) -> Result<(), Error> {
        if !self.has_hooks.load(Ordering::Acquire) {
            return Ok(());
        }
        let post = match self.hooks().as_deref() {
            Some(h) if !h.post.is_empty() => h.post.clone(),
            _ => return Ok(()),
        };
        post.iter().try_for_each(|hook| hook(grad_inputs, grads))
    }
}

thread_local! {
    /// How many `Node::drop` calls are on this thread's stack.
    static DROP_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Past this many nested drops, a node drops the rest of its graph with a loop.
const MAX_DROP_DEPTH: u32 = 128;

/// Drops the nodes a node leads to without deep recursion (PyTorch's `deleteNode`): a graph
/// of a hundred thousand operations would otherwise overflow the stack when its last tensor
/// goes. Shallow graphs drop recursively (no allocation); past `MAX_DROP_DEPTH` nested
/// drops, the rest is dropped one node at a time. A node's edges go before its backward
/// function (and the tensors it saved), so a saved tensor rarely holds the last reference to
/// a node.
impl<T: Tensor, F: ?Sized> Drop for Node<T, F> {
    fn drop(&mut self) {
        // Leaf accumulators, and nodes whose inputs needed no gradient, lead nowhere.
        if self.next_edges.iter().all(Option::is_none) {
            return;
        }
        let depth = DROP_DEPTH.with(Cell::get);
        if depth < MAX_DROP_DEPTH {
            DROP_DEPTH.with(|d| d.set(depth + 1));
            drop(std::mem::take(&mut self.next_edges));
            DROP_DEPTH.with(|d| d.set(depth));
            return;
        }
        let mut pending: Vec<Arc<Node<T>>> = take_edges(&mut self.next_edges);
        while let Some(mut node) = pending.pop() {
            // The last handle of a node (only leaf accumulators, which have no edges, are
            // also held weakly): its edges are taken before it drops.
            if let Some(node) = Arc::get_mut(&mut node) {
                pending.extend(take_edges(&mut node.next_edges));
            }
        }
    }
}

fn take_edges<T: Tensor>(edges: &mut NextEdges<T>) -> Vec<Arc<Node<T>>> {
    std::mem::take(edges)
        .into_iter()
        .flatten()
        .map(|e| e.node)
        .collect()
}

impl<T: Tensor> fmt::Debug for Node<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Node")
            .field("name", &self.name())
            .field("sequence_nr", &self.sequence_nr)
            .field("next_edges", &self.next_edges)
            .finish()
    }
}

/// Gradients of a node's inputs or outputs: most nodes have one or two.
pub(crate) type Grads<T> = SmallVec<[Option<T>; 2]>;

/// What a backward function sees while it runs: the gradients of the forward's outputs, which
/// input gradients are needed, and where to put them.
pub struct BackwardContext<'a, T: Tensor> {
    node: &'a Arc<Node<T>>,
    grads: Grads<T>,
    needed: &'a [bool],
    outputs: Grads<T>,
}

impl<'a, T: Tensor> BackwardContext<'a, T> {
    pub(crate) fn new(
        node: &'a Arc<Node<T>>,
        grads: Grads<T>,
        needed: &'a [bool],
    ) -> BackwardContext<'a, T> {
        let outputs = (0..node.next_edges.len()).map(|_| None).collect();
        BackwardContext {
            node,
            grads,
            needed,
            outputs,
        }
    }

    /// The node running (what saved outputs are unpacked for).
    pub fn node(&self) -> &Arc<Node<T>> {
        self.node
    }

    /// The gradient of differentiable output `i` (PyTorch's `grads[i]`; `grad` is
    /// `grad(0)`), `None` when it is zero.
    pub fn grad(&self, i: usize) -> Option<&T> {
        self.grads.get(i).and_then(Option::as_ref)
    }

    /// Every output gradient.
    pub fn grads(&self) -> &[Option<T>] {
        &self.grads
    }

    /// Whether any output gradient is non-zero (PyTorch's `any_grad_defined`).
    pub fn any_grad_defined(&self) -> bool {
        self.grads.iter().any(Option::is_some)
    }

    /// Whether the gradient of differentiable argument `arg` is needed (PyTorch's
    /// `task_should_compute_output`; `grad_input_mask[arg]`). For a list argument: whether
    /// any of its tensors' is.
    pub fn needs(&self, arg: usize) -> bool {
        let range = self.node.arg_range(arg);
        self.needed.get(range).is_some_and(|n| n.iter().any(|&b| b))
    }

    /// Whether the gradient going to edge `i` (arguments flattened) is needed.
    pub fn needs_edge(&self, i: usize) -> bool {
        self.needed.get(i).copied().unwrap_or(false)
    }

    /// [`Self::needs`] for every differentiable argument (PyTorch's `grad_input_mask`).
    pub fn grad_input_mask(&self) -> Vec<bool> {
        (0..self.node.num_args()).map(|a| self.needs(a)).collect()
    }

    /// Sets the gradient of differentiable argument `arg` (a tensor argument).
    pub fn set(&mut self, arg: usize, grad: Option<T>) {
        let range = self.node.arg_range(arg);
        if let Some(slot) = self.outputs.get_mut(range.start) {
            *slot = grad;
        }
    }

    /// Sets the gradients of differentiable list argument `arg`, one per tensor of the list.
    pub fn set_list(&mut self, arg: usize, grads: Vec<Option<T>>) {
        let range = self.node.arg_range(arg);
        for (slot, g) in self.outputs[range].iter_mut().zip(grads) {
            *slot = g;
        }
    }

    /// Sets the gradient going to edge `i` (arguments flattened, list elements one by one).
    pub fn set_edge(&mut self, i: usize, grad: Option<T>) {
        if let Some(slot) = self.outputs.get_mut(i) {
            *slot = grad;
        }
    }

    pub(crate) fn into_outputs(self) -> (Grads<T>, Grads<T>) {
        (self.outputs, self.grads)
    }
}
