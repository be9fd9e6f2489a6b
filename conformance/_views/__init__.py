"""Views of a pack's validation (text, JSON, SARIF ...)."""
