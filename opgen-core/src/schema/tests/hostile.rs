//! Hostile schemas: nesting far deeper than any real one (R90), parsed, rejected and, at the
//! limit, printed, cloned, compared and dropped on a small stack; and error output that
//! stays small however long the schema and however many its errors.

use crate::schema::{
    EXCERPT_WIDTH, MAX_ERRORS, MAX_ERRORS_PER_LINE, MAX_NESTING, Rule, bounded_text, caret_excerpt,
    more_errors, parse_schema, parse_type, shown_errors,
};

/// The depth the hostile inputs nest to.
const DEEP: usize = 100_000;

/// Runs `f` on a thread with a 256 KiB stack (the main thread has 8 MiB, which hides
/// recursion), and passes its panic on.
pub(crate) fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let thread = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("a thread can be started");
    match thread.join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// `foo(TYPE x) -> Tensor` for a type nested `depth` levels.
fn with_type(suffix: &str, depth: usize) -> String {
    format!("foo(Tensor self, int{} x) -> Tensor", suffix.repeat(depth))
}

#[test]
fn types_nested_a_hundred_thousand_deep_are_r90_on_a_small_stack() {
    on_small_stack(|| {
        for suffix in ["[]", "?", "[]?", "[3]"] {
            let text = with_type(suffix, DEEP);
            let errors = parse_schema(&text).unwrap_err();
            assert_eq!(errors.len(), 1, "{suffix}");
            assert_eq!(errors[0].rule, Rule::TooDeep);
            // The range is the whole type, `int...`, after `Tensor self, `.
            assert_eq!(errors[0].range.start, "foo(Tensor self, ".len());
            assert!(text[errors[0].range.clone()].starts_with("int"));
            let rendered = errors[0].render(&text);
            assert!(rendered.starts_with("error[R90]: the type nests more than 32 levels"));
            assert!(rendered.len() < 1000, "{} bytes", rendered.len());
            assert_eq!(
                parse_type(&text[errors[0].range.clone()]).unwrap_err().rule,
                Rule::TooDeep
            );
        }
        // On the fast path's side too: a deep annotated-free `Tensor` type.
        let text = format!("foo(Tensor{} self) -> Tensor", "?".repeat(DEEP));
        assert_eq!(parse_schema(&text).unwrap_err()[0].rule, Rule::TooDeep);
    });
}

#[test]
fn list_defaults_nested_a_hundred_thousand_deep_are_r90_on_a_small_stack() {
    on_small_stack(|| {
        let default = format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP));
        let text = format!("foo(Tensor self, int[] x={default}) -> Tensor");
        let errors = parse_schema(&text).unwrap_err();
        assert_eq!(errors[0].rule, Rule::TooDeep);
        assert_eq!(&text[errors[0].range.clone()], default);
        // Deep, but written as elements: `[[[1],[2]]]`-like text of the same depth.
        let text = format!(
            "foo(Tensor self, int[] x={}1,2{}) -> Tensor",
            "[".repeat(DEEP),
            "]".repeat(DEEP)
        );
        assert_eq!(parse_schema(&text).unwrap_err()[0].rule, Rule::TooDeep);
    });
}

#[test]
fn the_limit_is_exact_and_what_it_accepts_prints_clones_and_drops_on_a_small_stack() {
    on_small_stack(|| {
        for suffix in ["[]", "?"] {
            let ok = with_type(suffix, MAX_NESTING);
            let schema = parse_schema(&ok).unwrap();
            let copy = schema.clone();
            assert_eq!(copy, schema);
            assert_eq!(copy.to_string(), ok);
            assert!(format!("{copy:?}").len() > MAX_NESTING);
            drop((schema, copy));
            let too_deep = with_type(suffix, MAX_NESTING + 1);
            assert_eq!(parse_schema(&too_deep).unwrap_err()[0].rule, Rule::TooDeep);
        }
        let list = |depth| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let ok = format!("foo(Tensor self, int[] x={}) -> Tensor", list(MAX_NESTING));
        assert_eq!(parse_schema(&ok).unwrap().to_string(), ok);
        let too_deep = format!(
            "foo(Tensor self, int[] x={}) -> Tensor",
            list(MAX_NESTING + 1)
        );
        assert_eq!(parse_schema(&too_deep).unwrap_err()[0].rule, Rule::TooDeep);
    });
    assert_eq!(Rule::TooDeep.id(), "R90");
    assert!(Rule::TooDeep.summary().contains(&MAX_NESTING.to_string()));
}

#[test]
fn library_def_rejects_a_deep_schema_on_a_small_stack() {
    on_small_stack(|| {
        let d = crate::Dispatcher::new();
        let lib = d.library("hostile").unwrap();
        for text in [with_type("[]", DEEP), with_type("?", DEEP)] {
            let message = lib.def(&text).unwrap_err().to_string();
            assert!(message.contains("error[R90]"), "{message}");
            assert!(message.len() < 2000, "{} bytes", message.len());
        }
    });
}

