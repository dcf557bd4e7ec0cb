//! Tests of the library as a whole: every operator schema through every path (CPU, Meta,
//! boxed by name, the tracer, OpCheck), from one table of sample inputs
//! ([`samples::samples`]); and the tour's text against the committed `example/tour.txt`.

mod operators;
mod samples;
mod tour;
