"""Panels: data, learner, run controls, run table, step view, evaluation window."""
