"""Sub-commands of ``ginscore`` for learning (see web/cli.py): ``train``, ``synth``, ``decks``, ``deck``,
``examples`` and ``retrain``; each module owns its own."""

from __future__ import annotations

import argparse

from vision.training import examples, retrain, teach_deck, train
from vision.training.synth import cli as synth_cli
from vision.training.synth import decks

COMMAND_MODULES = (
    train,  # train
    synth_cli,  # synth
    decks,  # decks (contact sheet of the card art)
    teach_deck,  # deck add / deck list (teach the reader your own deck)
    examples,  # examples (corrected photos kept for retraining)
    retrain,  # retrain (fine-tune at the table, install when not worse, --rollback)
)


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register the learning sub-commands on the ``ginscore`` parser."""
    for module in COMMAND_MODULES:
        module.add_commands(commands)
