#![allow(dead_code)] // each target uses some of these
//! What every rendered error must stay within, whatever the input: the bounds the renderers
//! promise (`opgen_core::schema::{EXCERPT_WIDTH, MAX_MESSAGE, MAX_ERRORS}`), shared by the
//! fuzz targets. A renderer that echoed a whole line, or a fragment without bound, fails them.

use opgen_core::schema::{EXCERPT_WIDTH, MAX_ERRORS, MAX_MESSAGE};

/// The most characters one rendered error may have: a head and a hint (each a bounded
/// message with a file name or rule id around it), a window of the source line with its
/// caret line, and the `opgen explain` line.
pub const MAX_RENDERED_CHARS: usize = 2 * (MAX_MESSAGE + 200) + 2 * (EXCERPT_WIDTH + 10) + 100;

/// Asserts that one rendered error is within [`MAX_RENDERED_CHARS`].
#[track_caller]
pub fn check_rendered(rendered: &str) {
    let chars = rendered.chars().count();
    assert!(
        chars <= MAX_RENDERED_CHARS,
        "a rendered error has {chars} characters, more than {MAX_RENDERED_CHARS}: {}",
        rendered.chars().take(300).collect::<String>()
    );
}

/// The most characters the `compile_error!`s of one macro call may have, once rustc's
/// string escapes (at most 10 characters per character, `\u{10ffff}`) are counted.
pub const MAX_COMPILE_ERRORS_CHARS: usize = (MAX_ERRORS + 1) * (MAX_RENDERED_CHARS * 10 + 100);
