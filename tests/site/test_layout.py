"""The layout's habits that a linter does not check: audit actions are named constants
(audit/actions.py), and an import inside a function says why it is there."""

from __future__ import annotations

import ast
from pathlib import Path

from audit import actions

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "audit", "disputes", "games", "ranked", "ludo_site")
IMPORTS = ("import ", "from ")


def _modules() -> list[Path]:
    return [
        p for app in APPS for p in sorted((ROOT / app).rglob("*.py")) if "migrations" not in p.parts
    ]


def _explained(lines: list[str], i: int) -> bool:
    """Whether the import on line `i` has a comment: on it, or just above its block of
    imports."""
    if "#" in lines[i]:
        return True
    # Walk up over the block of imports (and the blank lines between its groups).
    while i > 0 and (not lines[i - 1].strip() or lines[i - 1].lstrip().startswith(IMPORTS)):
        i -= 1
    return i > 0 and lines[i - 1].strip().startswith("#")


def test_every_audit_record_names_a_constant() -> None:
    literal = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            for kw in node.keywords:
                if name == "record" and kw.arg == "action" and isinstance(kw.value, ast.Constant):
                    literal.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not literal, f"audit actions written as strings: {literal}"


def test_the_constants_are_the_model_choices() -> None:
    names = {
        v
        for k, v in vars(actions).items()
        if k.isupper() and isinstance(v, str) and not k.endswith("_OBJECT")  # object types
    }
    assert names == actions.ACTION_NAMES


def test_an_import_inside_a_function_says_why() -> None:
    unexplained = []
    for path in _modules():
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom) and not _explained(
                    lines, inner.lineno - 1
                ):
                    unexplained.append(f"{path.relative_to(ROOT)}:{inner.lineno}")
    assert not unexplained, f"function-local imports without a reason: {unexplained}"
