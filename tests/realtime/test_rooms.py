"""Room codes as people type them, and the QR code of the join link."""

from games.match import rooms
from games.models import CODE_ALPHABET, CODE_LENGTH


def test_codes_are_read_back_from_what_people_type() -> None:
    assert rooms.normalise("kmn-479") == "KMN479"
    assert rooms.normalise("  KMN 479 ") == "KMN479"
    assert rooms.normalise("KMN479X") is None  # too long
    assert rooms.normalise("KMN47") is None
    assert rooms.normalise("KMN4O9") is None  # O is a look-alike, never in a code
    assert rooms.normalise("KMN1I9") is None
    assert not set("O0I1L") & set(CODE_ALPHABET) and CODE_LENGTH == 6


def test_spoken_form_and_join_path() -> None:
    assert rooms.spoken("KMN479") == "KMN-479"
    assert rooms.normalise(rooms.spoken("KMN479")) == "KMN479"
    assert rooms.join_path("KMN479") == "/r/KMN479/"


def test_qr_code_is_an_svg_of_the_link() -> None:
    svg = rooms.qr_svg("http://127.0.0.1:8000/r/KMN479/")
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert rooms.qr_svg("http://127.0.0.1:8000/r/KMN47A/") != svg
