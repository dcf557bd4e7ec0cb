//! Tests of the library as a whole: every operator schema through every path (CPU, Meta,
//! boxed by name, the tracer, OpCheck), from one table of sample inputs
//! ([`samples::samples`]); the tour's text against the committed `example/tour.txt`; and
//! `MiniTensor` in autograd (its state, leaves, `detach`, grad mode; gradients through the
//! operators' generated Autograd kernels: every differentiable operator against gradcheck,
//! what the backward nodes keep).

mod autograd;
mod autograd_ops;
mod autograd_variants;
mod gradients;
mod inference;
mod memory;
mod operators;
mod samples;
mod samples_grad;
mod tour;
