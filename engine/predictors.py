"""How a boosted rule model's scores become predictions and probabilities: mlrl-boomer 0.15.6's
``binary_predictor``, ``probability_predictor`` and probability calibration, same names, same
meanings, same defaults (read from its C++ source, ``mlrl/boosting/prediction/``; our own code).

- Marginal probabilities: the logistic function of each label's score, then the label's isotonic
  calibration (:mod:`engine.calibration`) when the model has one and the predictor uses it.
- Joint probability of a known label vector y (chain rule over independent labels):
  prod_k p_k^[y_k] (1 - p_k)^[1 - y_k] of the (calibrated) marginals, then the vector's own isotonic
  calibration.  Where a distribution is needed the joints are normalised over the known vectors
  (division by zero gives 0).
- ``probability_predictor``: ``output-wise`` gives the marginals; ``marginalized`` gives
  P(y_k = 1) = sum of the normalised joints of the known vectors containing k.  ``auto``:
  output-wise for decomposable losses, marginalized otherwise.  Only the logistic losses have
  probabilities; ``predict_proba`` of the others raises AttributeError, as mlrl-boomer does.
- ``binary_predictor``: ``output-wise`` predicts score_k > t, t = 0.5 for the squared hinge losses,
  else 0 (the loss's ``getDefaultPrediction``; ``based_on_probabilities``: the
  calibrated marginal > 0.5); ``example-wise`` the known label vector closest to the scores by the
  loss (eq. 19 of Rapp et al. 2020; ``based_on_probabilities``: the one of the largest calibrated
  joint probability, ties to the more frequent vector); ``gfm`` the general F-measure maximizer
  (Waegeman, Dembczynski, Jachnik, Cheng, Hüllermeier, JMLR 2014, Alg. 1) over the normalised joints
  of the known vectors.  ``auto``: output-wise for decomposable losses, example-wise otherwise.
  ``use_probability_calibration`` (default true) says whether a predictor uses the calibration.

Known label vectors are the training set's distinct label vectors (the holdout set included), in
the order first seen, with their frequencies (mlrl-boomer's ``LabelVectorSet``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from . import model_document as doc
from .calibration import IsotonicCalibration
from .core.losses import LOSSES, is_decomposable, score_threshold
from .core.vector_losses import logistic_vector_losses
from .options import parse_option

# the losses mlrl-boomer gives probabilities for (a marginal probability function: the logistic one)
PROBABILISTIC_LOSSES = ("logistic-decomposable", "logistic-non-decomposable")
BINARY_PREDICTORS = ("output-wise", "example-wise", "gfm")
PROBABILITY_PREDICTORS = ("output-wise", "marginalized")
_CHUNK_ENTRIES = 1 << 22  # rows x vectors x labels per block of the joint probabilities
EXACT_TIES_BUDGET = 200_000_000  # rows x vectors x labels up to which eq. (19) replicates mlrl-boomer's ties


def has_probabilities(loss: str) -> bool:
    return loss in PROBABILISTIC_LOSSES


def resolve_binary(loss: str, value: str) -> tuple[str, dict]:
    """(name, options) of ``binary_predictor`` with 'auto' resolved by the loss."""
    name, options = parse_option("binary_predictor", value)
    if name == "auto":
        name = "output-wise" if is_decomposable(loss) else "example-wise"
        options = {"based_on_probabilities": False, "use_probability_calibration": True}
    return name, options


def resolve_probability(loss: str, value: str) -> tuple[str, dict]:
    """(name, options) of ``probability_predictor`` with 'auto' resolved by the loss."""
    name, options = parse_option("probability_predictor", value)
    if name == "auto":
        name = "output-wise" if is_decomposable(loss) else "marginalized"
        options = {"use_probability_calibration": True}
    return name, options


def binary_mode(loss: str, value: str) -> str:
    """'label-wise' or 'example-wise' when predictions follow from the scores and the loss alone,
    else 'probabilistic' (GFM, or a predictor based on probabilities)."""
    name, options = resolve_binary(loss, value)
    if name == "gfm" or options.get("based_on_probabilities"):
        return "probabilistic"
    return "label-wise" if name == "output-wise" else "example-wise"


def not_supported(what: str, loss: str) -> AttributeError:
    """mlrl-boomer's refusal (an AttributeError) of probabilities for a loss without them."""
    return AttributeError(f"Prediction of {what} not supported using the current configuration: the {loss} loss "
                          f"has no probabilities (only {' and '.join(PROBABILISTIC_LOSSES)} do)")


