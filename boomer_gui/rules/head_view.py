"""'Why this head': the statistics a boosted rule's head was computed from, per label, and for
data with two attributes the rule's region in the x1/x2 plane.

The numbers come from ``engine.head_explanation.head_statistics``; this module lays them out."""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QHeaderView, QLabel, QSplitter, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from engine.api import HeadStatistics, head_statistics
from engine.rules import Schema

from boomer_gui.plots.canvas import MarginCanvas

COLUMNS = ("label", "relevant", "score before", "Σ gradient", "Σ Hessian", "optimum", "× η", "head")
TIPS = ("The head's label", "Share of the covered training examples for which the label is relevant",
        "Mean score of the covered examples from the rules before this one",
        "Sum of the loss's gradients over the covered examples (negative: the score should rise)",
        "Sum of the loss's second derivatives (the diagonal entry) over the covered examples",
        "Unshrunk optimum: −Σg / (Σh + λ) (eq. 14), or the solution of the full system (eq. 16)",
        "The optimum times the shrinkage (the default rule is not shrunk)", "The head score the learner stored")
REGRESSION_COLUMNS = ("target", "mean target") + COLUMNS[2:]
REGRESSION_TIPS = ("The head's target", "Mean value of the target over the covered training examples") + TIPS[2:]
_POS, _NEG = QColor(0, 114, 178), QColor(213, 94, 0)  # blue / vermillion: colour-blind safe


def interval_of(rule, attribute: int) -> tuple[float, float]:
    """The (lower, upper) bounds the rule's body puts on a numeric attribute (±inf: none)."""
    lo, hi = -math.inf, math.inf
    for c in rule.conditions:
        if c.attribute == attribute and c.operator == ">":
            lo = max(lo, c.threshold)
        elif c.attribute == attribute and c.operator == "<=":
            hi = min(hi, c.threshold)
    return lo, hi


