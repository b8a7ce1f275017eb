"""The prediction code of an exported rule model (``python -m engine export MODEL --python OUT.py``).

This module needs only the standard library (NumPy, when importable, computes the scores faster,
with the same additions in the same order); :mod:`engine.model_export` copies its source into the
exported file, followed by the model as a literal ``MODEL``.  It reproduces the engine's
predictions exactly: attribute values are rounded to float32 (as the engine reads data) and compared
with the float64 thresholds, a missing value (NaN, None) satisfies no condition, the scores are the
covering heads summed in rule order (eq. 2; decision lists: the first covering rule per label), and
the binary predictions follow the model's predictor (a score above the loss's threshold, 0.5 for
the squared hinge losses, else 0; eq. 19's nearest known label vector by the loss, with the
engine's search and its ties; or mlrl-boomer's predictors based on probabilities, with the
isotonic calibration).  Probabilities are the logistic function of the scores (then calibrated, or
marginalized over the known label vectors), equal to the engine's up to float rounding.

A row is a sequence of attribute values or a mapping {attribute index: value} (a sparse row: absent
attributes are 0).  Everything here must stay free of imports from the engine."""
import math
import struct

try:  # optional: vectorised scores
    import numpy as _np
except ImportError:  # pragma: no cover - the exported file's plain-Python path
    _np = None

MODEL = None  # the exported file assigns the model here

_OPS = ("<=", ">", "==", "!=")
_THRESHOLDS = {"squared-hinge-decomposable": 0.5, "squared-hinge-non-decomposable": 0.5}  # else 0
_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _float32(v):
    """``v`` rounded to float32 as the engine reads data (NaN for a missing value)."""
    if v is None:
        return math.nan
    v = float(v)
    if v != v:
        return v
    try:
        return struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def _dense_row(row, n_features):
    if isinstance(row, dict):
        out = [0.0] * n_features
        for j, v in row.items():
            j = int(j)
            if not 0 <= j < n_features:
                raise ValueError(f"attribute index {j} is outside 0..{n_features - 1}")
            out[j] = _float32(v)
        return out
    row = list(row)
    if len(row) != n_features:
        raise ValueError(f"a row has {len(row)} attributes; the model was trained on {n_features}")
    return [_float32(v) for v in row]


def _satisfies(op, thr, v):
    if v != v:
        return False
    if op == 0:
        return v <= thr
    if op == 1:
        return v > thr
    if op == 2:
        return v == thr
    return v != thr


def _covers(conditions, x):
    for a, op, thr in conditions:
        if not _satisfies(op, thr, x[a]):
            return False
    return True


def _rows(X, model):
    return [_dense_row(row, model["n_features"]) for row in X]


def _scores_python(rows, model):
    K = model["n_labels"]
    first = model["prediction"] == "decision-list"
    out = []
    for x in rows:
        f = [0.0] * K
        decided = [False] * K
        for conditions, labels, scores in model["rules"]:
            if not _covers(conditions, x):
                continue
            for k, s in zip(labels, scores):
                if not first:
                    f[k] += s
                elif not decided[k]:
                    f[k] = s
                    decided[k] = True
        out.append(f)
    return out


def _scores_numpy(rows, model):
    """The same sums with NumPy: per rule in order, its head added to the covered rows."""
    X = _np.asarray(rows, dtype=_np.float64).reshape(len(rows), model["n_features"])
    F = _np.zeros((len(rows), model["n_labels"]))
    decided = _np.zeros(F.shape, dtype=bool)
    first = model["prediction"] == "decision-list"
    with _np.errstate(invalid="ignore"):
        for conditions, labels, scores in model["rules"]:
            mask = _np.ones(len(rows), dtype=bool)
            for a, op, thr in conditions:
                v = X[:, a]
                mask &= (v <= thr, v > thr, v == thr, (v != thr) & (v == v))[op]
            rows_covered = _np.flatnonzero(mask)
            if not len(rows_covered):
                continue
            for k, s in zip(labels, scores):
                if first:
                    take = rows_covered[~decided[rows_covered, k]]
                    F[take, k] = s
                    decided[take, k] = True
                else:
                    F[rows_covered, k] += s
    return F.tolist()


