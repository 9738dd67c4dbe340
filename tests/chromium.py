"""Where chromium is, found one way for everything: `.ci/run` (``python3 -m tests.chromium``,
before the venv exists, so the standard library only) and the browser tests.

``CHROMIUM`` (a path) wins; else the first of NAMES on the PATH (Debian's package puts
``/usr/bin/chromium`` there; other systems call it ``chromium-browser``)."""

from __future__ import annotations

import os
import shutil
import sys

NAMES = ("chromium", "chromium-browser")


def find() -> str | None:
    """The chromium executable's path, or None when there is none."""
    given = os.environ.get("CHROMIUM", "").strip()
    if given:
        return given if os.access(given, os.X_OK) else None
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def main() -> int:
    found = find()
    if found is None:
        print(f"no chromium: set CHROMIUM or put one of {', '.join(NAMES)} on the PATH")
        return 1
    print(found)
    return 0


if __name__ == "__main__":
    sys.exit(main())
