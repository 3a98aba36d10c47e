"""Regression: errors of a numeric prediction (the score) against a numeric target (the label)."""
