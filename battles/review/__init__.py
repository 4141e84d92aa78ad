"""The game review's home in the site (issue 32): its stored record, its task and its words.
The estimator itself is battles/engine/review.py (pure Python, no Django)."""
