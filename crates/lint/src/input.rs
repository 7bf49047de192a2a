//! The one way phaselint reads what comes from outside (contracts,
//! configurations, contexts, approvals, harness grants, standard input):
//! with a size bound, and only from regular files (docs/reliability.md).
//! A FIFO, a device or a directory is refused without being waited on, and
//! nothing grows past its bound however much the source would give. Files
//! that are hashed, not held (a manifest's scope), are read in blocks up to
//! their size and no further (`sha256_regular`).

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Mebibytes, for bounds.
const MIB: u64 = 1024 * 1024;

/// Bounds on each kind of input (documented in docs/reliability.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// A contract or harness config: beyond it, E007.
    Contract,
    /// `phaselint.toml` or `pyproject.toml`.
    Config,
    /// A resume context or a checkpoint manifest.
    Document,
    /// One `--approvals` file (a few records; all of them together are
    /// bounded too, by the resume check).
    Approvals,
    /// A harness sentinel: a request `checkpoint-<name>.md`, its grant
    /// `.md.granted`, or the `.fired` marker.
    Sentinel,
}

impl Bound {
    pub const fn bytes(self) -> u64 {
        match self {
            Bound::Contract | Bound::Document => 32 * MIB,
            Bound::Config => 4 * MIB,
            Bound::Approvals | Bound::Sentinel => MIB,
        }
    }
}

/// `33554432 bytes (32 MiB)`: a bound as messages show it.
pub fn describe(bytes: u64) -> String {
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{bytes} bytes ({} MiB)", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// Why an input could not be read.
#[derive(Debug)]
pub enum InputError {
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// Not a regular file: what it is instead ("a FIFO").
    NotAFile { path: PathBuf, kind: &'static str },
    TooLarge {
        path: PathBuf,
        bound: u64,
        /// The size when the file system says it; unknown for a stream.
        size: Option<u64>,
    },
    /// A file that gave more or fewer bytes than its size while it was
    /// hashed: a `/proc` or `/sys` file, or one being written to.
    Unstable {
        path: PathBuf,
        size: u64,
        /// More bytes than the size (else fewer).
        more: bool,
    },
}

impl InputError {
    /// What went wrong, without the file's name: "it is a FIFO, not a
    /// regular file".
    pub fn reason(&self) -> String {
        match self {
            InputError::Io { error, .. } => error.to_string(),
            InputError::NotAFile { kind, .. } => {
                format!("it is {kind}, not a regular file (phaselint reads only regular files)")
            }
            InputError::TooLarge { bound, size, .. } => {
                let size = size.map_or(String::new(), |size| format!("{size} bytes, "));
                format!("it is {size}larger than the limit of {}", describe(*bound))
            }
            InputError::Unstable {
                size, more: true, ..
            } => format!(
                "it gave more bytes than its size ({size} bytes) says: it is a file of /proc or /sys, or one being written to, and only regular files that keep their size are hashed"
            ),
            InputError::Unstable {
                size, more: false, ..
            } => format!("it ended before its size ({size} bytes): it changed while it was read"),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        match self {
            InputError::Io { path, .. }
            | InputError::NotAFile { path, .. }
            | InputError::TooLarge { path, .. }
            | InputError::Unstable { path, .. } => path,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read {}: {}", shown(self.path()), self.reason())
    }
}

impl std::error::Error for InputError {}

/// `standard input` for `-`, otherwise the path in backquotes.
fn shown(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "standard input".into()
    } else {
        format!("`{}`", path.display())
    }
}

/// What a file that is not a regular one is, for messages ("a FIFO").
pub fn describe_file_type(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading without blocking: opening a FIFO that has no
/// writer would otherwise wait forever, before any check could refuse it.
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    options.open(path)
}

/// Reads a regular file of at most `bound` bytes (following symbolic links).
pub fn read_file(path: &Path, bound: Bound) -> Result<Vec<u8>, InputError> {
    read_file_within(path, bound.bytes())
}

/// Reads a regular file of at most `bound` bytes that is not a symbolic
/// link, with its metadata taken from the same open file (so the bytes and
/// the time they were written belong together). `Ok(None)` when nothing
/// is at `path`; a link, even to a regular file, is `NotAFile`.
pub fn read_file_no_follow(
    path: &Path,
    bound: Bound,
) -> Result<Option<(Vec<u8>, std::fs::Metadata)>, InputError> {
    let io = |error| InputError::Io {
        path: path.to_path_buf(),
        error,
    };
    let link = || InputError::NotAFile {
        path: path.to_path_buf(),
        kind: "a symbolic link",
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(
            (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW).bits() as i32,
        );
    }
    #[cfg(not(unix))]
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(link());
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A link to nothing is something there, never nothing.
            return match std::fs::symlink_metadata(path) {
                Ok(_) => Err(link()),
                Err(_) => Ok(None),
            };
        }
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Err(link());
        }
        Err(e) => return Err(io(e)),
    };
    let metadata = file.metadata().map_err(io)?;
    if !metadata.is_file() {
        return Err(InputError::NotAFile {
            path: path.to_path_buf(),
            kind: describe_file_type(metadata.file_type()),
        });
    }
    let bound = bound.bytes();
    if metadata.len() > bound {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            bound,
            size: Some(metadata.len()),
        });
    }
    let bytes = read_within(file, path, bound, metadata.len())?;
    Ok(Some((bytes, metadata)))
}

