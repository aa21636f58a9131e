"""Measures: counts and every rate computed from them, chance-corrected tables, token level, bootstrap."""
