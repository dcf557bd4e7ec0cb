//! Link-time registration: every entry of this program registers, with no warning. (Failed
//! registrations, which stop the program, are tested in the binary `link_errors`.)

use super::*;

#[test]
fn every_link_time_registration_succeeds_silently() {
    let errors: Vec<String> = Dispatcher::global_errors()
        .iter()
        .map(Error::to_string)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let warnings: Vec<String> = Dispatcher::global_warnings()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(warnings.is_empty(), "{warnings:#?}");
    assert!(Dispatcher::try_global().is_ok());
    assert!(Dispatcher::global().dangling_impls().is_empty());
}

#[test]
fn first_calls_from_many_threads_see_every_registration() {
    let threads: Vec<_> = (0..8)
        .map(|i| std::thread::spawn(move || opgen_tests::ops::try_neg(&cpu(&[f64::from(i)]))))
        .collect();
    for (i, thread) in (0..8).zip(threads) {
        let out = thread.join().expect("no panic").expect("registered");
        assert_eq!(out.data(), [-f64::from(i)]);
    }
    assert!(Dispatcher::global().find("vision::nms", "").is_ok());
}

#[test]
fn the_state_dump_names_the_generated_registrations() {
    let dump = Dispatcher::global()
        .find("aten::neg", "")
        .unwrap()
        .dump_state();
    assert!(
        dump.starts_with("name: aten::neg\nschema: aten::neg(Tensor self) -> Tensor\ndebug: registered at tests/src/ops.rs:"),
        "{dump}"
    );
    assert!(
        dump.contains("\nCPU: registered at tests/src/ops.rs:"),
        "{dump}"
    );
    assert!(
        dump.contains(" :: opgen_tests::ops::neg_cpu [ boxed unboxed ]\n"),
        "{dump}"
    );
}

/// An out kernel that returns `()` where its schema returns `out`: registered through an
/// adapter the expansion writes, shown by the kernel's own path.
#[opgen::native_function(
    "copy_probe.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU"
)]
fn copy_probe_out_cpu(self_: &TestTensor, out: &mut TestTensor) {
    *out = self_.clone();
}

#[test]
fn an_adapted_kernel_is_shown_by_its_own_path() {
    let op = Dispatcher::global()
        .find("aten::copy_probe", "out")
        .unwrap();
    let dump = op.dump_state();
    assert!(
        dump.contains(" :: integration::registration::copy_probe_out_cpu [ boxed unboxed ]\n"),
        "{dump}"
    );
    let mut out = cpu(&[0.0]);
    assert_eq!(copy_probe_out(&mut out, &cpu(&[4.0])).data(), [4.0]);
}
