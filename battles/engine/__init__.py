"""The battle rules core (RULES.md R4-R10): pure Python, no Django import.

Every random choice comes from a `random.Random` passed in by the caller.

Speed (`make bench`, tests/bench/battles.py), with the same log for the same seed:
- The engine rolls with `dice.roll_faces`, which must draw exactly what
  `dice.roll_attack_reference` draws die by die, in the same order (a test checks faces
  and rng state; `roll_attack` is roll_faces checked and recorded), so
  stored battles still replay to the byte. Both roll up to five dice per random(), and
  shuffles draw one random() per card (`dice.shuffle`).
- Events are dict literals appended in place (key order is part of the byte-identical
  log); `resolve.blow` keeps what a card does to a target, and the policies' memos what
  they derived from the specs, shared by every battle of one input object.
- Summary mode (`battle.run_summary`, behind `summary.simulate_summary`) builds no event
  dicts: `tally.Tally` counts one call per resolved card, and `settle.apply_group` counts a
  group's blows, heals and knock-outs in place. A test checks it against
  `summary.summarize` of the full log on 10,000 seeds.
- No import circle: `summary` (which reads logs) imports the engine, never the reverse
  (tests/test_engine_imports.py imports each module alone).
- Greedy's expected-damage rows live in module tables shared by every battle, keyed by
  interned value keys (card and user stats, enemy defences, chart); they hold floats
  that steer choices only, never log values. Its shortcut skips the scan over targets
  only where the scan is provably bound to pick the same play. Rows are kept per card and
  enemy (a new enemy field reuses them), and each outcome keeps its capped means by room:
  every cached float is the one the plain sum gives, so greedy chooses exactly as written.
- Summary mode rolls with `dice.roll_counts` (the same draws as roll_faces, no faces) and
  draws its cards in one slice when no reshuffle is due.
"""
