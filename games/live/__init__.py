"""The live layer: the match sockets (consumers, routing), their wire format, and how many
sockets each player has open (presence)."""