def decision_function(X, model=None):
    """Per row and label the score: the sum of the covering rules' heads (decision lists: the vote
    of the first covering rule that predicts the label, 0 where none does)."""
    model = model or MODEL
    rows = _rows(X, model)
    if _np is not None and rows:
        return _scores_numpy(rows, model)
    return _scores_python(rows, model)


def predict(X, model=None):
    """Per row the 0/1 prediction of every label."""
    model = model or MODEL
    return predict_from_scores(decision_function(X, model), model)


def predict_proba(X, model=None):
    """Per row and label the probability of the label (AttributeError for a loss without them)."""
    model = model or MODEL
    if model["prediction"] == "decision-list":
        raise AttributeError("a decision list predicts labels, not probabilities")
    F = decision_function(X, model)
    p = model.get("predictors")
    if p is None:
        return [[_expit(v) for v in f] for f in F]
    if p["loss"] not in ("logistic-decomposable", "logistic-non-decomposable"):
        raise AttributeError(f"the {p['loss']} loss has no probabilities")
    if p["probability"] == "output-wise":
        return [_marginals(f, p, p["probability_calibrated"]) for f in F]
    vectors = p["label_vectors"]
    if not vectors:
        return [[0.0] * len(f) for f in F]
    out = []
    for f in F:
        J = _normalised(_joints(f, p, p["probability_calibrated"]))
        out.append([_dot_column(J, vectors, k) for k in range(len(f))])
    return out


def _dot_column(J, vectors, k):
    total = 0.0
    for j, v in zip(J, vectors):
        total += j * v[k]
    return total


def predict_from_scores(F, model=None):
    """The model's binary predictions of scores ``F`` (one list of label scores per row)."""
    model = model or MODEL
    p = model.get("predictors")
    if p is not None and _predictors_predict(p, len(F)):
        return [_predictor_prediction(f, p) for f in F]
    if model["prediction"] == "example-wise":
        search = _Search(model)
        return [search.best(f) for f in F]
    threshold = _THRESHOLDS.get(model.get("loss"), 0.0)
    return [[1 if v > threshold else 0 for v in f] for f in F]


# -- mlrl-boomer's predictors (engine.predictors) -------------------------------------------------
def _predictors_predict(p, n_rows):
    if p["binary"] == "output-wise" and not p["based_on_probabilities"]:
        return False
    if p["binary"] == "gfm" or p["based_on_probabilities"] or not p["label_vectors"]:
        return True
    vectors = p["label_vectors"]
    return n_rows * len(vectors) * len(vectors[0]) <= p["exact_ties_budget"]


def _predictor_prediction(f, p):
    vectors = p["label_vectors"]
    if not (p["binary"] == "gfm" or p["based_on_probabilities"]):
        if p["binary"] == "output-wise":
            threshold = _THRESHOLDS.get(p["loss"], 0.0)
            return [1 if v > threshold else 0 for v in f]
        if not vectors:
            return [0] * len(f)
        m = _closest(_loss_distances(p["loss"], f, vectors), p["frequencies"])
        return list(vectors[m])
    if p["loss"] not in ("logistic-decomposable", "logistic-non-decomposable"):
        raise AttributeError(f"the {p['loss']} loss has no probabilities")
    calibrated = p["binary_calibrated"]
    if p["binary"] == "output-wise":
        return [1 if q > 0.5 else 0 for q in _marginals(f, p, calibrated)]
    if not vectors:
        return [0] * len(f)
    J = _joints(f, p, calibrated)
    if p["binary"] == "gfm":
        return _gfm(_normalised(J), vectors)
    return list(vectors[_closest([1.0 - j for j in J], p["frequencies"])])


def _expit(x):
    try:
        return 1.0 / (1.0 + math.exp(-x))
    except OverflowError:
        return 0.0


def _apply_bins(bins, q):
    """Isotonic calibration of ``q`` by one list of (threshold, value) bins (engine.calibration)."""
    if not bins:
        return q
    lo, hi = 0, len(bins)
    while lo < hi:  # the first bin whose threshold is >= q
        mid = (lo + hi) // 2
        if bins[mid][0] < q:
            lo = mid + 1
        else:
            hi = mid
    lo_x, lo_y = bins[lo - 1] if lo > 0 else (0.0, 0.0)
    up_x, up_y = bins[lo] if lo < len(bins) else (1.0, 1.0)
    width = up_x - lo_x
    if width == 0.0:
        t = math.nan if q - lo_x == 0.0 or q != q else math.copysign(math.inf, q - lo_x)
    else:
        t = (q - lo_x) / width
    return lo_y + t * (up_y - lo_y)


