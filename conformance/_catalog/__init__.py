"""The catalog: cases and their steps, the registry of normative statements, the kit's codes,
expected failures."""
