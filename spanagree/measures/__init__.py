"""Measures: the registry of every formula, counts and their rates, chance-corrected tables, token level, bootstrap."""
