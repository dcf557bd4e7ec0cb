//! The runtime: dispatch keys, the operator registry and dispatcher, typed and boxed calls.
