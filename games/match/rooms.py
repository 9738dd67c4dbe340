"""Room codes as people type them, the join link and its QR code.

Codes are made by the services (`games.models.CODE_ALPHABET`: six characters, no look-alikes);
here they are read back from what someone typed or scanned.
"""

from __future__ import annotations

import segno

from games.models import CODE_ALPHABET, CODE_LENGTH, spoken_code

_SEPARATORS = str.maketrans("", "", " -_.")


def normalise(text: str) -> str | None:
    """The room code in what someone typed (any case, spaces or dashes between groups);
    None when it cannot be one."""
    code = text.strip().upper().translate(_SEPARATORS)
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def spoken(code: str) -> str:
    """The code in two groups of three, as it is shown and read out: ``KMN-479``."""
    return spoken_code(code)


def join_path(code: str) -> str:
    """The path of the room page that a join link opens."""
    return f"/r/{code}/"


def qr_svg(url: str) -> str:
    """The join link as an inline SVG QR code (medium error correction, scales with the page)."""
    qr = segno.make(url, error="m")
    return str(qr.svg_inline(scale=4, dark="#111", light="#fff", omitsize=True))
