"""Played battles (issue 17): people plan their rounds, the server resolves them.

models.py holds the game and its recorded plans, services.py every write (each one
transaction) and what a side may see, api.py the JSON protocol `memeyori-play/1`
(PROTOCOL.md beside this file). The rules stay in battles/engine/played.py.
"""
