"""The paper's Table 1 (Rapp et al. 2020), transcribed in SPEC C.6: values in percent, per measure,
data sets as rows and the seven methods as columns.  Used by the report and the tests."""
from __future__ import annotations

METHODS = ("boomer-lw-single", "boomer-lw-complete", "boomer-exw-single", "boomer-exw-complete", "br", "lp", "cc")
DATASETS = ("birds", "emotions", "enron", "llog", "medical", "scene", "slashdot", "yeast")

SUBSET_01 = {
    "birds": (38.72, 40.43, 39.57, 39.15, 39.57, 40.85, 38.30),
    "emotions": (73.33, 73.33, 70.48, 65.24, 70.48, 60.00, 71.43),
    "enron": (87.81, 86.82, 84.35, 83.53, 85.34, 82.70, 83.86),
    "llog": (78.85, 78.85, 78.27, 76.35, 80.96, 70.38, 78.85),
    "medical": (28.45, 30.16, 23.90, 23.04, 56.90, 41.11, 44.95),
    "scene": (39.33, 33.93, 25.17, 23.26, 34.72, 24.16, 30.11),
    "slashdot": (65.29, 62.89, 53.30, 49.75, 72.04, 52.94, 66.96),
    "yeast": (83.72, 82.27, 78.60, 75.81, 82.72, 75.70, 76.59),
}
HAMMING = {
    "birds": (3.52, 3.16, 3.58, 3.23, 3.43, 4.03, 3.45),
    "emotions": (18.81, 20.00, 18.17, 18.41, 18.73, 18.02, 19.29),
    "enron": (4.56, 4.49, 4.90, 4.91, 4.52, 5.75, 4.63),
    "llog": (1.48, 1.48, 1.49, 1.45, 1.49, 2.13, 1.60),
    "medical": (0.84, 0.86, 0.84, 0.79, 1.69, 1.55, 1.36),
    "scene": (8.16, 7.42, 7.21, 6.63, 7.19, 7.27, 6.85),
    "slashdot": (4.15, 4.17, 5.03, 4.64, 4.61, 5.16, 4.54),
    "yeast": (19.27, 19.84, 19.44, 19.29, 19.13, 21.22, 20.11),
}
EXAMPLE_F1 = {
    "birds": (70.38, 72.42, 68.00, 71.18, 69.68, 70.06, 70.96),
    "emotions": (58.19, 59.06, 64.56, 65.75, 61.90, 69.24, 62.59),
    "enron": (52.86, 53.87, 53.73, 53.91, 54.76, 46.61, 56.46),
    "llog": (22.51, 23.21, 23.28, 26.30, 19.36, 33.17, 24.16),
    "medical": (81.68, 80.07, 85.51, 85.97, 53.14, 71.34, 64.72),
    "scene": (65.90, 71.69, 80.30, 81.69, 70.30, 79.72, 74.23),
    "slashdot": (40.94, 44.04, 54.78, 58.62, 32.57, 54.01, 39.15),
    "yeast": (61.56, 61.03, 62.78, 63.41, 62.54, 61.71, 62.92),
}
TABLE = {"subset_01": SUBSET_01, "hamming": HAMMING, "example_f1": EXAMPLE_F1}
# the paper's printed average-rank rows (Hamming's differ from the printed per-cell ranks, SPEC C.7)
AVERAGE_RANKS = {
    "subset_01": (5.31, 5.19, 3.38, 1.75, 5.75, 2.50, 4.13),
    "hamming": (3.56, 3.56, 4.19, 2.75, 3.56, 5.88, 4.50),
    "example_f1": (5.50, 4.50, 3.50, 1.63, 5.50, 3.75, 3.63),
}


def value(measure: str, dataset: str, method: str) -> float | None:
    row = TABLE.get(measure, {}).get(dataset)
    return None if row is None or method not in METHODS else row[METHODS.index(method)]
