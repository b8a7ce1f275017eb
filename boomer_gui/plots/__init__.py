"""Plots: the trajectory plot and its canvases."""
