"""Fair play across matches (issue 33): each player's reliability record, blocks, and
sanctions that keep a player out of ranked play.

Layers, top to bottom: `views` (pages), `services` (the one writer of these rows),
`reliability` and `selectors` (reading), `models` (data).
"""
