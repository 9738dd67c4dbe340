"""Right to left (issue 29): the site's style sheets say start and end, not left and right, so
that an Urdu or Arabic page (dir="rtl") mirrors. Only the board's own drawing may keep a
physical direction (the board keeps its corners whatever the page's direction)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATIC_CSS = ROOT / "static" / "css"
TEMPLATES = ROOT / "templates"

# Rules allowed a physical left or right: the board's drawing (its SVG is laid out left to
# right in every language). A selector here is matched by its start.
BOARD = (".ludo-board", "svg.main-board", "svg.board", "svg.mini", "svg.preview", "svg.die")

# A property that names a side, or a value that does.
PHYSICAL_PROPERTY = re.compile(
    r"^(left|right|(margin|padding|border|scroll-margin|scroll-padding)-(left|right)(-\w+)*"
    r"|border-(top|bottom)-(left|right)-radius)$"
)
PHYSICAL_VALUE = re.compile(r"^(float|clear|text-align|caption-side|resize)$")
SIDE = re.compile(r"\b(left|right)\b")


def rules(css: str) -> list[tuple[str, str]]:
    """(selector, declarations) of every rule of `css`, inside @media blocks too."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    found = []
    for match in re.finditer(r"([^{}]+)\{([^{}]*)\}", css):
        selector = match.group(1).strip()
        if selector.startswith("@"):
            continue
        found.append((selector, match.group(2)))
    return found


def physical(declarations: str) -> list[str]:
    """The declarations of a rule that name a physical side."""
    out = []
    for declaration in declarations.split(";"):
        name, _, value = declaration.partition(":")
        name, value = name.strip().lower(), value.strip().lower()
        if not name:
            continue
        if PHYSICAL_PROPERTY.match(name) or (PHYSICAL_VALUE.match(name) and SIDE.search(value)):
            out.append(f"{name}: {value}")
    return out


def board_rule(selector: str) -> bool:
    return all(part.strip().startswith(BOARD) for part in selector.split(","))


def test_the_check_sees_physical_sides() -> None:
    css = """
    .a { margin-left: 1rem; text-align: right; }
    @media (max-width: 10px) { .b { left: 0; border-top-right-radius: 2px; float: left; } }
    .c { margin-inline-start: 1rem; text-align: start; inset-inline: 0; }
    .ludo-board .pawn { left: 0; }
    """
    seen = {sel: physical(decls) for sel, decls in rules(css)}
    assert seen[".a"] == ["margin-left: 1rem", "text-align: right"]
    assert seen[".b"] == ["left: 0", "border-top-right-radius: 2px", "float: left"]
    assert seen[".c"] == []
    assert board_rule(".ludo-board .pawn") and not board_rule(".ludo-board .pawn, .toast")


def test_no_physical_left_or_right_outside_the_board() -> None:
    sheets = sorted(STATIC_CSS.glob("*.css"))
    assert len(sheets) >= 5
    offending = [
        f"{sheet.name}: {selector} {{ {'; '.join(found)} }}"
        for sheet in sheets
        for selector, declarations in rules(sheet.read_text())
        if (found := physical(declarations)) and not board_rule(selector)
    ]
    assert offending == [], "use logical properties (margin-inline-start...):\n" + "\n".join(
        offending
    )


def test_no_physical_left_or_right_in_the_templates_styles() -> None:
    """The same for a template's own <style> block and style="" attributes."""
    offending = []
    for template in sorted(TEMPLATES.rglob("*.html")):
        text = template.read_text()
        name = template.relative_to(TEMPLATES)
        for block in re.findall(r"<style[^>]*>(.*?)</style>", text, flags=re.S):
            offending += [
                f"{name}: {selector} {{ {'; '.join(found)} }}"
                for selector, declarations in rules(block)
                if (found := physical(declarations)) and not board_rule(selector)
            ]
        for attribute in re.findall(r'style="([^"]*)"', text):
            if found := physical(attribute):
                offending.append(f'{name}: style="{"; ".join(found)}"')
    assert offending == [], "use logical properties (margin-inline-start...):\n" + "\n".join(
        offending
    )
