"""Benchmarks: BOOMER against mlrl-boomer (speed, quality, scale), SeCo against mlrl-seco, the
example-wise search, label ranking and ML-ME; each fit of a reference runs in its own process
(``fit_driver``)."""
