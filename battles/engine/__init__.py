"""The battle rules core (RULES.md R4-R10): pure Python, no Django import.

Every random choice comes from a `random.Random` passed in by the caller.
"""
