//! Hostile yaml files: aliases that expand without bound, nesting far deeper than any real
//! file, a long line with thousands of errors, and what PyYAML refuses (a NUL byte, a second
//! document) or accepts (a byte order mark, lone `\r` line ends). Every input is made here.

use std::time::Instant;

use super::{errors, load};
use crate::native::{LoadError, MAX_FILE_SIZE, load_native_functions, read_yaml_file};
use crate::schema::{Rule, tests::hostile::on_small_stack};

/// `levels` anchors, each a list of ten aliases of the one before: 10^levels leaves in a
/// few hundred bytes ("billion laughs").
fn laughs(levels: usize) -> String {
    let mut text = String::from("- &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..levels {
        let aliases = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("- &a{i} [{aliases}]\n"));
    }
    text
}

#[test]
fn nested_aliases_are_refused_where_they_pass_the_budget() {
    let start = Instant::now();
    let text = laughs(10);
    assert!(text.len() < 600);
    let e = &errors(&text)[0];
    assert!(
        e.rule.is_none() && e.message.contains("anchors and aliases expand"),
        "{e}"
    );
    // The fourth anchor's aliases pass it (10^4 nodes from a 300-byte file).
    assert!((3..=5).contains(&e.line), "{e}");
    assert!(
        e.source_line.is_empty(),
        "a file that is no valid yaml is not echoed"
    );
    assert!(start.elapsed().as_secs() < 10);
    // tags.yaml is read by the same loader.
    let e = &load_native_functions("", &laughs(10)).unwrap_err()[0];
    assert_eq!(e.file, "tags.yaml");
    assert!(e.message.contains("anchors and aliases expand"), "{e}");
}

#[test]
fn aliases_within_the_budget_load() {
    let mut text = String::from(
        "- func: f0(Tensor self) -> Tensor\n  dispatch: &cpu\n    CPU: k\n    CUDA: k\n",
    );
    for i in 1..50 {
        text.push_str(&format!(
            "- func: f{i}(Tensor self) -> Tensor\n  dispatch: *cpu\n"
        ));
    }
    let nf = load(&text).unwrap();
    assert_eq!(nf.entries().len(), 50);
    assert_eq!(nf.entries()[49].dispatch.entries.len(), 2);
}

#[test]
fn deep_nesting_is_refused_on_a_small_stack() {
    on_small_stack(|| {
        const DEEP: usize = 100_000;
        for text in [
            // Flow collections, block sequences on one line, and a deep type in a schema.
            format!("- func: {}{}\n", "[".repeat(DEEP), "]".repeat(DEEP)),
            format!("{}x\n", "- ".repeat(DEEP)),
            format!("- func: foo(int{} x) -> Tensor\n", "[]".repeat(DEEP)),
            format!(
                "- func: foo(int[] x={}{}) -> ()\n",
                "[".repeat(DEEP),
                "]".repeat(DEEP)
            ),
        ] {
            let errors = load(&text).unwrap_err();
            let e = &errors[0];
            assert_eq!(e.line, 1, "{e}");
            assert!(e.render().len() < 2000);
            if let Some(rule) = e.rule {
                assert_eq!(rule, Rule::TooDeep);
            }
        }
    });
}

#[test]
fn a_long_line_with_thousands_of_errors_is_located_in_linear_time() {
    let args: Vec<String> = (0..5_000).map(|i| format!("Tensr a{i}")).collect();
    let text = format!("- func: foo({}) -> Tensor\n", args.join(", "));
    let start = Instant::now();
    let errors = errors(&text);
    assert_eq!(errors.len(), 5_000);
    let last = errors.last().unwrap();
    let column = text.rfind("Tensr").unwrap() + 1;
    assert_eq!((last.line, last.column, last.width), (1, column, 5));
    assert!(last.source_line.starts_with("...") && last.source_line.ends_with(") -> Tensor"));
    let under = &last.source_line[last.source_column - 1..];
    assert!(under.starts_with("Tensr a4999"), "{under}");
    assert!(errors.iter().all(|e| e.render().len() < 1000));
    assert!(start.elapsed().as_secs() < 10);
}

#[test]
fn a_nul_byte_a_second_document_and_content_after_a_document_end_are_refused() {
    let good = "- func: relu(Tensor self) -> Tensor\n";
    let bad = "- func: bad(Tensr x) -> Tensor\n";
    for (text, line, col, says) in [
        (
            format!("{good}\0\n{bad}"),
            2,
            1,
            "unacceptable character #x0000",
        ),
        (
            format!("{good}\u{7}{bad}"),
            2,
            1,
            "unacceptable character #x0007",
        ),
        (
            format!("{good}---\n{bad}"),
            2,
            1,
            "expected a single document",
        ),
        (
            format!("{good}...\n{bad}"),
            3,
            1,
            "expected a single document",
        ),
        (format!("{good}---\n"), 2, 1, "expected a single document"),
    ] {
        let errors = errors(&text);
        let e = &errors[0];
        assert_eq!((e.line, e.column), (line, col), "{e}");
        assert!(e.message.contains(says), "{e}");
        assert!(e.source_line.is_empty());
    }
    // A document end with nothing after it, and an explicit start, are one document.
    assert_eq!(load(&format!("{good}...\n")).unwrap().entries().len(), 1);
    assert_eq!(load(&format!("---\n{good}")).unwrap().entries().len(), 1);
}

