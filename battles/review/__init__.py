"""The game review's home in the site (issue 32): its stored record, its task and its words.
The estimator itself is the package battles/engine/review/ (pure Python, no Django)."""
