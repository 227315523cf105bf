"""Sub-commands of ``ginscore`` for this part (see web/cli.py)."""
import argparse


def add_commands(commands: "argparse._SubParsersAction") -> None:
    """Register this part's sub-commands on the ``ginscore`` parser."""
