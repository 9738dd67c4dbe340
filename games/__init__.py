"""Matches: the rules engine, server dice, match storage, services and real-time play."""