def unique_rows(Y, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False):
    """``np.unique(Y, axis=0, ...)`` (same rows, order, indices, inverse and counts) for 0/1
    matrices, which NumPy sorts as opaque records while holding the GIL (1.3 s for 200,000 rows,
    a frozen window while a fit starts): here each row is packed into big-endian 64-bit words,
    whose order is the rows' lexicographic order, and the words are sorted with ``np.lexsort``.
    Other matrices go to ``np.unique``."""
    Y = np.asarray(Y)
    flags = (return_index, return_inverse, return_counts)
    binary = Y.ndim == 2 and Y.size > 0 and (Y.dtype == bool or (
        (np.issubdtype(Y.dtype, np.integer) or np.issubdtype(Y.dtype, np.floating)) and bool(((Y == 0) | (Y == 1)).all())))
    if not binary:
        result = np.unique(Y, axis=0, return_index=return_index, return_inverse=return_inverse,
                           return_counts=return_counts)
        if return_inverse:  # 1-D, as below, whatever the NumPy version
            result = list(result)
            result[1 + return_index] = np.asarray(result[1 + return_index]).reshape(-1)
            result = tuple(result)
        return result
    n = Y.shape[0]
    packed = np.packbits(Y.astype(bool), axis=1)  # column 0 is the highest bit of byte 0
    packed = np.pad(packed, ((0, 0), (0, (-packed.shape[1]) % 8)))
    words = np.ascontiguousarray(packed).view(">u8").astype(np.uint64)
    order = np.lexsort(words.T[::-1]) if words.shape[1] > 1 else np.argsort(words[:, 0], kind="stable")
    ordered = words[order]
    starts_mask = np.ones(n, dtype=bool)
    starts_mask[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    starts = np.flatnonzero(starts_mask)
    out = [Y[order[starts]]]
    if return_index:
        out.append(order[starts])  # a stable sort: the first occurrence of each row
    if return_inverse:
        inverse = np.empty(n, dtype=np.intp)
        inverse[order] = np.cumsum(starts_mask) - 1
        out.append(inverse)
    if return_counts:
        out.append(np.diff(np.append(starts, n)))
    return out[0] if not any(flags) else tuple(out)


def known_label_vectors(Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of the 0/1 matrix ``Y`` in the order first seen, and how often each occurs."""
    Y = np.ascontiguousarray(Y, dtype=np.uint8)
    if len(Y) == 0:
        return np.zeros((0, Y.shape[1]), dtype=np.uint8), np.zeros(0, dtype=np.int64)
    _, first, counts = unique_rows(Y, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    return Y[first[order]], counts[order].astype(np.int64)


def joint_probabilities(P: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """N x M: prod_k of P[:, k] where vector m has label k and 1 - P[:, k] where it has not."""
    N, K = P.shape
    M = len(vectors)
    out = np.empty((N, M))
    V = vectors.astype(bool)
    step = max(1, _CHUNK_ENTRIES // max(M * K, 1))
    for s in range(0, N, step):
        block = P[s:s + step, None, :]
        out[s:s + step] = np.where(V[None], block, 1.0 - block).prod(axis=2)
    return out


def normalised(J: np.ndarray) -> np.ndarray:
    """Rows of ``J`` divided by their sums; a quotient that is not finite becomes 0 (mlrl-boomer's
    ``divideOrZero``: a row with a NaN joint, see :mod:`engine.calibration`, becomes all zeros)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = J / J.sum(axis=1, keepdims=True)
    out[~np.isfinite(out)] = 0.0
    return out


def closest_vector(distance: np.ndarray, frequencies: np.ndarray) -> np.ndarray:
    """Per row of the N x M ``distance``, the index of the closest vector as mlrl-boomer's
    ``getClosestLabelVector`` finds it: walking the vectors in order, a vector replaces the best so
    far when it is closer, or as close and more frequent (so a NaN distance is never taken, and a
    NaN first distance is never replaced)."""
    N, M = distance.shape
    best = np.zeros(N, dtype=np.int64)
    best_d = distance[:, 0].copy()
    best_f = np.full(N, frequencies[0])
    for m in range(1, M):
        d = distance[:, m]
        take = (d < best_d) | ((d == best_d) & (frequencies[m] > best_f))
        best[take], best_d[take], best_f[take] = m, d[take], frequencies[m]
    return best


def loss_distances(loss: str, F: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """N x M: the loss of predicting each known vector given the scores (eq. 19's distance), in the
    arithmetic order of mlrl-boomer's ``measureDistance``, so that exact ties (symmetric scores, e.g.
    of examples only the default rule covers) fall the same way: the example-wise logistic loss as
    max + log(exp(-max) + sum_k exp(x_k - max)) summed label by label, x_k = -y_k f_k, max = max(0,
    x); a label-wise loss as the running mean over the labels of its per-label loss (the logistic one
    as x + log(exp(-x) + 1) for x > 0, else log(1 + exp(x))), with the C library's exp and log
    (:mod:`engine.core.vector_losses`); the squared error loss's per-label term (y_k - f_k)^2 with
    y_k = +-1, the squared hinge loss's (1 - f_k)^2 for a relevant label below 1 and f_k^2 for an
    irrelevant label above 0 (the reference's ``evaluatePrediction``; :mod:`engine.core.losses`)."""
    S = np.where(np.asarray(vectors, dtype=bool), 1.0, -1.0)[None]  # 1 x M x K signs
    N, M = F.shape[0], len(vectors)
    K = F.shape[1]
    out = np.empty((N, M))
    if loss in ("logistic-non-decomposable", "logistic-decomposable") and M:  # the C library's exp and log
        logistic_vector_losses(np.ascontiguousarray(F, dtype=np.float64), np.ascontiguousarray(S[0]),
                               loss == "logistic-non-decomposable", out)
        return out
    step = max(1, _CHUNK_ENTRIES // max(M * K, 1))
    for s in range(0, N, step):
        f = np.asarray(F[s:s + step], dtype=np.float64)[:, None, :]
        if loss.startswith("squared-error"):
            terms = (S - f) ** 2
        else:  # relevant: (1 - f)^2 below 1; irrelevant: f^2 above 0; else 0
            terms = np.where(S > 0, np.where(f < 1.0, (1.0 - f) ** 2, 0.0), np.where(f > 0.0, f * f, 0.0))
        if is_decomposable(loss):
            mean = np.zeros(terms.shape[:2])
            for k in range(K):
                mean = mean + (terms[..., k] - mean) / (k + 1)
            out[s:s + step] = mean
        else:
            out[s:s + step] = np.sqrt(terms.sum(axis=2))
    return out


def gfm_predict(J: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """The general F-measure maximizer (Waegeman et al. 2014, Alg. 1) given the normalised joint
    probabilities ``J`` (N x M) of the known label ``vectors`` (M x K).

    With P[i, s] the probability that label i is relevant and s labels are, the expected F1 of
    predicting the k labels of largest Delta[i, k] = sum_s 2 P[i, s] / (s + k) is the sum of those k
    values; predicting nothing is worth P(no label).  The best of the K + 1 candidates is predicted
    (the smaller k on ties: a candidate must be strictly better)."""
    N, M = J.shape
    K = vectors.shape[1]
    out = np.zeros((N, K), dtype=np.uint8)
    if M == 0 or K == 0:
        return out
    sizes = vectors.sum(axis=1).astype(np.int64)
    s_max = int(sizes.max())
    null = J[:, sizes == 0].sum(axis=1)  # at most one known vector is empty
    if s_max == 0:
        return out
    # P[n, i, s-1] = sum over vectors m of size s containing i of J[n, m]
    P = np.zeros((N, K, s_max))
    V = vectors.astype(np.float64)
    for s in range(1, s_max + 1):
        members = sizes == s
        if members.any():
            P[:, :, s - 1] = J[:, members] @ V[members]
    ks = np.arange(1, K + 1)
    weights = 2.0 / (np.arange(1, s_max + 1)[:, None] + ks[None, :])  # s x k
    delta = P @ weights  # N x K(labels) x K(k)
    order = np.argsort(-delta, axis=1, kind="stable")  # labels by decreasing Delta, per k
    ranked = np.take_along_axis(delta, order, axis=1)
    quality = np.cumsum(ranked, axis=1)[:, ks - 1, ks - 1]  # N x K: the top-k sum for each k
    best_q = null.copy()
    best_k = np.zeros(N, dtype=np.int64)
    for k in ks:
        better = quality[:, k - 1] > best_q
        best_q = np.where(better, quality[:, k - 1], best_q)
        best_k = np.where(better, k, best_k)
    for n in np.flatnonzero(best_k):
        k = best_k[n]
        out[n, order[n, :k, k - 1]] = 1
    return out


@dataclass
class Predictors:
    """A fitted BOOMER model's prediction settings, known label vectors and calibration."""

    loss: str
    binary: str = "output-wise"
    based_on_probabilities: bool = False
    binary_calibrated: bool = True
    probability: str = "output-wise"
    probability_calibrated: bool = True
    vectors: np.ndarray | None = None  # M x K uint8, first-seen order
    frequencies: np.ndarray | None = None  # M
    marginal: IsotonicCalibration | None = None  # one list per label
    joint: IsotonicCalibration | None = None  # one list per known vector

    @classmethod
    def of(cls, loss: str, binary_predictor: str, probability_predictor: str, Y: np.ndarray) -> "Predictors":
        binary, b_options = resolve_binary(loss, binary_predictor)
        probability, p_options = resolve_probability(loss, probability_predictor)
        vectors, frequencies = known_label_vectors(Y)
        return cls(loss, binary, bool(b_options.get("based_on_probabilities", False)),
                   bool(b_options["use_probability_calibration"]), probability,
                   bool(p_options["use_probability_calibration"]), vectors, frequencies)

    # -- probabilities --------------------------------------------------------------------
    def marginals(self, F: np.ndarray, calibrated: bool = True) -> np.ndarray:
        """The logistic function of the scores, calibrated per label (when fitted and wanted)."""
        P = expit(np.asarray(F, dtype=np.float64))
        if calibrated and self.marginal is not None:
            P = self.marginal.apply(P)
        return P

    def joints(self, F: np.ndarray, calibrated: bool = True) -> np.ndarray:
        """N x M unnormalised joint probabilities of the known vectors (chain rule, calibrated)."""
        J = joint_probabilities(self.marginals(F, calibrated), self.vectors)
        if calibrated and self.joint is not None:
            J = self.joint.apply(J)
        return J

    def probabilities(self, F: np.ndarray) -> np.ndarray:
        """``predict_proba``: marginal probabilities by the probability predictor."""
        if not has_probabilities(self.loss):
            raise not_supported("probabilities", self.loss)
        if self.probability == "output-wise":
            P = self.marginals(F, self.probability_calibrated)
        elif self.vectors is None or len(self.vectors) == 0:
            return np.zeros(F.shape)
        else:
            P = normalised(self.joints(F, self.probability_calibrated)) @ self.vectors.astype(np.float64)
        # a sum of normalised joints, or an interpolated calibration bin, may round past 1 (1 + 2 ulp seen)
        return np.clip(P, 0.0, 1.0, out=P)

    # -- binary predictions -------------------------------------------------------------------
    @property
    def probabilistic(self) -> bool:
        """Whether binary predictions need probabilities (else they follow from scores and the loss)."""
        return self.binary == "gfm" or self.based_on_probabilities

    @property
    def by_vectors(self) -> bool:
        """Whether :meth:`binary_predictions` makes the predictions (all but output-wise by score)."""
        return self.binary != "output-wise" or self.based_on_probabilities

    def predicts(self, n_rows: int) -> bool:
        """Whether :meth:`binary_predictions` should predict ``n_rows`` examples: every predictor but
        output-wise by score, except eq. (19) by the loss when rows x known vectors x labels exceeds
        :data:`EXACT_TIES_BUDGET` (the model's label-vector search is then much faster; it may break
        an exact tie another way)."""
        if not self.by_vectors:
            return False
        if self.probabilistic or self.vectors is None:
            return True
        return n_rows * self.vectors.size <= EXACT_TIES_BUDGET

    def binary_predictions(self, F: np.ndarray) -> np.ndarray:
        """Binary predictions of every predictor but output-wise by score (:attr:`by_vectors`)."""
        F = np.asarray(F, dtype=np.float64)
        if not self.probabilistic:
            if self.binary == "output-wise":
                return (F > score_threshold(self.loss)).astype(np.uint8)
            if self.vectors is None or len(self.vectors) == 0:
                return np.zeros(F.shape, dtype=np.uint8)
            # eq. (19): the known vector of the smallest loss, ties to the more frequent one
            return self.vectors[closest_vector(loss_distances(self.loss, F, self.vectors), self.frequencies)].copy()
        if not has_probabilities(self.loss):
            raise not_supported("binary labels", self.loss)
        calibrated = self.binary_calibrated
        if self.binary == "output-wise":
            return (self.marginals(F, calibrated) > 0.5).astype(np.uint8)
        if self.vectors is None or len(self.vectors) == 0:
            return np.zeros(F.shape, dtype=np.uint8)
        J = self.joints(F, calibrated)
        if self.binary == "gfm":
            return gfm_predict(normalised(J), self.vectors)
        # example-wise: smallest 1 - joint, ties to the more frequent vector, then the first seen
        return self.vectors[closest_vector(1.0 - J, self.frequencies)].copy()

    # -- files --------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"loss": self.loss, "binary": self.binary, "based_on_probabilities": self.based_on_probabilities,
                "binary_calibrated": self.binary_calibrated, "probability": self.probability,
                "probability_calibrated": self.probability_calibrated,
                "label_vectors": [] if self.vectors is None else self.vectors.tolist(),
                "frequencies": [] if self.frequencies is None else [int(f) for f in self.frequencies],
                "marginal_calibration": None if self.marginal is None else self.marginal.to_dict(),
                "joint_calibration": None if self.joint is None else self.joint.to_dict()}

    @classmethod
    def from_dict(cls, d, n_labels: int, field: str = "model, predictors") -> "Predictors":
        """Read :meth:`to_dict`'s form from an untrusted file; every field is checked (ValueError)."""
        d = doc.mapping(d, field)
        loss = doc.choice(d.get("loss"), f"{field}, loss", LOSSES)
        binary = doc.choice(d.get("binary"), f"{field}, binary", BINARY_PREDICTORS)
        probability = doc.choice(d.get("probability"), f"{field}, probability", PROBABILITY_PREDICTORS)
        flags = {}
        for key in ("based_on_probabilities", "binary_calibrated", "probability_calibrated"):
            value = d.get(key)
            if not isinstance(value, bool):
                raise ValueError(f"{field}, {key}: expected true or false, found {value!r}")
            flags[key] = value
        rows = doc.sequence(d.get("label_vectors", []), f"{field}, label_vectors")
        vectors = (doc.label_vector_matrix(rows, f"{field}, label_vectors", n_labels) if rows
                   else np.zeros((0, n_labels), dtype=np.uint8))
        counts = doc.sequence(d.get("frequencies", []), f"{field}, frequencies", max_length=len(vectors))
        if len(counts) != len(vectors):
            raise ValueError(f"{field}, frequencies: {len(counts)} for {len(vectors)} label vectors")
        frequencies = np.array([doc.integer(c, f"{field}, frequencies[{i}]", 1, 2**63 - 1)
                                for i, c in enumerate(counts)], dtype=np.int64)
        if len(vectors) and len(unique_rows(vectors)) != len(vectors):
            raise ValueError(f"{field}, label_vectors: a label vector occurs twice")
        if (binary != "output-wise" or probability == "marginalized") and not len(vectors):
            raise ValueError(f"{field}: the {binary} / {probability} predictors need the known label vectors")
        marginal = d.get("marginal_calibration")
        joint = d.get("joint_calibration")
        marginal = None if marginal is None else IsotonicCalibration.from_dict(
            marginal, f"{field}, marginal_calibration", n_labels)
        joint = None if joint is None else IsotonicCalibration.from_dict(
            joint, f"{field}, joint_calibration", len(vectors))
        return cls(loss, binary, flags["based_on_probabilities"], flags["binary_calibrated"], probability,
                   flags["probability_calibrated"], vectors, frequencies, marginal, joint)


def logistic(F: np.ndarray) -> np.ndarray:
    """The logistic function in the scores' own precision, as mlrl-boomer's ``logisticFunction``
    evaluates it: exp(x) / (1 + exp(x)) for x < 0, else 1 / (1 + exp(-x)) (float32 scores of 32-bit
    statistics stay float32 throughout)."""
    F = np.asarray(F)
    one = F.dtype.type(1)
    with np.errstate(over="ignore"):
        e = np.exp(-np.abs(F))
        return np.where(F < 0, e / (one + e), one / (one + e))


def joint_outcomes(Y: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """N x M outcomes for fitting the joint calibration, as mlrl-boomer 0.15.6 counts them: example
    n counts for vector m when m's relevant labels are the first |m| relevant labels of the example
    (its ``areLabelVectorsEqual`` compares a prefix: an exact match for most pairs, but the empty
    vector matches every example and {0} matches an example with labels {0, 2})."""
    Y = np.asarray(Y, dtype=bool)
    V = np.asarray(vectors, dtype=bool)
    sizes = V.sum(axis=1)
    # rank[n, k]: how many relevant labels example n has before label k (inclusive)
    rank = np.cumsum(Y, axis=1)
    out = np.zeros((len(Y), len(V)), dtype=np.float64)
    for m in range(len(V)):
        labels = np.flatnonzero(V[m])
        if len(labels) == 0:
            out[:, m] = 1.0
            continue
        # the vector's labels are relevant and are the example's first |m| relevant ones
        ok = Y[:, labels].all(axis=1) & (rank[:, labels[-1]] == sizes[m])
        out[:, m] = ok
    return out


def fit_calibration(predictors: Predictors, F: np.ndarray, Y: np.ndarray, marginal_rows: np.ndarray | None,
                    joint_rows: np.ndarray | None) -> None:
    """Fit the isotonic calibrations of ``predictors`` in place from the training scores ``F``
    (float32 when the statistics are 32-bit: mlrl-boomer takes the logistic function in the
    statistics' type) and labels ``Y``, on the given rows (None: no such calibration).  The joint
    calibration is fitted on the chain rule's joints of the marginals, calibrated by the marginal
    calibration when there is one.  Losses without probabilities get none."""
    if not has_probabilities(predictors.loss):
        return
    P = logistic(F).astype(np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    if marginal_rows is not None:
        predictors.marginal = IsotonicCalibration.fit(P[marginal_rows], Y[marginal_rows])
    if joint_rows is not None and predictors.vectors is not None and len(predictors.vectors):
        Pj = P[joint_rows] if predictors.marginal is None else predictors.marginal.apply(P[joint_rows])
        predictors.joint = IsotonicCalibration.fit(joint_probabilities(Pj, predictors.vectors),
                                                   joint_outcomes(Y[joint_rows], predictors.vectors))
