//! The tour's text is the committed `example/tour.txt`, which `example/README.md` shows
//! between `<!-- tour -->` markers. `OPGEN_BLESS=1 cargo test -p opgen-example tour`
//! rewrites both.

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tour.txt");
const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
const START: &str = "<!-- tour -->\n```text\n";
const END: &str = "```\n<!-- /tour -->";

/// The README with `text` between the markers.
fn readme_with(readme: &str, text: &str) -> Option<String> {
    let start = readme.find(START)? + START.len();
    let end = start + readme[start..].find(END)?;
    Some(format!("{}{text}{}", &readme[..start], &readme[end..]))
}

/// `text` without the line and column numbers of source locations (`file.rs:12:5` →
/// `file.rs`), which move with every edit of the files the dispatch table names.
fn without_line_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(".rs:") {
        out.push_str(&rest[..at + 3]);
        rest = rest[at + 3..].trim_start_matches(|c: char| c == ':' || c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

#[test]
fn the_tour_prints_the_committed_text() {
    let text = crate::tour::tour().expect("the tour runs");
    let readme = std::fs::read_to_string(README).expect("example/README.md");
    if std::env::var_os("OPGEN_BLESS").is_some() {
        std::fs::write(PATH, &text).expect("write tour.txt");
        let updated = readme_with(&readme, &text).expect("README markers");
        std::fs::write(README, updated).expect("write README.md");
        return;
    }
    let committed = std::fs::read_to_string(PATH).expect("example/tour.txt");
    assert_eq!(
        without_line_numbers(&committed),
        without_line_numbers(&text),
        "the tour's output changed: rerun with OPGEN_BLESS=1 to update example/tour.txt"
    );
    assert_eq!(
        readme_with(&readme, &committed).as_deref(),
        Some(readme.as_str()),
        "example/README.md does not show example/tour.txt: rerun with OPGEN_BLESS=1"
    );
    assert!(
        text.lines().count() <= 80,
        "keep the tour compact: {} lines",
        text.lines().count()
    );
}

#[test]
fn line_numbers_are_ignored() {
    assert_eq!(
        without_line_numbers("CPU: kernel (example/src/ops/a.rs:146:1)\nx.rs: y"),
        "CPU: kernel (example/src/ops/a.rs)\nx.rs y"
    );
}
