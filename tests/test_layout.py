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
