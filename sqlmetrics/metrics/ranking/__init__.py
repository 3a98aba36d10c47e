"""Ranking metrics: lists (queries) ordered by score, judged by graded relevance."""
