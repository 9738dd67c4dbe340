"""The match domain below the services: errors, dice, room codes, and the read side (selectors,
replay, verification)."""
