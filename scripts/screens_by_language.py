"""Screenshots of a player's and a moderator's walk through the site in every language, at a
phone's size and a desktop's (issue 29: look for English left over and broken layouts).

    .venv/bin/python scripts/screens_by_language.py [--out artefacts/languages]
        [--langs ur,ar,de,bn] [--sizes 375x740,1280x800] [--port 8300]

It serves the site itself, as `make run` does (SQLite in a scratch folder, the in-memory
channel layer, daphne's runserver), with a finished practice match made by `simulate_match`
and a moderator account. Then, for each language (the `django_language` cookie a guest's
picker sets) and size, in a fresh browser: the home page, the rules, sign-up (a new account),
a practice room after a roll, its result once ended, a friend room waiting for players, the
replay of the finished match with its report, the dispute form, the player's disputes; and the
moderator's queue and fair play desk. Each page is a PNG named LANG-SIZE-PAGE.png, and a
line per page says how many words of a small list of English words it shows (a first hint
of English left over; the pictures are what to look at). Needs the development set
(Playwright) and chromium (tests/chromium.py)."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from tests.chromium import find as find_chromium  # noqa: E402

# Words a page in another language should not show (the site's own English; names, codes
# and "BOT" excepted).
ENGLISH = re.compile(
    r"\b(Roll|Your turn|Sign up|Sign in|Players|Replay|Practice|Waiting for players|Rules|"
    r"Create my account|Legal moves|the die|Dispute|Report|Menu|Leaderboards)\b"
)


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def wait_port(port: int, proc: subprocess.Popen[bytes], seconds: float = 90) -> None:
    import socket

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with socket.socket() as s:
            s.settimeout(0.3)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if proc.poll() is not None:
            raise SystemExit("the server stopped")
        time.sleep(0.3)
    raise SystemExit(f"nothing listens on {port}")


def shot(page: Page, out: Path, name: str, found: list[str]) -> None:
    page.wait_for_timeout(300)
    page.screenshot(path=str(out / f"{name}.png"))
    text = page.locator("body").inner_text()
    words = sorted(set(ENGLISH.findall(text)))
    wide = page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")
    sideways = "scrolls sideways; " if wide else ""
    found.append(f"{name}: {sideways}English: {', '.join(words) or '-'}")


def walk(
    page: Page, base: str, out: Path, tag: str, finished: str, n: int, found: list[str]
) -> None:
    page.goto(base + "/")
    shot(page, out, f"{tag}-home", found)
    page.goto(base + "/rules/")
    shot(page, out, f"{tag}-rules", found)
    page.goto(base + "/accounts/signup/")
    page.fill("input[name=username]", f"p{n}")
    page.fill("input[name=password1]", "a-long-pass-42")
    page.fill("input[name=password2]", "a-long-pass-42")
    shot(page, out, f"{tag}-signup", found)
    page.check("input[name=terms]")
    page.click("form button[type=submit]")
    page.wait_for_load_state()
    shot(page, out, f"{tag}-signed-in", found)
    form = page.locator("form.play-now")
    form.locator("select[name=players]").select_option("2")  # ending it ends the match
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#roll")
    page.wait_for_timeout(800)
    if page.locator("#roll").is_enabled():
        page.click("#roll")
        page.wait_for_timeout(1200)
    shot(page, out, f"{tag}-practice", found)
    practice = page.url.rstrip("/").split("/")[-1]
    page.on("dialog", lambda dialog: dialog.accept())
    if page.locator("#resign").is_visible():
        page.click("#resign")
        try:
            page.wait_for_selector("#result", state="visible", timeout=8000)
        except Exception:  # noqa: BLE001 - the picture says what the page shows
            found.append(f"{tag}-result: no result card within 8 s")
    shot(page, out, f"{tag}-result", found)
    page.goto(base + "/")
    friends = page.locator("form[action='/play/friends/']")
    friends.locator("button[type=submit]").click()
    page.wait_for_selector("#room-code")
    shot(page, out, f"{tag}-friend-room", found)
    page.goto(f"{base}/r/{finished}/replay/")
    page.wait_for_selector("#board")
    page.wait_for_timeout(800)
    shot(page, out, f"{tag}-replay", found)
    page.goto(f"{base}/disputes/new/{practice}/")
    shot(page, out, f"{tag}-dispute-form", found)
    page.goto(f"{base}/disputes/")
    shot(page, out, f"{tag}-disputes", found)


def desk(page: Page, base: str, out: Path, tag: str, found: list[str]) -> None:
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", "moderator1")
    page.fill("input[name=password]", "a-long-pass-42")
    page.click("form button[type=submit]")
    page.wait_for_load_state()
    page.goto(base + "/disputes/queue/")
    shot(page, out, f"{tag}-desk-queue", found)
    page.goto(base + "/fairplay/desk/")
    shot(page, out, f"{tag}-fairplay-desk", found)


def main() -> None:
    from django.conf import global_settings  # noqa: F401  (settings need no setup here)

    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "artefacts" / "languages"))
    parser.add_argument("--langs", default="")
    parser.add_argument("--sizes", default="375x740,1280x800")
    parser.add_argument("--port", type=int, default=8300)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="ludo-langs-"))
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    # One address signs up a player per language and size: past the site's own limits.
    env.update(
        DATABASE_URL=f"sqlite:///{scratch / 'db.sqlite3'}",
        DEBUG="1",
        SIGN_UPS_PER_IP="1000",
        GUESTS_PER_IP="1000",
    )
    manage(env, "migrate", "--noinput", "-v0")
    made = manage(env, "simulate_match", "--ruleset", "classic", "--players", "4", "--seed", "29")
    finished = re.findall(r"\b[A-Z0-9]{6}\b", made)[-1]
    manage(env, "analyse_match", finished)
    manage(
        env,
        "shell",
        "-c",
        "from django.contrib.auth.models import Group; from accounts.models import User; "
        "u = User.objects.create_user('moderator1', password='a-long-pass-42', is_staff=True); "
        "u.groups.add(Group.objects.get(name='moderators'))",
    )
    if args.langs:
        langs = args.langs.split(",")
    else:
        from ludo_site import settings

        langs = [code for code, _ in settings.LANGUAGES]
    sizes = [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",")]
    base = f"http://127.0.0.1:{args.port}"
    log = open(scratch / "server.log", "wb")  # noqa: SIM115 - the server's lifetime
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{args.port}"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    found: list[str] = []
    try:
        wait_port(args.port, server)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=find_chromium(),
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            )
            n = 0
            for lang in langs:
                for width, height in sizes:
                    n += 1
                    tag = f"{lang}-{width}x{height}"
                    for person in ("player", "moderator"):
                        context = browser.new_context(
                            viewport={"width": width, "height": height},
                            has_touch=width < 700,
                        )
                        context.add_cookies(
                            [{"name": "django_language", "value": lang, "url": base}]
                        )
                        page = context.new_page()
                        try:
                            if person == "player":
                                walk(page, base, out, tag, finished, n, found)
                            else:
                                desk(page, base, out, tag, found)
                        except Exception as e:  # noqa: BLE001 - keep going, say where
                            found.append(f"{tag} {person}: stopped at {page.url}: {e!r:.300}")
                        context.close()
                    print("\n".join(found[-12:]), flush=True)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()
    (out / "found.txt").write_text("\n".join(found) + "\n")
    print(f"{len(found)} pages; screenshots and found.txt in {out}")


if __name__ == "__main__":
    main()
