"""A coarse device hint from a User-Agent header, for moderators weighing dispute evidence.
Only a hint: any client can send any header."""

from __future__ import annotations

import re

UA_MAX = 400

# Tools and libraries that say who they are; a browser never does.
_SCRIPTED = re.compile(
    r"python|curl|wget|httpx|aiohttp|okhttp|go-http|node-fetch|axios|java/|libwww|scrapy|"
    r"headless|phantomjs|selenium|playwright|puppeteer|websocket-client|bot\b",
    re.IGNORECASE,
)
_TABLET = re.compile(r"ipad|tablet|kindle|silk|playbook|(android(?!.*mobile))", re.IGNORECASE)
_PHONE = re.compile(r"mobi|iphone|ipod|android.*mobile|windows phone", re.IGNORECASE)


def device_hint(user_agent: str) -> str:
    """ "script", "tablet", "phone", "desktop", or "" when no header was sent."""
    ua = (user_agent or "").strip()
    if not ua:
        return ""
    if _SCRIPTED.search(ua):
        return "script"
    if _TABLET.search(ua):
        return "tablet"
    if _PHONE.search(ua):
        return "phone"
    return "desktop"


def clean_agent(user_agent: str | bytes | None) -> str:
    """The header as stored: text, at most UA_MAX characters."""
    if isinstance(user_agent, bytes):
        user_agent = user_agent.decode("latin-1")
    return (user_agent or "").strip()[:UA_MAX]


def seat_agent(user_agent: str | bytes | None) -> dict[str, str]:
    """A seat's browser fields from a User-Agent header (dispute evidence, staff only)."""
    agent = clean_agent(user_agent)
    return {"user_agent": agent, "device": device_hint(agent)}
