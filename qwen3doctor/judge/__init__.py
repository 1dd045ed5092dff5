"""Judging: the facts of a log against the rules: match, rank, next steps, fingerprints, verdicts, pre-flight."""
