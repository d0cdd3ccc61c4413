"""The layout's rules (docs/architecture.md): the engine imports neither the app, the CLI nor the tools, and
the app imports neither the CLI nor the tools; so the bundle needs none of the development tools."""

import ast

import pytest
from testdata import REPO

FORBIDDEN = {"engine": {"app", "cli", "tools"}, "app": {"cli", "tools"}}


def imported_packages(path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_stay_below_it(package):
    offenders = {
        str(path.relative_to(REPO)): sorted(imported_packages(path) & FORBIDDEN[package])
        for path in (REPO / package).rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def engine_package_imports() -> dict[str, set[str]]:
    """Which of the engine's packages (and top modules) each one imports."""
    graph: dict[str, set[str]] = {}
    for path in (REPO / "engine").rglob("*.py"):
        parts = path.relative_to(REPO / "engine").parts
        source = parts[0] if len(parts) > 1 else path.stem
        tree = ast.parse(path.read_text(), str(path))
        modules = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        modules += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module]
        targets = {m.split(".")[1] for m in modules if m.startswith("engine.")}
        graph.setdefault(source, set()).update(targets - {source})
    return graph


def test_engine_packages_import_one_another_one_way():
    graph = engine_package_imports()
    order: list[str] = []  # each package after every package it imports
    while remaining := {p: deps - set(order) for p, deps in graph.items() if p not in order}:
        ready = sorted(p for p, deps in remaining.items() if not deps & remaining.keys())
        assert ready, f"the engine's packages import one another in a cycle: {remaining}"
        order += ready
