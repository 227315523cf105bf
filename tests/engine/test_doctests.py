"""The examples in the engine's docstrings are tests too."""

import doctest
import importlib

import pytest

MODULES = ["engine.cards", "engine.melds", "engine.rules", "engine.scoring", "engine.showdown", "engine.game"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
