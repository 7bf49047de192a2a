"""The PEP 517 backend of this repository: maturin's, plus the native command.

maturin builds the wheel with the extension module `phaselint._native`
(crates/python) and the pure-Python package (python/phaselint). maturin
puts either an extension module or a binary in one wheel, not both, so
this backend then builds the `phaselint` binary (crates/cli) with cargo in
the profile and target directory maturin used, stripped as maturin strips
(`strip = true` in pyproject.toml: `-C strip=symbols` on the final crate),
and adds it to the wheel's `phaselint-<version>.data/scripts/`, with its
line in RECORD. The command then starts natively: no Python in its
start-up. `build_sdist` is maturin's with the workspace's own Cargo.toml
put back: maturin lists only the module's crates as workspace members, and
the command's crate (included by pyproject.toml) must be one to be built.
Every other hook is maturin's.

pyproject.toml names this module with `backend-path`; it needs nothing
but maturin and the standard library.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shlex
import gzip
import io
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from typing import Any, Mapping, Optional

import maturin
from maturin import (  # noqa: F401  (re-exported hooks)
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_wheel,
)

# The binary's package and target, in the workspace maturin builds in.
_BINARY_PACKAGE = "phaselint-cli"
_BINARY = "phaselint"


def _say(message: str) -> None:
    print(f"phaselint_build: {message}", flush=True)


def _profile(config_settings: Optional[Mapping[str, Any]]) -> str:
    """The cargo profile maturin built with: `--profile P` or `--release`/`-r`
    in MATURIN_PEP517_ARGS (or the config settings), else release (maturin's
    PEP 517 default)."""
    args = maturin.get_maturin_pep517_args(config_settings)
    for index, arg in enumerate(args):
        if arg == "--profile" and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith("--profile="):
            return arg.split("=", 1)[1]
    return "release"


def _cargo() -> str:
    return os.environ.get("CARGO", "cargo")


def _target_dir() -> str:
    """The target directory cargo (and so maturin) builds this workspace in."""
    metadata = subprocess.run(
        [_cargo(), "metadata", "--format-version", "1", "--no-deps", "--locked"],
        check=True,
        stdout=subprocess.PIPE,
    ).stdout
    return json.loads(metadata)["target_directory"]


def _build_binary(profile: str) -> str:
    """Builds the command as maturin builds the module; returns its path."""
    command = [
        _cargo(),
        "rustc",
        "--locked",
        "--profile",
        profile,
        "-p",
        _BINARY_PACKAGE,
        "--bin",
        _BINARY,
        "--",
        "-C",
        "strip=symbols",
    ]
    _say("running `" + " ".join(shlex.quote(c) for c in command) + "`")
    subprocess.run(command, check=True, stdout=sys.stderr)
    folder = {"dev": "debug", "test": "debug", "bench": "release"}.get(profile, profile)
    exe = _BINARY + (".exe" if sys.platform == "win32" else "")
    path = os.path.join(_target_dir(), folder, exe)
    if not os.path.isfile(path):
        raise RuntimeError(f"cargo built no {path}")
    return path


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _add_binary(wheel: str, binary: str) -> None:
    """Rewrites `wheel` with `binary` in its scripts data and RECORD."""
    with open(binary, "rb") as f:
        data = f.read()
    with zipfile.ZipFile(wheel) as source:
        names = source.namelist()
        record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
        dist_info = record_name[: -len("/RECORD")]
        data_dir = dist_info[: -len(".dist-info")] + ".data"
        script = f"{data_dir}/scripts/{os.path.basename(binary)}"
        if script in names:
            raise RuntimeError(f"the wheel already has {script}")
        folder = os.path.dirname(wheel)
        handle, temporary = tempfile.mkstemp(dir=folder, suffix=".whl")
        os.close(handle)
        try:
            with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as target:
                for info in source.infolist():
                    if info.filename == record_name:
                        continue
                    target.writestr(info, source.read(info.filename))
                entry = zipfile.ZipInfo(script, date_time=(1980, 1, 1, 0, 0, 0))
                entry.external_attr = (0o100755 & 0xFFFF) << 16
                entry.compress_type = zipfile.ZIP_DEFLATED
                target.writestr(entry, data)
                record = source.read(record_name).decode("utf-8").splitlines()
                lines = [line for line in record if line and not line.startswith(record_name + ",")]
                lines.append(f"{script},{_record_hash(data)},{len(data)}")
                lines.append(f"{record_name},,")
                record_entry = zipfile.ZipInfo(record_name, date_time=(1980, 1, 1, 0, 0, 0))
                record_entry.external_attr = (0o100644 & 0xFFFF) << 16
                record_entry.compress_type = zipfile.ZIP_DEFLATED
                target.writestr(record_entry, "\n".join(lines) + "\n")
            # mkstemp makes it private; a wheel is as readable as maturin's.
            os.chmod(temporary, os.stat(wheel).st_mode & 0o777)
            os.replace(temporary, wheel)
        except BaseException:
            os.unlink(temporary)
            raise
    _say(f"added {script} ({len(data)} bytes) to {os.path.basename(wheel)}")


def build_wheel(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    name = maturin.build_wheel(wheel_directory, config_settings, metadata_directory)
    binary = _build_binary(_profile(config_settings))
    _add_binary(os.path.join(wheel_directory, name), binary)
    return name


def build_sdist(sdist_directory: str, config_settings: Optional[Mapping[str, Any]] = None) -> str:
    name = maturin.build_sdist(sdist_directory, config_settings)
    path = os.path.join(sdist_directory, name)
    with open("Cargo.toml", "rb") as f:
        workspace = f.read()
    top = name[: -len(".tar.gz")]
    manifest = f"{top}/Cargo.toml"
    with tarfile.open(path, "r:gz") as source:
        members = [(m, source.extractfile(m).read() if m.isfile() else None) for m in source.getmembers()]  # type: ignore[union-attr]
    if not any(m.name == manifest for m, _ in members):
        raise RuntimeError(f"the sdist has no {manifest}")
    buffer = io.BytesIO()
    # Written as maturin writes it (gzip, no timestamps from this run).
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped:
        with tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as target:
            for member, data in members:
                if member.name == manifest:
                    data = workspace
                    member.size = len(data)
                target.addfile(member, io.BytesIO(data) if data is not None else None)
    with open(path, "wb") as f:
        f.write(buffer.getvalue())
    _say(f"put the workspace's Cargo.toml (every member) back in {name}")
    return name
