"""What one viewer may see of a state: Power stock is private to its owner (and, in Pairs,
not shared with the partner)."""

from __future__ import annotations

from .state import NO_STOCK, State


def view_for(state: State, viewer: int | None) -> State:
    """`state` with every stock but `viewer`'s hidden (all hidden for a spectator: None)."""
    if not state.rules.power:
        return state
    stock = tuple(s if c == viewer else NO_STOCK for c, s in enumerate(state.stock))
    return state._replace(stock=stock)
