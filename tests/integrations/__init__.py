"""Tests of the training-loop adapters (gdpproof.integrations)."""