def _marginals(f, p, calibrated):
    P = [_expit(v) for v in f]
    lists = p.get("marginal_calibration")
    if calibrated and lists is not None:
        P = [_apply_bins(lists[k], q) for k, q in enumerate(P)]
    return P


def _joints(f, p, calibrated):
    P = _marginals(f, p, calibrated)
    out = []
    for vector in p["label_vectors"]:
        j = 1.0
        for q, y in zip(P, vector):
            j *= q if y else 1.0 - q
        out.append(j)
    lists = p.get("joint_calibration")
    if calibrated and lists is not None:
        out = [_apply_bins(lists[m], j) for m, j in enumerate(out)]
    return out


def _normalised(J):
    total = _numpy_sum(J)
    out = []
    for j in J:
        try:
            q = j / total
        except ZeroDivisionError:
            q = math.nan
        out.append(q if math.isfinite(q) else 0.0)
    return out


def _closest(distance, frequencies):
    """The first closest vector; a later one replaces it when closer, or as close and more frequent."""
    best, best_d, best_f = 0, distance[0], frequencies[0]
    for m in range(1, len(distance)):
        d = distance[m]
        if d < best_d or (d == best_d and frequencies[m] > best_f):
            best, best_d, best_f = m, d, frequencies[m]
    return best


def _loss_distances(loss, f, vectors):
    """Eq. (19)'s distance of each known vector in the arithmetic order of engine.predictors."""
    out = []
    K = len(f)
    for vector in vectors:
        x = [(-f[k] if vector[k] else f[k]) for k in range(K)]
        if loss == "logistic-non-decomposable":
            top = max(max(x), 0.0) if x else 0.0
            total = math.exp(0.0 - top)
            for v in x:
                total = total + math.exp(v - top)
            out.append(top + math.log(total))
            continue
        if loss == "logistic-decomposable":
            terms = [(v + math.log(math.exp(0.0 - v) + 1.0)) if v > 0 else math.log(1.0 + math.exp(v)) for v in x]
        elif loss.startswith("squared-error"):
            terms = [_square(f[k] - (1.0 if vector[k] else -1.0)) for k in range(K)]
        else:
            terms = [_square(_hinge(vector[k], f[k])) for k in range(K)]
        if not loss.endswith("non-decomposable"):
            mean = 0.0
            for k, t in enumerate(terms):
                mean = mean + (t - mean) / (k + 1)
            out.append(mean)
        else:
            out.append(math.sqrt(_numpy_sum(terms)))
    return out


def _square(v):
    return v * v


def _hinge(relevant, v):
    """The squared hinge loss's residual of a label (engine.core.losses): targets 0 and 1."""
    if relevant:
        return v - 1.0 if v < 1.0 else 0.0
    return v if v > 0.0 else 0.0


def _numpy_sum(values):
    """A sum in NumPy's order for a reduction along a contiguous axis (its pairwise summation)."""
    return _pairwise(values, 0, len(values))


def _pairwise(a, start, n):
    if n < 8:
        res = 0.0
        for i in range(start, start + n):
            res += a[i]
        return res
    if n <= 128:
        r = list(a[start:start + 8])
        i = 8
        while i < n - (n % 8):
            for j in range(8):
                r[j] += a[start + i + j]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for i in range(i, n):
            res += a[start + i]
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise(a, start, n2) + _pairwise(a, start + n2, n - n2)


def _gfm(J, vectors):
    """The general F-measure maximizer (engine.predictors.gfm_predict) of normalised joints ``J``."""
    K = len(vectors[0])
    sizes = [sum(v) for v in vectors]
    s_max = max(sizes)
    out = [0] * K
    if s_max == 0:
        return out
    null = sum(j for j, s in zip(J, sizes) if s == 0)
    P = [[0.0] * s_max for _ in range(K)]  # P[i][s-1]
    for j, v, s in zip(J, vectors, sizes):
        if s:
            for i in range(K):
                if v[i]:
                    P[i][s - 1] += j
    best_q, best = null, []
    for k in range(1, K + 1):
        delta = [sum(P[i][s - 1] * (2.0 / (s + k)) for s in range(1, s_max + 1)) for i in range(K)]
        order = sorted(range(K), key=lambda i: -delta[i])[:k]
        quality = 0.0
        for i in order:
            quality += delta[i]
        if quality > best_q:
            best_q, best = quality, order
    for i in best:
        out[i] = 1
    return out


