"""Shared test set-up: Qt runs offscreen; real benchmark data are found beside the project; BLAS
runs single-threaded (pytest-xdist already runs one test process per core)."""
import os
from pathlib import Path

# The learners' BLAS calls in tests are tiny (L-BFGS on a few hundred rows): OpenBLAS's threads only
# wait for each other, and with one test process per core they take the other process's core.  An
# MLME fit of scikit-learn's checks: 0.31 s single-threaded against 0.84 s (2 cores, busy machine).
for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis budgets: "ci" (the default) keeps the fuzz targets (tests/test_fuzz.py) to about two minutes
# of the suite on two cores; "long" is the deeper run of `pytest -m fuzz --hypothesis-profile=long`.
# Tests that set max_examples themselves keep their own budget.
_FUZZ_CHECKS = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much]
settings.register_profile("ci", max_examples=25, deadline=None, suppress_health_check=_FUZZ_CHECKS)
settings.register_profile("long", max_examples=1000, deadline=None, suppress_health_check=_FUZZ_CHECKS)
settings.load_profile("ci")

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

if os.environ.get("BOOMER_COMPILE_LOG"):  # which test compiles which kernels (tests/compile_log.py)
    from compile_log import pytest_runtest_protocol  # noqa: F401

from threadpoolctl import threadpool_limits  # noqa: E402  (numpy may be loaded already by a plugin)

threadpool_limits(1, user_api="blas")

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data``; tests that need it skip with a reason when it is absent."""
    if not DATA_DIR.is_dir():
        pytest.skip(f"benchmark data folder {DATA_DIR} is absent")
    return DATA_DIR
