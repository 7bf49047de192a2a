//! Writing a file so that a crash never leaves it half written, and only
//! where a regular file is or nothing is (docs/reliability.md): a symbolic
//! link, a FIFO or a device at the target is refused, never replaced or
//! written through.

use std::io::{self, Write};
use std::path::Path;

/// Refuses a target that exists and is not a regular file, or is a link;
/// the permissions of one that is, to keep.
fn check_target(path: &Path) -> io::Result<Option<std::fs::Permissions>> {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => Err(io::Error::other(
            "it is a symbolic link; phaselint writes only regular files and never through a link",
        )),
        Ok(metadata) if !metadata.is_file() => Err(io::Error::other(format!(
            "it is {}, not a regular file; phaselint writes only regular files",
            phaselint_lint::input::describe_file_type(metadata.file_type())
        ))),
        Ok(metadata) => Ok(Some(metadata.permissions())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Opens a report's output file (`--output-file`) for writing, with the
/// same rule: a regular file or nothing, never through a link (the open
/// itself refuses one that appears in between).
pub fn create_output(path: &Path) -> io::Result<std::fs::File> {
    check_target(path)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    options.open(path)
}

/// Writes a temporary file beside `path`, syncs it, and renames it into
/// place. An existing file keeps its permissions.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let permissions = check_target(path)?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or_else(|| "phaselint".into(), |n| n.to_string_lossy().into_owned());
    // `create_new` neither follows nor reuses anything already at the
    // temporary name (a link planted there cannot redirect the write).
    let mut attempt = 0;
    let (temporary, mut file) = loop {
        let temporary = dir.join(format!(
            ".{name}.phaselint-{}-{attempt}.tmp",
            std::process::id()
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
        {
            Ok(file) => break (temporary, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    };
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| match permissions {
            Some(permissions) => std::fs::set_permissions(&temporary, permissions),
            None => Ok(()),
        })
        .and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}
