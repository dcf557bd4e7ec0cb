//! Every diagnostic of `#[native_function]` and `include_native_functions!`, frozen in
//! `tests/ui/fail/*.stderr`, and the forms that must compile (and run) in `tests/ui/pass`. Bless with `TRYBUILD=overwrite`
//! and read the diff. The `.stderr` files are exact for the pinned toolchain (1.95).

#[test]
fn ui() {
    // trybuild builds the cases in `<target>/tests/trybuild/<crate>/`, their
    // `CARGO_MANIFEST_DIR`; yaml fixtures go where a relative path from there reaches them
    // whatever the target directory: `<target>/tmp`.
    let fixtures = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("opgen-ui");
    std::fs::create_dir_all(&fixtures).expect("creates the fixture directory");
    let yaml = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/yaml");
    for entry in std::fs::read_dir(yaml).expect("reads tests/ui/yaml") {
        let path = entry.expect("lists tests/ui/yaml").path();
        if let Some(name) = path.file_name() {
            std::fs::copy(&path, fixtures.join(name)).expect("copies a yaml fixture");
        }
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
