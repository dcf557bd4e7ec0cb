//! Tests of the library as a whole.
