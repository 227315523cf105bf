"""The ``ginscore`` command line: one entry point for everything a user does.

Each part of the product registers its own sub-commands; heavy imports (ultralytics, Flask) happen
only inside the command that needs them, so ``ginscore hand`` starts instantly.
"""

from __future__ import annotations

import argparse
import sys

from engine import cli as engine_cli
from vision import cli as vision_cli
from web import __version__, learning, serve_cli

# Each module defines add_commands(commands) and owns its sub-commands.
COMMAND_MODULES = (
    engine_cli,  # hand, showdown
    vision_cli,  # detect, score, export
    learning,  # eval, train, synth, decks, deck, examples, retrain (vision.evaluation, vision.training)
    serve_cli,  # serve
)


class UserError(Exception):
    """An error the user can act on: printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ginscore",
        description="Gin rummy table companion: score hands from photos, keep the score sheet.",
    )
    parser.add_argument("--version", action="version", version=f"ginscore {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        module.add_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except (UserError, ValueError, FileNotFoundError) as error:
        print(f"ginscore {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