# -- eq. (19) by the engine's label-vector search (engine.core.label_vectors) --------------------
class _Search:
    """The known label vector of the smallest example-wise loss, found as the engine finds it: from
    the unconstrained minimiser, flip sets in nondecreasing penalty looked up by Zobrist hashes, and
    after the probe budget a linear scan."""

    def __init__(self, model):
        self.loss = model["loss"]
        self.vectors = model["label_vectors"]
        self.keys = model["vector_keys"]
        self.budget = model["search_budget"]
        self.positives = [[k for k, y in enumerate(v) if y] for v in self.vectors]
        self.index = {}
        for m, labels in enumerate(self.positives):
            h = 0
            for k in labels:
                h ^= self.keys[k]
            self.index.setdefault(h, m)

    def _costs(self, f):
        if self.loss.startswith("logistic"):
            top = 0.0
            for v in f:
                top = max(top, abs(v))
            return [math.exp(-v - top) for v in f], [math.exp(v - top) for v in f]
        if self.loss.startswith("squared-error"):
            return [(v - 1.0) * (v - 1.0) for v in f], [(v + 1.0) * (v + 1.0) for v in f]
        pos = [_hinge(True, v) for v in f]
        neg = [_hinge(False, v) for v in f]
        return [c * c for c in pos], [c * c for c in neg]

    def _cost(self, m, base, pos, neg):
        c = base
        for k in self.positives[m]:
            c += pos[k] - neg[k]
        return c

    def best(self, f):
        return list(self.vectors[self._best_index(f)])

    def _best_index(self, f):
        pos, neg = self._costs(f)
        K = len(f)
        base, star, h0, pen = 0.0, 0.0, 0, [0.0] * K
        for k in range(K):
            base += neg[k]
            d = pos[k] - neg[k]
            if d < 0.0:
                h0 ^= self.keys[k]
                star += d
            pen[k] = abs(d)
        star += base
        m = self.index.get(h0, -1)
        if m >= 0 and abs(self._cost(m, base, pos, neg) - star) <= 1e-9 * (1.0 + abs(star)):
            return m
        order = sorted(range(K), key=pen.__getitem__)
        heap = _Heap(2 * self.budget + 2)
        if K > 0:
            heap.push(pen[order[0]], 0, h0 ^ self.keys[order[0]])
        probes = 0
        while heap.n > 0 and probes < self.budget:
            s, last, h = heap.pop()
            probes += 1
            m = self.index.get(h, -1)
            if m >= 0 and abs(self._cost(m, base, pos, neg) - (star + s)) <= 1e-9 * (1.0 + abs(star) + s):
                return m
            if last + 1 < K:
                nxt = order[last + 1]
                heap.push(s + pen[nxt], last + 1, h ^ self.keys[nxt])
                heap.push(s - pen[order[last]] + pen[nxt], last + 1, h ^ self.keys[order[last]] ^ self.keys[nxt])
        best, best_cost = -1, math.inf
        for m in range(len(self.vectors)):
            c = self._cost(m, base, pos, neg)
            if c < best_cost:
                best, best_cost = m, c
        return best


class _Heap:
    """The engine's binary min-heap on (penalty sum, last label, hash), same swaps, same ties."""

    def __init__(self, size):
        self.items = [None] * size
        self.n = 0

    def push(self, s, last, h):
        a = self.items
        i = self.n
        a[i] = (s, last, h)
        while i > 0:
            p = (i - 1) >> 1
            if a[p][0] <= a[i][0]:
                break
            a[p], a[i] = a[i], a[p]
            i = p
        self.n += 1

    def pop(self):
        a = self.items
        self.n -= 1
        n = self.n
        a[0], a[n] = a[n], a[0]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= n:
                break
            if c + 1 < n and a[c + 1][0] < a[c][0]:
                c += 1
            if a[i][0] <= a[c][0]:
                break
            a[c], a[i] = a[i], a[c]
            i = c
        return a[n]
