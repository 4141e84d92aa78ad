"""The play pages (issue 17), by what a reader looks for (issue 31.6):

- common.py: finding a game and whose eyes a page is for, the signed holder of a live URL;
- starting.py: start a game, a table's game, join, challenge, revoke an invite, My games;
- planning.py: the game page (plan, hand over, wait, the end), the plan's check and post,
  taking a plan back, forfeit, the timeout;
- watching.py: the resolved rounds, the share link, presenter mode and its followers;
- updates.py: the status poll and the stream that say "it changed".

Thin: a Form, one call into services.py (or a module beside it), a template. Who sees what
is decided by services (side_of, can_watch, game_state); the one thing these views add is
which side's eyes a page is for: a player sees their own side's hand and plan, a
spectator neither side's, and every resolved round's draws of a side the reader does not
play read as a count (watch.py).
"""
