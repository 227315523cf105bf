"""Write the screenshots docs/web.md shows: the review page and the score sheet at phone (390x844)
and desktop (1280x800) sizes, into docs/screenshots/.

They are taken by the browser tests themselves (tests/web/test_web_phone.py, real headless
Chromium against `ginscore serve`), so they show what the tests check. Run from the repository:

    .venv/bin/python docs/make_screenshots.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "screenshots"


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GINSCORE_SCREENSHOTS": str(OUT)}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/web/test_web_phone.py",
        "-k",
        "review_flags or undo_notice or sheet_explains",
    ]
    result = subprocess.run(command, cwd=REPO, env=env)
    for path in sorted(OUT.glob("*.png")):
        print(path.relative_to(REPO))
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