#[cfg(feature = "codegen")]
#[test]
fn the_macro_rejects_a_deep_schema_on_a_small_stack() {
    use quote::quote;
    on_small_stack(|| {
        for text in [with_type("[]", DEEP), with_type("?", DEEP)] {
            let out = crate::codegen::native_function(
                quote!(#text),
                quote!(
                    fn foo_cpu(a: &T) -> T {
                        a.clone()
                    }
                ),
            )
            .to_string();
            assert!(out.contains("[R90]"), "{}", &out[..out.len().min(500)]);
            assert!(out.len() < 4000, "{} bytes", out.len());
        }
    });
}

/// `foo(Tensr a0, Tensr a1, ...)`: one unknown type per argument, on one line.
fn many_errors(arguments: usize) -> String {
    let args: Vec<String> = (0..arguments).map(|i| format!("Tensr a{i}")).collect();
    format!("foo({}) -> Tensor", args.join(", "))
}

#[test]
fn an_error_on_a_long_line_shows_a_window_around_the_caret() {
    let text = many_errors(10_000);
    let errors = parse_schema(&text).unwrap_err();
    assert_eq!(errors.len(), 10_000);
    let last = errors.last().unwrap();
    let rendered = last.render(&text);
    let lines: Vec<&str> = rendered.lines().collect();
    assert!(
        lines[1].starts_with("  ...") && lines[1].ends_with(") -> Tensor"),
        "{rendered}"
    );
    assert!(lines[1].chars().count() <= EXCERPT_WIDTH + 6);
    // The carets sit under `Tensr` in the window.
    let caret = lines[2].find('^').unwrap();
    assert_eq!(&lines[1][caret..caret + 5], "Tensr");
    assert_eq!(lines[2].trim_start(), "^^^^^");
    // In the middle of the line, both ends are cut.
    let middle = caret_excerpt(&text, errors[5_000].range.clone());
    assert!(middle.starts_with("  ...") && middle.lines().next().unwrap().ends_with("..."));
    // A short line is shown whole.
    assert_eq!(
        caret_excerpt("relu(Tensr self) -> Tensor", 5..10),
        "  relu(Tensr self) -> Tensor\n       ^^^^^\n"
    );
}

#[test]
fn long_fragments_in_messages_and_hints_are_shortened() {
    let type_name = format!("Q{}", "x".repeat(200_000));
    let text = format!("foo(Tensor self, {type_name} y) -> Tensor");
    let errors = parse_schema(&text).unwrap_err();
    let rendered = errors[0].render(&text);
    assert!(rendered.len() < 3 * 1024, "{} bytes", rendered.len());
    assert!(errors[0].to_string().len() < 3 * 1024);
    let head = rendered.lines().next().unwrap();
    assert!(head.starts_with("error[R16]: unknown type `Qxxx") && head.ends_with("xxx`"));
    assert!(
        head.contains("xxx...xxx") && head.chars().count() < 1100,
        "{head}"
    );
    assert_eq!(bounded_text("short `one`"), "short `one`");
}

#[test]
fn renderers_show_so_many_errors_per_line_and_in_all() {
    let text = many_errors(500);
    let errors = parse_schema(&text).unwrap_err();
    let (shown, more) = shown_errors(&errors, |_| ());
    assert_eq!(
        (shown.len(), more),
        (MAX_ERRORS_PER_LINE, 500 - MAX_ERRORS_PER_LINE)
    );
    let (shown, more) = shown_errors(&errors, |e| e.range.start);
    assert_eq!((shown.len(), more), (MAX_ERRORS, 400));
    assert_eq!(
        more_errors(1),
        "1 more error not shown; fix the ones above and run again"
    );
}

#[test]
fn windows_count_characters_keep_tabs_and_stop_at_line_breaks() {
    // Multibyte characters and a tab before the offending text, on a long line.
    let line = format!(
        "{}\té{}Tensr x{}",
        "ü".repeat(300),
        "→".repeat(10),
        "ß".repeat(300)
    );
    let text = format!("first line\r{line}\nlast line");
    let start = text.find("Tensr").unwrap();
    let excerpt = caret_excerpt(&text, start..start + 5);
    let lines: Vec<&str> = excerpt.lines().collect();
    assert_eq!(lines.len(), 2, "{excerpt}");
    assert!(
        lines[0].starts_with("  ...") && lines[0].ends_with("..."),
        "{excerpt}"
    );
    assert!(!excerpt.contains("first") && !excerpt.contains("last"));
    // The carets sit under `Tensr`, counted in characters, with the tab kept.
    let caret = lines[1].chars().position(|c| c == '^').unwrap();
    let under: String = lines[0].chars().skip(caret).take(5).collect();
    assert_eq!(under, "Tensr");
    assert!(lines[1].contains('\t'));
    assert!(lines[0].chars().count() <= EXCERPT_WIDTH + 8);
    // Every offset of a short multibyte text renders (ranges are clamped to boundaries).
    let text = "fé(Tensor self, Föö x) -> Tensor";
    for start in 0..=text.len() + 2 {
        for end in start..=text.len() + 2 {
            let _ = caret_excerpt(text, start..end);
        }
    }
}
