opgen::include_native_functions!("native_functions.yaml", tensr = "MyTensor");

fn main() {}
