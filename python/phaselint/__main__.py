"""`python -m phaselint ARGS...`: run the installed `phaselint` executable.

On POSIX the interpreter is replaced by phaselint (exec), so signals, standard
streams and the exit code are phaselint's own. Windows has no exec that keeps
the process, so there phaselint runs as a child and its exit code is passed on.
"""

from __future__ import annotations

import os
import sys

from phaselint import find_phaselint_bin

# phaselint's own exit code for "no verdict" (usage, unreadable input): a
# missing executable must never look like a clean run (0) or findings (1).
NO_VERDICT = 3


def main() -> None:
    try:
        phaselint = os.fsdecode(find_phaselint_bin())
    except FileNotFoundError as error:
        print(f"phaselint: {error}", file=sys.stderr)
        sys.exit(NO_VERDICT)
    argv = [phaselint, *sys.argv[1:]]
    if sys.platform == "win32":
        import subprocess

        try:
            sys.exit(subprocess.run(argv).returncode)
        except KeyboardInterrupt:
            # The console sent Ctrl+C to phaselint too; it has stopped.
            sys.exit(130)
    os.execv(phaselint, argv)


if __name__ == "__main__":
    main()