#[test]
fn a_byte_order_mark_is_skipped_and_lone_cr_ends_lines() {
    let nf = load("\u{feff}- func: relu(Tensor self) -> Tensor\n").unwrap();
    assert_eq!(nf.entries().len(), 1);
    let e = &errors("\u{feff}- func: bad(Tensr x) -> Tensor\n")[0];
    assert_eq!((e.line, e.column), (1, 13));
    for newline in ["\r", "\r\n", "\n"] {
        let text = format!(
            "- func: relu(Tensor self) -> Tensor{newline}{newline}- func: bad(Tensr x) -> Tensor{newline}"
        );
        let e = &errors(&text)[0];
        assert_eq!((e.line, e.column), (3, 13), "{newline:?}");
        assert_eq!(e.source_line, "- func: bad(Tensr x) -> Tensor");
    }
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("opgen-hostile-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn reading_refuses_devices_fifos_directories_large_files_and_non_utf8() {
    let message = |path: &std::path::Path| read_yaml_file(path).unwrap_err().to_string();
    #[cfg(unix)]
    {
        let start = Instant::now();
        assert!(message("/dev/zero".as_ref()).contains("not a regular file (a character device)"));
        let fifo = temp_dir("fifo").join("fifo.yaml");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert!(message(&fifo).contains("not a regular file (a FIFO)"));
        }
        assert!(start.elapsed().as_secs() < 10);
    }
    let dir = temp_dir("read");
    assert!(message(&dir).contains("not a regular file (a directory)"));
    let big = dir.join("big.yaml");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(MAX_FILE_SIZE + 1).unwrap();
    let e = read_yaml_file(&big).unwrap_err();
    assert_eq!(e.line, 0);
    assert!(
        e.to_string()
            .ends_with("error: the file is larger than 16 MiB, the most opgen reads")
    );
    file.set_len(MAX_FILE_SIZE).unwrap();
    assert_eq!(read_yaml_file(&big).unwrap().len() as u64, MAX_FILE_SIZE);
    let latin1 = dir.join("latin1.yaml");
    std::fs::write(
        &latin1,
        b"- func: relu(Tensor self) -> Tensor\r- func: caf\xe9\n",
    )
    .unwrap();
    let e: LoadError = read_yaml_file(&latin1).unwrap_err();
    assert_eq!((e.line, e.column), (2, 12));
    assert!(
        e.message.contains("not UTF-8") && e.source_line.is_empty(),
        "{e}"
    );
    assert!(std::fs::remove_dir_all(&dir).is_ok());
}

#[test]
fn a_file_that_is_no_yaml_list_is_named_not_shown() {
    let secret = "SECRET_TOKEN=abc123";
    let e = &errors(&format!("{secret} PATH=/usr/bin\n"))[0];
    assert_eq!(e.rule, Some(Rule::EntryFunc));
    assert!(!e.render().contains(secret), "{}", e.render());
    let e = &errors(&format!("{secret}\0OTHER=1\0"))[0];
    assert!(!e.render().contains(secret), "{}", e.render());
}

#[cfg(feature = "codegen")]
#[test]
fn include_native_functions_reports_hostile_files_by_position_in_bounded_output() {
    use crate::codegen::include_native_functions_in;
    use crate::schema::MAX_ERRORS_PER_LINE;
    use quote::quote;
    let dir = temp_dir("include");
    let include =
        |path: &str| include_native_functions_in(&dir, quote!(#path, tensor = "T")).to_string();
    std::fs::write(dir.join("laughs.yaml"), laughs(10)).unwrap();
    let out = include("laughs.yaml");
    assert!(
        out.contains("laughs.yaml:3:") && out.contains("anchors and aliases expand"),
        "{out}"
    );
    assert!(out.len() < 1000, "{out}");
    let args: Vec<String> = (0..5_000).map(|i| format!("Tensr a{i}")).collect();
    let many = format!("- func: foo({}) -> Tensor\n", args.join(", "));
    std::fs::write(dir.join("many.yaml"), many).unwrap();
    let out = include("many.yaml");
    assert_eq!(
        out.matches("compile_error").count(),
        MAX_ERRORS_PER_LINE + 1
    );
    assert!(
        out.contains("4990 more errors not shown"),
        "{}",
        &out[out.len() - 300..]
    );
    assert!(out.len() < 20 * 1024, "{} bytes", out.len());
    #[cfg(target_os = "linux")]
    {
        let out = include("/proc/self/environ");
        assert!(out.contains("/proc/self/environ:1:"), "{out}");
        assert!(!out.contains("CARGO_MANIFEST_DIR="), "{out}");
        assert!(out.len() < 1000, "{out}");
    }
    let out = include("/dev/zero");
    assert!(
        out.contains("not a regular file (a character device)"),
        "{out}"
    );
    assert!(std::fs::remove_dir_all(&dir).is_ok());
}

#[cfg(feature = "codegen")]
#[test]
fn the_macro_reports_a_long_schema_with_many_errors_in_bounded_output() {
    use crate::schema::MAX_ERRORS;
    use quote::quote;
    let args: Vec<String> = (0..10_000).map(|i| format!("Tensr a{i}")).collect();
    let schema = format!("foo({}) -> Tensor", args.join(", "));
    assert!(schema.len() > 110_000);
    let out = crate::codegen::native_function(
        quote!(#schema),
        quote!(
            fn foo_cpu(a: &T) -> T {
                a.clone()
            }
        ),
    )
    .to_string();
    assert_eq!(out.matches("compile_error").count(), MAX_ERRORS + 1);
    assert!(out.contains("9900 more errors not shown"));
    assert!(out.len() < 200 * 1024, "{} bytes", out.len());
    assert!(!out.contains("error["), "rustc says `error` itself");
}
