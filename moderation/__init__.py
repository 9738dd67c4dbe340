"""What both moderators' desks (disputes, fair play) share: the conflict-of-interest rules
(`conflicts`). It sits above the data of both desks and below their services."""
