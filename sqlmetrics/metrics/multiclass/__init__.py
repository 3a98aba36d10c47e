"""Multi-class classification: a predicted class (the prediction) against the true class (the label)."""
