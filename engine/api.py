"""The engine's public façade for applications: what a front end (the desktop window, a notebook)
may call beyond the registry (``engine.registry``), the rule types (``engine.rules``), the step
types (``engine.steps``) and the data-set errors (``engine.datasets.errors``).

Everything else in the engine is internal; the GUI's import-linter contract allows its views and
Qt adapters exactly these modules (``pyproject.toml``), so a refactoring behind this file never
reaches the window."""
from __future__ import annotations

from engine.datasets import SUFFIXES, SVMLIGHT_SUFFIXES, Dataset, load, make_synthetic, test_sibling
from engine.datasets.synthetic import SYNTHETIC_KINDS
from engine.datasets.synthetic import SYNTHETIC_REGRESSION_KINDS
from engine.evaluation.table1 import paper_table1
from engine.evaluation.stats.cd_diagram import cd_figure
from engine.evaluation.stats.measures import MEASURES
from engine.evaluation.table1.report import MeasureView, Report, measure_view
from engine.evaluation.table1.run import load_report, store_progress
from engine.fileio import atomic_savefig, atomic_write_text
from engine.head_explanation import HeadStatistics, head_statistics
from engine.inspection import WhatIf, explain, nearest_label_vectors, predictor_text
from engine.label_dependencies import LabelDependencies, label_dependencies
from engine.learner import RuleRecord
from engine.metrics import hamming_loss, subset_zero_one_loss
from engine.model import rule_coverage
from engine.model_diff import ModelDiff, diff_models, markdown_report, csv_report, write_report
from engine.model_export import model_text, python_source, write_python, write_text
from engine.simplify import MEASURES as SIMPLIFY_MEASURES, Simplification, curve_csv, simplify
from engine.threshold_edit import Histogram, ThresholdEdit, ThresholdEditor, head_parameters
from engine.prepare import is_prepared, kernel_setting, save_data
from engine.validation import features_for_model, match_schema

__all__ = [
    # data
    "Dataset", "load", "make_synthetic", "test_sibling", "SYNTHETIC_KINDS", "SUFFIXES", "SVMLIGHT_SUFFIXES",
    "SYNTHETIC_REGRESSION_KINDS",
    # a model's rules and what users ask of them
    "RuleRecord", "rule_coverage", "WhatIf", "explain", "nearest_label_vectors", "predictor_text", "HeadStatistics",
    "head_statistics", "hamming_loss", "subset_zero_one_loss",
    # a data set's features as a fitted model expects them (names, kinds, count; matched by name)
    "features_for_model", "match_schema",
    # a model as plain Python and as text
    "python_source", "write_python", "model_text", "write_text",
    # two models compared rule by rule
    "ModelDiff", "diff_models", "markdown_report", "csv_report", "write_report",
    # which labels the rules predict together, against the data
    "LabelDependencies", "label_dependencies",
    # a smaller model within a bounded loss
    "simplify", "Simplification", "SIMPLIFY_MEASURES", "curve_csv",
    # a condition's threshold moved: coverage, head and losses, incrementally
    "ThresholdEditor", "ThresholdEdit", "Histogram", "head_parameters",
    # compiling a run's kernels ahead of it
    "is_prepared", "kernel_setting", "save_data",
    # files written atomically
    "atomic_savefig", "atomic_write_text",
    # the papers' evaluation results
    "paper_table1", "cd_figure", "MEASURES", "MeasureView", "Report", "load_report", "measure_view",
    "store_progress",
]
