"""Numba kernels of the learners: losses, heads, the attribute index and refinement sweeps, boosting
updates, prediction, the label-vector search, binning, AdaBoost stumps and the SeCo search."""