class HeadView(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.estimator = None
        self.train = None
        self.schema = Schema()
        self.stats: HeadStatistics | None = None
        self.summary = QLabel("Select a rule of a finished BOOMER run to see why its head has its values.")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        for c, tip in enumerate(TIPS):
            self.table.horizontalHeaderItem(c).setToolTip(tip)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.setSortingEnabled(False)
        self.figure = Figure(figsize=(3, 3), dpi=100)
        self.ax = self.figure.add_subplot()
        self.canvas = MarginCanvas(self.figure, left=46, bottom=38, top=22, right=10, fit_text=True)
        self.presentation = False
        self._region_of: int | None = None
        self.canvas.setMinimumWidth(200)
        self.split = QSplitter(Qt.Horizontal)
        self.split.addWidget(self.table)
        self.split.addWidget(self.canvas)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(self.split, 1)
        self.canvas.hide()

    def set_presentation(self, on: bool) -> None:
        """Large type in the region chart (ticks 15.3 px); off: the screen sizes."""
        if bool(on) != self.presentation:
            self.presentation = bool(on)
            if self.stats is not None and self._region_of is not None and self.canvas.isVisible():
                self._draw_region(self._region_of)

    def set_context(self, estimator, train, schema: Schema | None) -> None:
        """The fitted estimator and its training data (None: nothing to explain)."""
        self.estimator, self.train, self.schema = estimator, train, schema or Schema()
        self.clear()

    def clear(self, text: str | None = None) -> None:
        self.stats = None
        self.table.setRowCount(0)
        self.summary.setText(text or "Select a rule of a finished BOOMER run to see why its head has its values.")
        self.canvas.hide()

    def show_rule(self, index: int) -> bool:
        """Compute and show the statistics of rule ``index``; False (with the reason shown) if impossible."""
        if self.estimator is None or self.train is None:
            self.clear("Why-this-head needs a finished (or stopped) run: the statistics are recomputed from its "
                       "model and the training data.")
            return False
        try:
            st = head_statistics(self.estimator, self.train.X, self.train.Y, index)
        except ValueError as exc:
            self.clear(f"Not available: {exc}.")
            return False
        self.stats = st
        self._fill(st)
        self._draw_region(index)
        return True

    def _set_columns(self, regression: bool) -> None:
        """A classifier's columns (label, share relevant) or a regressor's (target, mean target)."""
        titles, tips = (REGRESSION_COLUMNS, REGRESSION_TIPS) if regression else (COLUMNS, TIPS)
        self.table.setHorizontalHeaderLabels(list(titles))
        for c, tip in enumerate(tips):
            self.table.horizontalHeaderItem(c).setToolTip(tip)

    def _fill_regression(self, st: HeadStatistics) -> None:
        """A regression rule: squared-error statistics per target (g = f − y, h = 1), the optimum −Σg / (Σh + λ)."""
        sch = self.schema
        shrink = "not shrunk (the default rule)" if st.shrinkage == 1.0 and st.rule_index == 0 else \
            f"shrinkage η = {st.shrinkage:g}"
        eq = "each target's score is −Σg / (Σh + λ) = Σ(y − f) / (n + λ)" if not st.note else st.note
        self.summary.setText(
            f"<b>Rule #{st.rule_index}</b> covers {st.n_covered} of {st.n_train} training examples. Its head "
            f"minimises the {st.loss} loss at the predictions of the rules before it (gradient f − y, Hessian 1 "
            f"per example and target): {eq}; λ (L2) = {st.l2:g}{f', L1 = {st.l1:g}' if st.l1 else ''}; {shrink}.<br>"
            f"Mean training loss (squared error summed over the targets): {st.loss_before:.6g} before → "
            f"{st.loss_after:.6g} after ({st.loss_after - st.loss_before:+.4g}). The head moves each covered "
            f"example's prediction towards the mean residual of its target.")
        self.table.setRowCount(len(st.labels))
        for r in range(len(st.labels)):
            values = (sch.label(int(st.labels[r])), f"{st.relevant_share[r]:.4g}", f"{st.mean_score[r]:+.4g}",
                      f"{st.gradient_sums[r]:+.4g}", f"{st.hessian_sums[r]:.4g}", f"{st.solution[r]:+.4g}",
                      f"{st.recomputed_head[r]:+.4g}", f"{st.head[r]:+.4g}")
            self._set_row(r, values, st)

    def _set_row(self, r: int, values, st: HeadStatistics) -> None:
        for c, text in enumerate(values):
            item = QTableWidgetItem(text)
            if c:
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            if c in (5, 6, 7):
                v = (st.solution, st.recomputed_head, st.head)[c - 5][r]
                item.setForeground(QBrush(_POS if v > 0 else _NEG))
            self.table.setItem(r, c, item)

    def _fill(self, st: HeadStatistics) -> None:
        self._set_columns(st.regression)
        if st.regression:
            self._fill_regression(st)
            return
        sch = self.schema
        shrink = "not shrunk (the default rule)" if st.shrinkage == 1.0 and st.rule_index == 0 else \
            f"shrinkage η = {st.shrinkage:g}"
        eq = "eq. (14): each label's score is −Σg / (Σh + λ)" if not st.note else st.note
        change = st.loss_after - st.loss_before
        self.summary.setText(
            f"<b>Rule #{st.rule_index}</b> covers {st.n_covered} of {st.n_train} training examples. "
            f"Its head minimises the {st.loss} loss's second-order approximation at the scores of the rules "
            f"before it: {eq}; λ (L2) = {st.l2:g}{f', L1 = {st.l1:g}' if st.l1 else ''}; {shrink}.<br>"
            f"Mean training loss: {st.loss_before:.5f} before → {st.loss_after:.5f} after "
            f"({change:+.5f}). A score's sign follows −Σg, not the share of relevant examples: where earlier rules "
            f"already score a label high, its relevant examples' gradients are near zero and a few irrelevant "
            f"ones can outweigh them.")
        rows = list(range(len(st.labels)))
        self.table.setRowCount(len(rows))
        for r in rows:
            values = (sch.label(int(st.labels[r])), f"{st.relevant_share[r]:.0%}", f"{st.mean_score[r]:+.3f}",
                      f"{st.gradient_sums[r]:+.4g}", f"{st.hessian_sums[r]:.4g}", f"{st.solution[r]:+.4f}",
                      f"{st.recomputed_head[r]:+.4f}", f"{st.head[r]:+.4f}")
            self._set_row(r, values, st)

    def _draw_region(self, index: int) -> None:
        """Two numeric attributes: the training examples and the rule's box in the x1/x2 plane."""
        X = self.train.X
        if X.shape[1] != 2 or self.schema.nominal_values:
            self.canvas.hide()
            return
        X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=float)
        rule = self.estimator.model_.rules[index]
        covered = rule.covers(X)
        ax = self.ax
        ax.clear()
        ax.scatter(X[~covered, 0], X[~covered, 1], s=5, c="0.8", lw=0, label="not covered")
        ax.scatter(X[covered, 0], X[covered, 1], s=7, c="#0072B2", lw=0, label="covered")
        (x0, x1), (y0, y1) = interval_of(rule, 0), interval_of(rule, 1)
        lo_x, hi_x = X[:, 0].min(), X[:, 0].max()
        lo_y, hi_y = X[:, 1].min(), X[:, 1].max()
        box = Rectangle((max(x0, lo_x), max(y0, lo_y)), min(x1, hi_x) - max(x0, lo_x),
                        min(y1, hi_y) - max(y0, lo_y), fill=False, ec="#D55E00", lw=2)
        ax.add_patch(box)
        big = 11 / 7 if self.presentation else 1.0  # presentation mode: ticks 15.3 px
        ax.set_xlabel(self.schema.feature(0), fontsize=8 * big)
        ax.set_ylabel(self.schema.feature(1), fontsize=8 * big)
        ax.set_title(f"rule #{index}: its region", fontsize=9 * big)
        ax.tick_params(labelsize=7 * big)
        ax.legend(loc="upper right", fontsize=7 * big, markerscale=2, framealpha=0.85)
        self._region_of = index
        self.canvas.show()
        self.canvas.draw_idle()
