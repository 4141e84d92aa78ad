"""Mastercards, move cards and print sheets as PDFs (WeasyPrint), portraits (Pillow).

Pure modules (no Django import, so the render worker process stays light): layout.py
(sheet geometry), fit.py (text-fit estimates and the overflow check), pdf.py (the
sandboxed render). Django-side modules: deck.py (which cards to print), render.py
(templates to PDF), portraits.py, views.py.
"""
