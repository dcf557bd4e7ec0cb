//! The version lock: the group of link entries of every expansion of `#[native_function]`
//! and `include_native_functions!` has the type
//! `opgen::__private::require_version!("<the macros' version>")`. Macros of another version
//! than the runtime's get one error naming both versions, with the fix. (Written here by
//! hand, as opgen-macros 0.2.0 would write it.)

static GROUP: opgen::__private::require_version!("0.2.0") = &[];

fn main() {}
