opgen::include_native_functions!("no/such/native_functions.yaml", tensor = "MyTensor");

fn main() {}
