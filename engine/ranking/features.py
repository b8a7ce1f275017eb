"""Base features φ_w(x) of the label-ranking booster (SPEC A.7: h_{w,y}(x, y') = φ_w(x)·[y' = y]).

Two families, both non-negative, both with a constant feature φ_0 = 1 (a per-label bias):

* ``'per-label'`` — the paper's form: φ_w(x) = x_w rescaled to [0, 1] on the training data
  (sparse non-negative data are divided by the column maximum so zeros stay zeros).  Missing
  values give 0.
* ``'thresholds'`` — φ_{a,θ}(x) = [x_a > θ] for up to ``n_thresholds`` thresholds per attribute
  at quantile midpoints of the training values: each base function reads as a rule
  "x_a > θ → y" with weight λ.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

FEATURES = ("per-label", "thresholds")


@dataclass(frozen=True)
class BaseFeatures:
    kind: str
    n_features_in: int
    offset: np.ndarray  # per-label: subtracted; thresholds: unused (empty)
    scale: np.ndarray  # per-label: divided by
    attribute: np.ndarray  # thresholds: attribute of each threshold feature
    threshold: np.ndarray  # thresholds: θ of each threshold feature

    @property
    def n_base(self) -> int:
        """Number of base features including the constant one."""
        return 1 + (self.n_features_in if self.kind == "per-label" else len(self.threshold))

    @classmethod
    def fit(cls, kind: str, X, n_thresholds: int = 8, cancel=None) -> "BaseFeatures":
        """The features of ``kind`` on training data ``X``; ``cancel`` (a callable that raises to stop)
        is called before each attribute's thresholds."""
        d = X.shape[1]
        empty = np.zeros(0)
        if kind == "per-label":
            if sp.issparse(X):
                Xc = sp.csc_matrix(X)
                data = Xc.data
                if np.nanmin(data, initial=0.0) >= 0:
                    mx = np.asarray(abs(Xc).max(axis=0).todense()).ravel()
                    return cls(kind, d, np.zeros(d), np.where(mx > 0, mx, 1.0), empty, empty)
                X = Xc.toarray()
            lo = np.nanmin(np.where(np.isnan(X), np.inf, X), axis=0)
            hi = np.nanmax(np.where(np.isnan(X), -np.inf, X), axis=0)
            lo = np.where(np.isfinite(lo), lo, 0.0)
            span = np.where(np.isfinite(hi) & (hi > lo), hi - lo, 1.0)
            return cls(kind, d, lo.astype(np.float64), span.astype(np.float64), empty, empty)
        if kind != "thresholds":
            raise ValueError(f"features must be one of {', '.join(map(repr, FEATURES))}, got {kind!r}")
        Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
        attrs, thetas = [], []
        for a in range(d):
            if cancel is not None:
                cancel()
            v = Xd[:, a]
            v = np.unique(v[~np.isnan(v)])
            if len(v) < 2:
                continue
            if len(v) <= n_thresholds + 1:
                cuts = (v[:-1] + v[1:]) / 2
            else:
                q = np.quantile(Xd[:, a][~np.isnan(Xd[:, a])], np.linspace(0, 1, n_thresholds + 2)[1:-1])
                idx = np.clip(np.searchsorted(v, q, side="right"), 1, len(v) - 1)
                cuts = np.unique((v[idx - 1] + v[idx]) / 2)
            attrs.append(np.full(len(cuts), a))
            thetas.append(cuts)
        attribute = np.concatenate(attrs).astype(np.int64) if attrs else np.zeros(0, np.int64)
        threshold = np.concatenate(thetas).astype(np.float64) if thetas else empty
        return cls(kind, d, empty, empty, attribute, threshold)

    def transform(self, X) -> sp.csr_matrix:
        """Φ: m x n_base, CSR float64, column 0 the constant feature."""
        m = X.shape[0]
        ones = sp.csr_matrix(np.ones((m, 1)))
        if self.kind == "per-label":
            if sp.issparse(X) and not self.offset.any():
                Xs = sp.csr_matrix(X, dtype=np.float64)
                Xs.data = np.nan_to_num(Xs.data, nan=0.0)
                return sp.hstack([ones, Xs @ sp.diags(1.0 / self.scale)], format="csr")
            Xd = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
            Z = np.nan_to_num((Xd - self.offset) / self.scale, nan=0.0)
            return sp.hstack([ones, sp.csr_matrix(Z)], format="csr")
        Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
        cols = Xd[:, self.attribute] > self.threshold  # NaN compares False: missing fires nothing
        return sp.hstack([ones, sp.csr_matrix(cols.astype(np.float64))], format="csr")

    def names(self, feature_names=None) -> list[str]:
        """Readable name of each base feature."""
        def attr(a):
            return feature_names[a] if feature_names else f"x{a}"
        if self.kind == "per-label":
            return ["1"] + [attr(a) for a in range(self.n_features_in)]
        return ["1"] + [f"{attr(a)} > {t:.4g}" for a, t in zip(self.attribute, self.threshold)]

    def to_dict(self) -> dict:
        return {"kind": self.kind, "n_features_in": self.n_features_in, "offset": self.offset.tolist(),
                "scale": self.scale.tolist(), "attribute": self.attribute.tolist(),
                "threshold": self.threshold.tolist()}

    @classmethod
    def from_dict(cls, d, n_features: int) -> "BaseFeatures":
        """Checked like every model field (ValueError naming the field)."""
        from .. import model_document as checks

        d = checks.mapping(d, "base_features")
        kind = checks.choice(d.get("kind"), "base_features.kind", FEATURES)
        n = checks.integer(d.get("n_features_in"), "base_features.n_features_in", n_features, n_features + 1)

        def numbers(key, length=None):
            vals = checks.sequence(d.get(key, []), f"base_features.{key}", max_length=10_000_000)
            out = np.array([checks.number(v, f"base_features.{key}[{i}]") for i, v in enumerate(vals)])
            if length is not None and len(out) != length:
                raise ValueError(f"base_features.{key}: {len(out)} entries, expected {length}")
            return out.astype(np.float64)

        if kind == "per-label":
            offset, scale = numbers("offset", n), numbers("scale", n)
            if (scale <= 0).any():
                raise ValueError("base_features.scale: entries must be positive")
            return cls(kind, n, offset, scale, np.zeros(0, np.int64), np.zeros(0))
        threshold = numbers("threshold")
        attrs = checks.sequence(d.get("attribute", []), "base_features.attribute", max_length=len(threshold))
        if len(attrs) != len(threshold):
            raise ValueError("base_features.attribute: one attribute per threshold expected")
        attribute = np.array([checks.integer(a, f"base_features.attribute[{i}]", 0, n)
                              for i, a in enumerate(attrs)], dtype=np.int64)
        return cls(kind, n, np.zeros(0), np.zeros(0), attribute, threshold)
