"""phaselint, the linter for context contracts, as a Python package.

The wheel installs the `phaselint` executable (built from crates/cli) with the
environment's scripts; this package holds no linter of its own. It only finds
that executable, for `python -m phaselint` and for tools that want its path:

    import subprocess
    from phaselint import find_phaselint_bin

    subprocess.run([find_phaselint_bin(), "lint", "contracts/"])
"""

from __future__ import annotations

import os
import sys
import sysconfig

__all__ = ["find_phaselint_bin"]


def find_phaselint_bin() -> str:
    """Return the path of the `phaselint` executable installed with this package.

    An installer puts the executable in the scripts directory of the scheme it
    installed the package with: the environment's (a virtual environment,
    pipx, uv), the user's (`pip install --user`), or DIR/bin for
    `pip install --target DIR`. The scheme whose site-packages holds this
    package is tried first: a phaselint of another scheme is taken only when
    that one has none. Raises FileNotFoundError naming every place it looked.
    """
    exe = "phaselint" + (sysconfig.get_config_var("EXE") or "")
    here = _site_dir()
    # `pip install --target DIR`: DIR/bin beside the package; no other
    # layout has a bin/ inside site-packages.
    candidates = [os.path.join(here, "bin", exe)]
    others = []
    for paths in (sysconfig.get_paths(), sysconfig.get_paths(_user_scheme())):
        script = os.path.join(paths["scripts"], exe)
        if here in (_canonical(paths["purelib"]), _canonical(paths["platlib"])):
            candidates.append(script)
        else:
            others.append(script)
    candidates.extend(others)

    for path in candidates:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(
        "the phaselint executable is not where this package was installed (looked at "
        + ", ".join(dict.fromkeys(candidates))
        + "); reinstall it with `pip install --force-reinstall phaselint`"
    )


def _canonical(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _site_dir() -> str:
    """The directory this package was imported from (its site-packages)."""
    return _canonical(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _user_scheme() -> str:
    """The install scheme of `pip install --user` on this interpreter."""
    if sys.version_info >= (3, 10):
        return sysconfig.get_preferred_scheme("user")
    if os.name == "nt":
        return "nt_user"
    if sys.platform == "darwin" and getattr(sys, "_framework", None):
        return "osx_framework_user"
    return "posix_user"
