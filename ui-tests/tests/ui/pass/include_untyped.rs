//! Every schema shape the loader accepts but typed calls do not take (`tests/ui/yaml/untyped.yaml`:
//! nested lists and optionals, string and optional-scalar lists, returns without a Rust type,
//! 11 returns, 25 arguments) is declared by `include_native_functions!` when listed in
//! `registered_only`: registered with the dispatcher, callable by name with dynamic values.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

opgen::include_native_functions!(
    "../../../tmp/opgen-ui/untyped.yaml",
    tensor = "MyTensor",
    registered_only = "untyped_*"
);

fn main() {
    let dispatcher = Dispatcher::global();
    for name in [
        "untyped_nested_list",
        "untyped_nested_optional",
        "untyped_tensor_lists",
        "untyped_str_return",
        "untyped_nested_list_return",
        "untyped_many_returns",
        "untyped_many_arguments",
    ] {
        let op = dispatcher.find(&format!("aten::{name}"), "");
        assert!(op.is_ok(), "{name} is registered");
    }
    let _ = MyTensor::cpu();
}
