"""What is known: the rules (found, validated, compiled, cached), lookups by id or reference, model shapes."""
