"""The repository explains itself: the rules, the design and the wire format are in `docs/`,
and nothing else points to documents a clone does not have (notes kept beside the checkout,
the product descriptions the site was built from). The README's links into `docs/` lead to
files and sections that exist, and so do the code's references to a section of a document."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = (".py", ".js", ".html", ".md", ".css", ".txt")
SKIPPED_DIRS = {".venv", "venv", "node_modules", "staticfiles", ".git", "__pycache__"}

# A pointer outside the repository: the notes beside the checkout (by path or by name), or
# a product description by its number. This file, which holds examples of each, is not scanned.
OUTSIDE = re.compile(
    r"\.\./shared\b|/work/shared\b|\bshared/[A-Z]+\.md"
    r"|\b(?:RULES|DESIGN|STYLE)\.md"
    r"|\bseed[s]/"
    r"|(?i:\bseed 0\d\d\b)"
)
# A Markdown link to a file of the repository: [text](path) or [text](path#anchor).
LINK = re.compile(r"\]\(((?!https?:|mailto:|#)[^)\s]+?)(?:#([^)\s]+))?\)")
# A reference to a section: docs/rules.md, "Coordinates" (also across wrapped comment lines).
SECTION = re.compile(r"((?:docs/[\w-]+|scripts/LOAD)\.md),\s+\"([^\"]+)\"")
WRAP = re.compile(r"\s*\n\s*(?:#|//|\*)?\s*")


def _tracked() -> list[Path]:
    """The repository's files that are checked: git's list, or the tree without a git."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=30
        ).stdout.decode()
        paths = [ROOT / name for name in out.split("\0") if name]
    except (OSError, subprocess.SubprocessError):
        paths = [
            p
            for p in ROOT.rglob("*")
            if p.is_file() and not SKIPPED_DIRS & set(p.relative_to(ROOT).parts)
        ]
    return [p for p in paths if p.suffix in CHECKED and p.is_file()]


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to -."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _headings(path: Path) -> set[str]:
    """The section titles of a Markdown file (outside code blocks)."""
    titles, fenced = set(), False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            titles.add(line.lstrip("#").strip())
    return titles


def test_nothing_outside_docs_points_outside_the_repository() -> None:
    found = []
    for path in _tracked():
        rel = path.relative_to(ROOT)
        if rel.parts[0] == "docs" or path == Path(__file__).resolve():
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
            if OUTSIDE.search(line):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "pointers outside the repository (point to docs/):\n" + "\n".join(found)


def test_the_pattern_catches_each_kind_of_pointer() -> None:
    for text in (
        "see ../shared/RULES.md",
        "as DESIGN.md asks",
        "(Seed 003: one device)",
        "seed 001's promise",
        "the files in seed" + "s/",
    ):
        assert OUTSIDE.search(text), text
    for text in ("docs/rules.md", "a client seed", "--seed 1", "shared with other work"):
        assert not OUTSIDE.search(text), text


def test_the_docs_exist_and_the_readme_links_them() -> None:
    docs = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert {"rules.md", "architecture.md", "wire.md", "operations.md"} <= docs
    linked = {m.group(1) for m in LINK.finditer((ROOT / "README.md").read_text())}
    assert {f"docs/{name}" for name in docs} <= linked, "a docs/ file the README never links"


def test_every_link_of_the_readme_and_the_docs_leads_somewhere() -> None:
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for m in LINK.finditer(page.read_text()):
            target = (page.parent / m.group(1)).resolve() if m.group(1) else page
            anchor = m.group(2)
            where = f"{page.relative_to(ROOT)} -> {m.group(0)}"
            if not target.exists():
                broken.append(f"{where}: no such file")
            elif (
                anchor
                and target.suffix == ".md"
                and anchor not in {_slug(h) for h in _headings(target)}
            ):
                broken.append(f"{where}: no such section")
        for m in re.finditer(r"\]\(#([^)\s]+)\)", page.read_text()):
            if m.group(1) not in {_slug(h) for h in _headings(page)}:
                broken.append(f"{page.relative_to(ROOT)} -> #{m.group(1)}: no such section")
    assert not broken, "\n".join(broken)


def test_every_section_the_code_names_exists() -> None:
    missing, named = [], 0
    for path in _tracked():
        text = WRAP.sub(" ", path.read_text(errors="replace"))
        for m in SECTION.finditer(text):
            named += 1
            doc = ROOT / m.group(1)
            if not doc.exists():
                missing.append(f"{path.relative_to(ROOT)}: {m.group(1)} does not exist")
            elif m.group(2) not in _headings(doc):
                missing.append(f'{path.relative_to(ROOT)}: {m.group(1)} has no "{m.group(2)}"')
    assert named, "no reference to a section found: the pattern has gone stale"
    assert not missing, "\n".join(missing)
