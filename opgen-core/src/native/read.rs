//! Reading a yaml file from disk, the one way the CLI, `include_native_functions!` and
//! [`load_native_functions_from_paths`](super::load_native_functions_from_paths) read one:
//! a regular file of at most [`MAX_FILE_SIZE`] bytes of UTF-8 text.

use std::io::Read;
use std::path::Path;

use super::LoadError;

/// The largest file read, in bytes (16 MiB; PyTorch's `native_functions.yaml` is about
/// 0.6 MiB). A larger file is refused rather than read: loading costs memory in proportion
/// to the file, and a path such as `/dev/zero` never ends.
pub const MAX_FILE_SIZE: u64 = 16 * 1024 * 1024;

/// Reads the yaml file at `path` as text. Refuses what is not a regular file (a directory,
/// a FIFO, a device such as `/dev/zero`: reading one may never end), a file larger than
/// [`MAX_FILE_SIZE`] (even one whose size the system does not report, as in `/proc`), and
/// a file that is not UTF-8 (located at the first invalid byte, never echoed). A leading
/// byte order mark is kept; the loader skips it.
///
/// ```
/// use opgen_core::native::read_yaml_file;
/// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
/// let text = read_yaml_file(&dir.join("tests/data/tags.yaml")).unwrap();
/// assert!(text.contains("- tag: core"));
/// let e = read_yaml_file(&dir.join("tests/data")).unwrap_err();
/// assert!(e.to_string().ends_with("data: error: the path is not a regular file (a directory); give a yaml file"), "{e}");
/// ```
///
/// # Errors
///
/// A [`LoadError`] without rule, naming the path as given: located at the first invalid
/// byte of a file that is not UTF-8; about the whole file (line 0) otherwise.
// The error is the loader's, as large as any of its errors; a read fails once per file.
#[allow(clippy::result_large_err)]
pub fn read_yaml_file(path: &Path) -> Result<String, LoadError> {
    let name = path.display().to_string();
    let refuse = |message: String| LoadError::in_file(&name, None, message);
    let io = |e: std::io::Error| refuse(format!("cannot read the file: {e}"));
    // Checked before opening: opening a FIFO waits for a writer.
    let kind = std::fs::metadata(path).map_err(io)?.file_type();
    if !kind.is_file() {
        return Err(refuse(format!(
            "the path is not a regular file ({}); give a yaml file",
            describe(kind)
        )));
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_SIZE + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(refuse(format!(
            "the file is larger than {} MiB, the most opgen reads",
            MAX_FILE_SIZE >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        // Only the valid prefix is looked at, to count lines as YAML does.
        let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
        let (line, column) = super::yaml::line_and_column(prefix, prefix.len());
        LoadError::in_file(
            &name,
            Some((line, column + 1)),
            format!(
                "the file is not UTF-8 text (invalid byte #x{:02x} here)",
                bytes[valid]
            ),
        )
    })
}

/// What a file that is not a regular file is, for the message.
fn describe(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}
