//! Writing a file so that a crash never leaves it half written.

use std::io::Write;
use std::path::Path;

/// Writes a temporary file beside `path`, syncs it, and renames it into
/// place. An existing file keeps its permissions.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or_else(|| "phaselint".into(), |n| n.to_string_lossy().into_owned());
    let temporary = dir.join(format!(".{name}.phaselint-{}.tmp", std::process::id()));
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let written = std::fs::File::create(&temporary)
        .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_all()))
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
