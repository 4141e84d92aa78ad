"""Tables: a group of players and its game master (GM), beside the visibility rules.

Models live in cards/models.py (Table, TableMembership) next to `visible_to`, which gives
the "my tables" level its meaning; services, forms, views and URLs live here.
"""
