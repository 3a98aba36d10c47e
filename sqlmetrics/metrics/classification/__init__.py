"""Binary classification: threshold metrics, ranking quality of scores, probability quality."""
