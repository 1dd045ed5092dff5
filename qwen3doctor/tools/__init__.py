"""Tools around the rules and the diagnosis: lint and rule tests, scaffolds, suggest, eval, the bug report, watch."""
