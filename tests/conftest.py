"""Shared by every test folder: this folder is on ``sys.path`` (pytest puts a ``conftest.py``'s
folder there), so the helpers beside this file (``import_graph.py``) import by their names."""
