"""Running and judging: the runner, checks, levels, verdicts, the records of a run, and what they
say of the catalog (coverage, the catalog check)."""
