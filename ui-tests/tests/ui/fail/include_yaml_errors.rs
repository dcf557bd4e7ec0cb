// `tests/ui/yaml/two_errors.yaml`, copied by `tests/ui.rs` to `CARGO_TARGET_TMPDIR`, which
// is this path from the directory trybuild builds the cases in.
opgen::include_native_functions!("../../../tmp/opgen-ui/two_errors.yaml", tensor = "MyTensor");

fn main() {}
