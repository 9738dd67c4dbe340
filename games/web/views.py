"""The pages people see, by concern in the modules beside this one: the pages that only show
(`pages`: home, rules, terms, guides), starting games (`starting`), a room and its forms
(`room_pages`), and a finished match's replay (`replay_page`); the forms' choices are in
`choices`. Thin: they read through `games.match.selectors` and write only by calling
`games.services`. This module names every view for the URLconf (`page_urls`) and for the
apps that reuse one (the disputes desk frames the replay).
"""

from __future__ import annotations

from games.web.pages import guide, home, preset_guide_page, rules, terms
from games.web.replay_page import replay
from games.web.room_pages import (
    room,
    room_join,
    room_rematch,
    room_seat,
    room_start,
    room_start_over,
)
from games.web.starting import join, play_computer, play_friends, play_local

__all__ = [
    "guide",
    "preset_guide_page",
    "home",
    "join",
    "play_computer",
    "play_friends",
    "play_local",
    "replay",
    "room",
    "room_join",
    "room_rematch",
    "room_seat",
    "room_start",
    "room_start_over",
    "rules",
    "terms",
]
