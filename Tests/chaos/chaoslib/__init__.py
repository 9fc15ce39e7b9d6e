"""Lastset's chaos harness: a seeded, reproducible randomized run against the real daemons (see chaos.py)."""
