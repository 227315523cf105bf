"""The layers import in one direction (docs/architecture.md):

    web ──> vision (reading) <── vision.evaluation <── vision.training
     └──> web/learning.py ──> vision.evaluation, vision.training
    everything ──> engine (pure, imports nothing of the others)

Every import counts, at the top of a module or inside a function. No module assigns to another
project module's attributes at run time, and no layer imports another layer's private names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "vision", "web")
LEARNING_DOOR = "web.learning"  # web's one door to vision.evaluation and vision.training


def layer_of(module: str) -> str:
    """The layer a project module belongs to: engine, reading, evaluation, training or web."""
    if module.startswith("vision.training"):
        return "training"
    if module.startswith("vision.evaluation"):
        return "evaluation"
    if module == "vision" or module.startswith("vision."):
        return "reading"
    return module.split(".")[0]


# which layers each layer may import (itself included)
ALLOWED = {
    "engine": {"engine"},
    "reading": {"engine", "reading"},
    "evaluation": {"engine", "reading", "evaluation"},
    "training": {"engine", "reading", "evaluation", "training"},
    "web": {"engine", "reading", "web"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPOSITORY).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    return {
        module_name(path): path
        for package in PACKAGES
        for path in sorted((REPOSITORY / package).rglob("*.py"))
        if "__pycache__" not in path.parts
    }


def imports_of(module: str, path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, imported module, imported names) of every project import in a module."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [alias.name for alias in node.names]
            found.append((node.lineno, target, names))
            # "from vision import cli" imports the module vision.cli
            found += [(node.lineno, f"{target}.{name}", []) for name in names]
    modules = project_modules()
    return [(line, target, names) for line, target, names in found if target in modules]


def all_imports() -> list[tuple[str, int, str, list[str]]]:
    return [
        (module, line, target, names)
        for module, path in project_modules().items()
        for line, target, names in imports_of(module, path)
    ]


def test_the_layers_are_where_the_architecture_says():
    layers = {layer_of(module) for module in project_modules()}
    assert layers == set(ALLOWED), layers
    learning_at_top = [m for m in project_modules() if layer_of(m) == "reading" and m.count(".") == 1]
    for name in ("train", "retrain", "examples", "teach_deck", "userdata", "synth", "evaluate", "mining"):
        assert f"vision.{name}" not in learning_at_top, f"vision.{name} is learning code at vision/'s top level"


def test_every_import_goes_in_the_one_direction():
    wrong = [
        f"{module}:{line} imports {target} ({layer_of(module)} -> {layer_of(target)})"
        for module, line, target, _ in all_imports()
        if layer_of(target) not in ALLOWED[layer_of(module)]
        and not (module == LEARNING_DOOR and layer_of(target) in {"evaluation", "training"})
    ]
    assert not wrong, "\n".join(wrong)


def test_web_reaches_learning_only_through_its_one_door():
    doors = {
        module
        for module, _, target, _ in all_imports()
        if layer_of(module) == "web" and layer_of(target) in {"evaluation", "training"}
    }
    assert doors == {LEARNING_DOOR}


def test_no_blueprint_imports_another():
    """Views call services; a blueprint module never imports another blueprint module."""
    blueprints = {
        module
        for module, path in project_modules().items()
        if module.startswith("web.") and "Blueprint(" in path.read_text()
    }
    assert len(blueprints) >= 5, blueprints
    crossing = [
        f"{module}:{line} imports {target}"
        for module, line, target, _ in all_imports()
        if module in blueprints and target in blueprints and target != module
    ]
    assert not crossing, "\n".join(crossing)


def test_no_layer_imports_another_layers_private_names():
    private = [
        f"{module}:{line} imports {name} from {target}"
        for module, line, target, names in all_imports()
        if layer_of(module) != layer_of(target)
        for name in names
        if name.startswith("_") and not name.startswith("__")
    ]
    assert not private, "\n".join(private)


@pytest.mark.parametrize("module", sorted(project_modules()))
def test_no_module_patches_another_project_module_at_run_time(module):
    path = project_modules()[module]
    tree = ast.parse(path.read_text())
    imported_modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported_modules |= {
                (a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] in PACKAGES
            }
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PACKAGES:
            target = node.module or ""
            imported_modules |= {a.asname or a.name for a in node.names if f"{target}.{a.name}" in project_modules()}
    patched = [
        f"{module}:{node.lineno} sets {target.value.id}.{target.attr}"
        for node in ast.walk(tree)
        if isinstance(node, (ast.Assign, ast.AugAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id in imported_modules
    ]
    assert not patched, "\n".join(patched)
