"""Benchmarks of the engine, the evaluator and the tournament runner (`treasure-sim bench ...`)."""
