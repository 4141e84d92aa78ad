"""The battle rules core (RULES.md R4-R10): pure Python, no Django import.

Every random choice comes from a `random.Random` passed in by the caller.

Speed (`make bench`, tests/bench_battles.py) without changing a single log:
- The engine rolls with `dice.roll_faces`, which must draw exactly what
  `dice.roll_attack` draws, in the same order (a test checks faces and rng state), so
  stored battles still replay to the byte.
- Events are dict literals appended in place (key order is part of the byte-identical
  log); `resolve.blow` keeps, per battle, what a card does to a target.
- Greedy's expected-damage rows live in module tables shared by every battle, keyed by
  interned value keys (card and user stats, enemy defences, chart); they hold floats
  that steer choices only, never log values. Its shortcut skips the scan over targets
  only where the scan is provably bound to pick the same play.
"""
