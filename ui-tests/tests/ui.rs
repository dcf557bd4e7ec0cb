//! Every diagnostic of `#[native_function]`, frozen in `tests/ui/fail/*.stderr`, and the
//! forms that must compile (and run) in `tests/ui/pass`. Bless with `TRYBUILD=overwrite`
//! and read the diff. The `.stderr` files are exact for the pinned toolchain (1.95).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
