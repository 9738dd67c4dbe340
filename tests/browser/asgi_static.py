"""The site's ASGI app for the browser tests' daphne process
(``daphne tests.browser.asgi_static:application``): static files served (production serves
them apart), and the match clock in-process, looking every LUDO_TEST_CLOCK_EVERY seconds as
well as at each deadline (LUDO_BOT_DELAY is short there too, so bots keep pace with a test).
With LUDO_TEST_PSEUDO_LOCALE=1 it also speaks the pseudo-locale ``xx`` (tests/i18n/pseudo.py)."""

import os

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

from ludo_site.asgi import application as site

if os.environ.get("LUDO_TEST_CLOCK_EVERY"):
    from games.clocks import sweeps as clock

    clock.start_in_process(every=float(os.environ["LUDO_TEST_CLOCK_EVERY"]))

if os.environ.get("LUDO_TEST_PSEUDO_LOCALE") == "1":
    from tests.i18n.pseudo import install

    install()

application = ASGIStaticFilesHandler(site)
