"""``bench --scale``'s "reach" columns: the test losses after each rule, and when ours first reach a
target, checked against the fitted model's own predictions and hand-computed times."""
from __future__ import annotations

import math

import numpy as np

from engine import BoomerClassifier, metrics
from engine.bench.fit_driver import staged_test_losses
from engine.bench.scale import make_data, time_to_reach


def test_staged_losses_end_at_the_models_own_predictions_and_start_at_the_default_rule():
    X, Y, Xt, Yt = make_data(400, 6)
    Xt, Yt = Xt[:500], Yt[:500]
    for settings in (dict(head_type="single"), dict(head_type="complete", loss="logistic-non-decomposable")):
        model = BoomerClassifier(max_rules=15, random_state=1, **settings).fit(X, Y)
        hamming, subset = staged_test_losses(model.model_, Xt, Yt)
        assert len(hamming) == len(subset) == len(model.model_.rules) == 15
        final = model.predict(Xt)
        assert hamming[-1] == metrics.hamming_loss(Yt, final)
        assert subset[-1] == metrics.subset_zero_one_loss(Yt, final)
        default_only = BoomerClassifier(max_rules=1, random_state=1, **settings).fit(X, Y).predict(Xt)
        assert hamming[0] == metrics.hamming_loss(Yt, default_only)
        assert subset[0] == metrics.subset_zero_one_loss(Yt, default_only)
        prefix = BoomerClassifier(max_rules=7, random_state=1, **settings).fit(X, Y).predict(Xt)
        assert hamming[6] == metrics.hamming_loss(Yt, prefix)


def test_time_to_reach_is_the_first_rule_at_or_below_the_target():
    seconds = [0.1, 0.5, 0.9, 1.4]
    losses = [0.30, 0.25, 0.20, 0.22]
    assert time_to_reach(seconds, losses, 0.25) == 0.5
    assert time_to_reach(seconds, losses, 0.21) == 0.9
    assert time_to_reach(seconds, losses, 0.30) == 0.1
    assert math.isnan(time_to_reach(seconds, losses, 0.19))
    assert time_to_reach(seconds, np.array(losses), 0.2 + 1e-15) == 0.9


def test_a_drivers_peak_memory_is_its_own_not_its_parents():
    """The benchmarks start each fit from a process that may hold far more data than the fit; Linux
    carries ``ru_maxrss`` over ``execve``, so the driver must report its own address space's peak."""
    import subprocess
    import sys
    from pathlib import Path

    if not Path("/proc/self/status").exists():
        import pytest

        pytest.skip("no /proc: the driver falls back to ru_maxrss")
    ballast = np.ones(400 * 2**20 // 8)  # 400 MiB resident in this (parent) process
    ballast[::512] = 2.0
    code = ("from engine.bench.fit_driver import peak_resident_mib; import numpy as np; "
            "a = np.ones(64 * 2**20 // 8); a[::512] = 2.0; print(peak_resident_mib())")
    child = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert 64 < child < 380, child  # its own 64 MiB array and imports, not the parent's 400 MiB
    del ballast  # resident until the child has answered


def test_each_scale_row_states_its_settings_and_the_shared_ones_complete_them():
    """The table's header names every row's settings: a row's own text plus the shared text is exactly what
    the row's fit is given (the example-wise complete row with label binning included)."""
    from engine.bench.scale import VARIANTS, describe, settings

    assert "ex-complete" in VARIANTS
    shared = describe(None, rules=300)
    for row in VARIANTS:
        text = f"{describe(row)}, {shared}"
        given = {k: str(v) for k, v in settings(row, 300, 1).items() if k != "random_state"}
        assert dict(part.split("=", 1) for part in text.split(", ")) == given
    assert describe("ex-complete") == "loss=logistic-non-decomposable, head_type=complete, label_binning=equal-width"
