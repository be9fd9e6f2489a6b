"""Views of a run, each rendered from its records (:class:`conformance._judging.records.Report`).

``jsonl`` writes and reads the JSON Lines report, the source of truth; ``text``, ``markdown``
and ``junit`` render the terminal summary, a CI step summary and a JUnit XML file from it.
"""