/// `read_file` with a bound in bytes.
pub(crate) fn read_file_within(path: &Path, bound: u64) -> Result<Vec<u8>, InputError> {
    let io = |error| InputError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = open(path).map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    if !metadata.is_file() {
        return Err(InputError::NotAFile {
            path: path.to_path_buf(),
            kind: describe_file_type(metadata.file_type()),
        });
    }
    if metadata.len() > bound {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            bound,
            size: Some(metadata.len()),
        });
    }
    read_within(file, path, bound, metadata.len())
}

/// The lower-case hex SHA-256 and the size of an opened file, which must
/// be a regular file of at most `bound` bytes that keeps its size while it
/// is read. It is read in blocks (a file of any size costs one buffer of
/// memory) and never past its size: a `/proc` or `/sys` file, whose size
/// says nothing of what it gives, and a file being written to are refused
/// (`Unstable`) instead of hashed for ever or half. `path` is for messages.
pub(crate) fn sha256_regular(
    mut file: std::fs::File,
    path: &Path,
    bound: u64,
) -> Result<(String, u64), InputError> {
    use sha2::Digest;
    let io = |error| InputError::Io {
        path: path.to_path_buf(),
        error,
    };
    let metadata = file.metadata().map_err(io)?;
    if !metadata.is_file() {
        return Err(InputError::NotAFile {
            path: path.to_path_buf(),
            kind: describe_file_type(metadata.file_type()),
        });
    }
    let size = metadata.len();
    if size > bound {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            bound,
            size: Some(size),
        });
    }
    let mut hasher = sha2::Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut read = 0u64;
    // One byte more than the size, to see whether the file ends there.
    while read <= size {
        let want = (size - read + 1).min(buffer.len() as u64) as usize;
        match file.read(&mut buffer[..want]) {
            Ok(0) => break,
            Ok(n) => {
                let n = n.min(want);
                let hashed = n.min((size - read) as usize);
                hasher.update(&buffer[..hashed]);
                read += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        }
    }
    if read != size {
        return Err(InputError::Unstable {
            path: path.to_path_buf(),
            size,
            more: read > size,
        });
    }
    Ok((hex(&hasher.finalize()), size))
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Reads a stream (standard input) of at most `bound` bytes.
pub fn read_stream(stream: impl Read, name: &Path, bound: Bound) -> Result<Vec<u8>, InputError> {
    read_within(stream, name, bound.bytes(), 0)
}

fn read_within(
    stream: impl Read,
    path: &Path,
    bound: u64,
    expected: u64,
) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::with_capacity(expected.min(bound) as usize);
    stream
        .take(bound + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| InputError::Io {
            path: path.to_path_buf(),
            error,
        })?;
    // A file that grew while being read, or a stream, past the bound.
    if bytes.len() as u64 > bound {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            bound,
            size: None,
        });
    }
    Ok(bytes)
}

/// The E007 message of a file over the size bound.
pub(crate) fn oversized(size: Option<u64>, bound: u64) -> String {
    match size {
        Some(size) => format!(
            "file is {size} bytes, over the limit of {}",
            describe(bound)
        ),
        None => format!("file is over the limit of {}", describe(bound)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_read_as_messages_say() {
        assert_eq!(describe(Bound::Contract.bytes()), "33554432 bytes (32 MiB)");
        assert_eq!(describe(1000), "1000 bytes");
    }

    #[test]
    fn streams_stop_at_their_bound() {
        let endless = std::io::repeat(b'x');
        let error = read_stream(endless, Path::new("-"), Bound::Sentinel).unwrap_err();
        assert_eq!(
            error.to_string(),
            "cannot read standard input: it is larger than the limit of 1048576 bytes (1 MiB)"
        );
        let small = read_stream(&b"abc"[..], Path::new("-"), Bound::Sentinel).unwrap();
        assert_eq!(small, b"abc");
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_directories_are_refused_without_reading() {
        let error = read_file(Path::new("/dev/zero"), Bound::Config).unwrap_err();
        assert!(
            matches!(
                error,
                InputError::NotAFile {
                    kind: "a character device",
                    ..
                }
            ),
            "{error}"
        );
        let error = read_file(Path::new("/"), Bound::Config).unwrap_err();
        assert!(
            matches!(
                error,
                InputError::NotAFile {
                    kind: "a directory",
                    ..
                }
            ),
            "{error}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn hashing_reads_a_regular_file_to_its_size_and_no_further() {
        let open = |path: &str| std::fs::File::open(path).unwrap();
        // Says 0 bytes, gives more.
        let error =
            sha256_regular(open("/proc/self/status"), Path::new("status"), 1024).unwrap_err();
        assert!(
            matches!(
                error,
                InputError::Unstable {
                    size: 0,
                    more: true,
                    ..
                }
            ),
            "{error}"
        );
        let error = sha256_regular(open("/dev/zero"), Path::new("zero"), 1024).unwrap_err();
        assert!(
            matches!(
                error,
                InputError::NotAFile {
                    kind: "a character device",
                    ..
                }
            ),
            "{error}"
        );
        let dir = std::env::temp_dir().join(format!("phaselint-input-{}", std::process::id()));
        std::fs::write(&dir, b"abc").unwrap();
        let (sha, size) = sha256_regular(open(dir.to_str().unwrap()), &dir, 3).unwrap();
        assert_eq!(size, 3);
        assert_eq!(
            sha,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let error = sha256_regular(open(dir.to_str().unwrap()), &dir, 2).unwrap_err();
        assert!(
            matches!(error, InputError::TooLarge { size: Some(3), .. }),
            "{error}"
        );
        let _ = std::fs::remove_file(&dir);
    }
}
