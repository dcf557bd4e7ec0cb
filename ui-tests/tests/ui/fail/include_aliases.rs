// Nested aliases that would stand for 10^10 nodes ("billion laughs"): refused at the alias
// that passes the budget, by position.
opgen::include_native_functions!("../../../tmp/opgen-ui/laughs.yaml", tensor = "MyTensor");

fn main() {}
