"""read_at_padding.py PADDING SCRIPT ARGS...: session 36. Runs a benchmark script (or "ginscore") with the reader
cutting its crops at PADDING (a share of the box's long side added on each side) instead of
vision.crops.CROP_PADDING (0.15)."""

import runpy
import sys

sys.path.insert(0, "/work/main")
import vision.crops as crops  # noqa: E402

padding = float(sys.argv[1])
crops.crop_index.__defaults__ = (padding, *crops.crop_index.__defaults__[1:])
crops.crop_indices.__defaults__ = (padding, *crops.crop_indices.__defaults__[1:])
script = sys.argv[2]
sys.argv = sys.argv[2:]
if script == "ginscore":
    from web.cli import main

    sys.exit(main())
runpy.run_path(script, run_name="__main__")
