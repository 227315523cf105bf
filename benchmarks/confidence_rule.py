"""How the reading confidence rule and the review flag were chosen, and how far to trust the choice:
runs ``vision.evaluation.confidence_rule`` (its docstring says what it prints).

    python3 benchmarks/confidence_rule.py [--models DIR] [--sets real-val,real-clutter] [--json OUT]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.evaluation.confidence_rule import main

if __name__ == "__main__":
    sys.exit(main())
