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
/// place. The temporary file is created with the target's permissions
/// (so a 0600 contract is never readable by others, not even while it is
/// written) and set to exactly them before a byte is written; a new file
/// is 0600 (only its owner reads what phaselint wrote until they widen it:
/// approvals and fixed contracts may hold what others should not read).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(path, bytes, OWNER_ONLY)
}

/// As [`write_atomically`], for a file meant to be shared (a baseline,
/// committed beside the contracts): a new one gets the mode any editor
/// would give it, 0666 less the umask; an existing one keeps its own.
pub fn write_shared_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(path, bytes, AS_THE_UMASK_ALLOWS)
}

/// The mode a new file is created with; the umask still applies.
const OWNER_ONLY: u32 = 0o600;
const AS_THE_UMASK_ALLOWS: u32 = 0o666;

fn write_atomically_with(path: &Path, bytes: &[u8], new_file_mode: u32) -> io::Result<()> {
    let permissions = check_target(path)?;
    let (temporary, mut file) = create_temporary(path, permissions.as_ref(), new_file_mode)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Writes a new file at `path`, complete or not at all, never over
/// anything there (a file, a link, a directory): the bytes go to a
/// temporary file beside it, which is then linked to `path` (a link fails
/// when anything is at `path`, atomically) and removed. `Ok(false)` when
/// something is already at `path`. The file is readable by all (0644), as
/// a harness's own files are.
pub fn write_new(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    #[cfg(unix)]
    let readable = {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o644))
    };
    #[cfg(not(unix))]
    let readable: Option<std::fs::Permissions> = None;
    let (temporary, mut file) = create_temporary(path, readable.as_ref(), OWNER_ONLY)?;
    let linked = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::hard_link(&temporary, path));
    let _ = std::fs::remove_file(&temporary);
    match linked {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// Creates the temporary file beside `path` with `O_EXCL`, which neither
/// follows nor reuses anything already at its name (a link planted there
/// cannot redirect the write), with the mode of the file it will replace,
/// or `new_file_mode` (less the umask) when there is none.
fn create_temporary(
    path: &Path,
    permissions: Option<&std::fs::Permissions>,
    new_file_mode: u32,
) -> io::Result<(std::path::PathBuf, std::fs::File)> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or_else(|| "phaselint".into(), |n| n.to_string_lossy().into_owned());
    let mut attempt = 0;
    loop {
        let temporary = dir.join(format!(
            ".{name}.phaselint-{}-{attempt}.tmp",
            std::process::id()
        ));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            // The umask can only take bits away: never more open than the target.
            options.mode(permissions.map_or(new_file_mode, |p| p.mode() & 0o777));
        }
        match options.open(&temporary) {
            Ok(file) => {
                // Exactly the target's permissions (the bits the umask took
                // away, too), before anything is written.
                if let Some(permissions) = permissions
                    && let Err(e) = file.set_permissions(permissions.clone())
                {
                    let _ = std::fs::remove_file(&temporary);
                    return Err(e);
                }
                return Ok((temporary, file));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn the_temporary_file_has_the_targets_mode_before_a_byte_is_written() {
        let dir = tempfile::tempdir().unwrap();
        for target_mode in [0o600, 0o640, 0o664, 0o400] {
            let target = dir.path().join(format!("c-{target_mode:o}.contract.yaml"));
            std::fs::write(&target, "secret: 1\n").unwrap();
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(target_mode))
                .unwrap();
            let permissions = check_target(&target).unwrap();
            let (temporary, file) =
                create_temporary(&target, permissions.as_ref(), OWNER_ONLY).unwrap();
            assert_eq!(file.metadata().unwrap().len(), 0);
            assert_eq!(mode(&temporary), target_mode, "{}", temporary.display());
            drop(file);
            std::fs::remove_file(&temporary).unwrap();
            write_atomically(&target, b"secret: 2\n").unwrap();
            assert_eq!(mode(&target), target_mode);
            assert_eq!(std::fs::read(&target).unwrap(), b"secret: 2\n");
        }
        // A new file (an approval written with --output) is its owner's only.
        let new = dir.path().join("approval.json");
        let (temporary, file) = create_temporary(&new, None, OWNER_ONLY).unwrap();
        assert_eq!(mode(&temporary), 0o600);
        drop(file);
        std::fs::remove_file(&temporary).unwrap();
        write_atomically(&new, b"{}\n").unwrap();
        assert_eq!(mode(&new), 0o600);
        // Nothing is left behind.
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().contains(".phaselint-"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }

    /// A new shared file (a baseline) is as readable as the umask allows.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_new_shared_file_is_as_readable_as_the_umask_allows() {
        let dir = tempfile::tempdir().unwrap();
        // (Read, not set: setting it would race with the other tests.)
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let umask = status
            .lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .map(|m| u32::from_str_radix(m.trim(), 8).unwrap())
            .unwrap();
        let shared = dir.path().join("phaselint-baseline.json");
        write_shared_atomically(&shared, b"{}\n").unwrap();
        assert_eq!(mode(&shared), 0o666 & !umask);
    }
}
