"""Played battles (issue 17): people plan their rounds, the server resolves them.

models.py holds the game and its recorded plans, services.py every write (each one
transaction) and what a side may see, api.py the JSON protocol `memeyori-play/1`
(PROTOCOL.md beside this file). The rules stay in the engine: battles/engine/played.py
(the battle, one plan at a time), played_record.py (the plan records) and plan_check.py
(a plan's R9.2 check).
"""
