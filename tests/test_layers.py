"""The house keeps its layers: every import under ``srcad/`` and ``grad_templates/`` goes down, never round.

The layers are the numbered list in the docstring of ``srcad/__init__.py``
(the README's section for contributors repeats it).  Imports are read with
``ast``, never by importing, and every import counts: at module level, inside
functions, and under ``if TYPE_CHECKING``.  A module may import its own layer
or a lower one; the import graph has no circle anywhere.  A failure prints the
offending import or the whole circle, as ``file:line`` chains.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("srcad", "grad_templates")
_LAYER_LINE = re.compile(r"^(\d+)\. (.+?): ")


def layer_list(text: str) -> List[Tuple[int, List[str]]]:
    """The numbered layer lines of ``text``: (number, the modules or packages it names)."""
    layers = []
    for line in text.splitlines():
        match = _LAYER_LINE.match(line.strip())
        if match:
            layers.append((int(match.group(1)), re.findall(r"``([\w/]+)``", match.group(2))))
    return layers


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> Dict[str, Path]:
    """Every module of the two packages, by dotted name."""
    return {_module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def layer_of(module: str, layers) -> int:
    """The number of the layer ``module`` belongs to (the longest entry that covers it)."""
    best, best_length = None, -1
    for number, entries in layers:
        for entry in entries:
            dotted = entry.rstrip("/")
            dotted = dotted if dotted == "grad_templates" else "srcad" if dotted == "__init__" else f"srcad.{dotted}"
            covers = module == dotted or (entry.endswith("/") and module.startswith(dotted + "."))
            if covers and len(dotted) > best_length:
                best, best_length = number, len(dotted)
    return best


def imports_of(module: str, path: Path, modules: Dict[str, Path]) -> List[Tuple[str, int]]:
    """(imported module of the two packages, line) for every import in ``path``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for alias in node.names:   # ``from pkg import submodule`` imports the submodule
                submodule = f"{target}.{alias.name}"
                found.append((submodule if submodule in modules else target, node.lineno))
    return [(name, line) for name, line in found if name.split(".")[0] in PACKAGES]


@pytest.fixture(scope="module")
def house():
    layers = layer_list(ast.get_docstring(ast.parse((ROOT / "srcad" / "__init__.py").read_text())))
    modules = all_modules()
    graph = {module: imports_of(module, path, modules) for module, path in modules.items()}
    return layers, modules, graph


def _where(module, line, modules) -> str:
    return f"{modules[module].relative_to(ROOT)}:{line}"


def test_the_docstring_lists_the_layers_in_order(house):
    layers, _, _ = house
    assert [number for number, _ in layers] == list(range(1, len(layers) + 1))
    assert len(layers) >= 8 and all(entries for _, entries in layers)


def test_every_module_has_a_layer(house):
    layers, modules, _ = house
    homeless = [str(path.relative_to(ROOT)) for module, path in modules.items() if layer_of(module, layers) is None]
    assert not homeless, "modules in no layer of srcad/__init__.py's list: " + ", ".join(homeless)


def test_no_import_goes_up_a_layer(house):
    layers, modules, graph = house
    upward = []
    for module, imported in graph.items():
        own = layer_of(module, layers)
        for target, line in imported:
            if target in modules and layer_of(target, layers) > own:
                upward.append(f"{_where(module, line, modules)} (layer {own}) imports {target} "
                              f"(layer {layer_of(target, layers)})")
    assert not upward, "imports that go up a layer:\n" + "\n".join(upward)


def test_no_import_circle(house):
    _, modules, graph = house
    state: Dict[str, int] = {}   # 1: on the current path, 2: done
    circles = []

    def visit(module, path):
        state[module] = 1
        path.append(module)
        for target, line in graph[module]:
            if target == module or target not in modules:
                continue
            if state.get(target) == 1:
                start = path.index(target)
                chain = path[start:] + [target]
                circles.append(" -> ".join(chain))
            elif target not in state:
                visit(target, path)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    assert not circles, "import circles:\n" + "\n".join(circles)


def test_the_readme_repeats_the_layer_list(house):
    layers, _, _ = house
    readme = layer_list((ROOT / "README.md").read_text())
    assert readme == layers


def test_the_runtime_imports_nothing_above_it(house):
    """Generated code imports the runtime alone: it must not pull in the passes, the pipeline or the API."""
    layers, modules, graph = house
    runtime_layer = layer_of("srcad.runtime", layers)
    for module in modules:
        if module.startswith("srcad.runtime"):
            assert all(layer_of(target, layers) <= runtime_layer for target, _ in graph[module]), module


@pytest.mark.parametrize("text, expected", [
    ("1. ``a``, ``b/``: x\n2. ``c``: y", [(1, ["a", "b/"]), (2, ["c"])]),
    ("no list here", []),
])
def test_layer_list_reads_numbered_lines(text, expected):
    assert layer_list(text) == expected


def test_a_planted_upward_import_is_caught(tmp_path):
    """The checker itself: an import from the runtime up into the API is reported with its line."""
    layers = [(1, ["runtime/"]), (2, ["api"])]
    assert layer_of("srcad.runtime.core", layers) == 1 and layer_of("srcad.api", layers) == 2
    planted = tmp_path / "core.py"
    planted.write_text("import numpy\n\ndef f():\n    from ..api import grad\n")
    found = imports_of("srcad.runtime.core", planted, {"srcad.api": None, "srcad.runtime.core": None})
    assert found == [("srcad.api", 4)]
