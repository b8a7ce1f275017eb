"""Statistics of comparisons: BBC-CV, Table 1's per-example measures, rank tests (Friedman, Nemenyi,
Wilcoxon), critical-difference diagrams and result tables."""
