"""BOOMER's kernel stamps by part (engine.boomer.stamps): a setting is ready when its core family and
each optional part it uses are stamped; ``prepare --all`` prepares each part once; parts prepared
separately combine without a compile (a fresh process on a copy of the kernel cache)."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from engine import prepare
from engine.datasets import make_synthetic
from engine.families import prepare_families, read_families

HOLDOUT = {"holdout": "random"}
BINNING = {"feature_binning": "equal-width"}
PRUNING = {"global_pruning": "pre-pruning", "holdout": "none"}  # watches the training loss


@pytest.fixture
def stamps(tmp_path, monkeypatch):
    monkeypatch.setenv("BOOMER_PREPARE_STAMPS", str(tmp_path / "stamps"))
    return tmp_path / "stamps"


@pytest.fixture(scope="module")
def small():
    data = make_synthetic("conditional-dependence", 300, 6, 0)
    return {"X": data.X, "Y": data.Y}


def _key(params, data):
    return prepare.setting_key(prepare.Setting("boomer", params), data["X"], data["Y"])


def test_the_stamps_are_the_core_family_and_each_optional_part(small):
    core = _key({}, small)
    assert len(core) == 1 and core[0].startswith("boomer|")
    both = _key({**HOLDOUT, **BINNING}, small)
    assert both[0] == core[0] and [s.split("|")[0] for s in both[1:]] == ["boomer-feature-binning", "boomer-holdout"]
    other = _key({"loss": "squared-error-decomposable", **HOLDOUT}, small)
    assert other[0] != core[0] and other[1] == both[2]  # the holdout's stamp does not name the core family
    wide = _key({"statistic_type": "64-bit", **HOLDOUT}, small)
    assert wide[1] != both[2]  # but the statistics' type its kernels read
    assert _key({**HOLDOUT, "shrinkage": 0.5, "holdout": "stratified-example-wise"}, small) == _key(HOLDOUT, small)
    # global pruning on the training loss has a stamp; on the holdout set it needs only the holdout's kernels
    assert _key(PRUNING, small)[1].startswith("boomer-global-pruning|")
    assert _key({"global_pruning": "pre-pruning"}, small) == _key(HOLDOUT, small)  # 'auto' holdout: stratified


def test_a_setting_is_ready_only_when_every_part_is_stamped(stamps, small):
    key = _key({**HOLDOUT, **BINNING, "global_pruning": "post-pruning{use_holdout_set=false}"}, small)
    assert len(key) == 4 and not prepare.is_prepared(key)
    for stamp in key:
        assert not prepare.is_prepared(key)
        assert prepare.mark_prepared(stamp, 1.0) == 1
    assert prepare.is_prepared(key)
    assert prepare.mark_prepared(key, 1.0) == 0  # nothing new
    assert prepare.is_prepared(key[1:]) and prepare.is_prepared(None)


def test_all_prepares_each_part_once_with_the_cheapest_core_family(tmp_path, stamps, small, monkeypatch):
    """Five settings, four stamps (two core families, the holdout, feature binning): the defaults'
    core once, each optional part once with the defaults' core, the other loss's core once."""
    path = tmp_path / "families.json"
    path.write_text(json.dumps([
        {"learner": "boomer", "params": {"loss": "squared-error-decomposable", **HOLDOUT, **BINNING}, "label": "sq"},
        {"learner": "boomer", "params": {}, "label": "defaults"},
        {"learner": "boomer", "params": {**HOLDOUT, **BINNING}, "label": "both"},
        {"learner": "boomer", "params": HOLDOUT, "label": "holdout"},
        {"learner": "boomer", "params": BINNING, "label": "binning"}]))
    units = read_families(str(path), small["X"], small["Y"])
    assert sorted(u.setting.label for u in units) == ["binning", "defaults", "holdout", "sq"]
    assert sorted(u.part for u in units) == ["", "", "feature-binning", "holdout"]
    assert len({u.key for u in units}) == 4
    prepare.mark_prepared(_key({}, small), 1.0)  # the defaults' core was prepared before
    asked, events = [], []
    monkeypatch.setattr(prepare, "prepare", lambda todo, data, emit, steps: asked.append(todo) or 0)
    assert prepare_families(units, small, events.append) == 0
    assert events == [{"event": "families", "total": 4, "ready": 1}]
    assert sorted(s.label for s in asked[0]) == ["binning", "holdout", "sq"]


_SIGNATURES = """
import json, sys
from numba.core.registry import CPUDispatcher
from engine import prepare
from engine.datasets import make_synthetic

data = make_synthetic("conditional-dependence", 300, 6, 0)
data = {"X": data.X, "Y": data.Y}
with prepare.CompileWatch(lambda name, count: None) as watch:
    for params in json.loads(sys.argv[1]):
        prepare.prepare_setting(prepare.Setting("boomer", params), data)
used = sorted(f"{m}.{n}{s}" for m, mod in list(sys.modules.items()) if m.startswith("engine")
              for n, d in vars(mod).items() if isinstance(d, CPUDispatcher) for s in d.signatures)
print(json.dumps({"compiled": watch.count, "used": used}))
"""


def _fit_fresh(settings: list, env: dict) -> dict:
    proc = subprocess.run([sys.executable, "-c", _SIGNATURES, json.dumps(settings)], env=env, capture_output=True,
                          text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_parts_prepared_separately_combine_without_a_compile(tmp_path, stamps, small):
    """The defaults + a holdout, + feature binning and + global pruning are prepared in one fresh
    process (on the kernel cache, compiling what it lacks); a fresh process on a copy of that cache
    then fits the holdout with feature binning, pruning with feature binning, and pruning on the holdout
    set: ready by their stamps,
    they compile nothing and call no kernel signature the parts did not."""
    from engine.numba_cache import KERNELS, kernel_folder

    env = {**os.environ, "BOOMER_PREPARE_STAMPS": str(stamps)}
    parts = _fit_fresh([{}, HOLDOUT, BINNING, PRUNING], env)
    combined = [{**HOLDOUT, **BINNING}, {**PRUNING, **BINNING}, {**HOLDOUT, "global_pruning": "post-pruning"}]
    assert all(prepare.is_prepared(_key(params, small)) for params in combined)
    copy = tmp_path / "cache"
    shutil.copytree(kernel_folder(), copy / KERNELS / kernel_folder().name)
    fresh = _fit_fresh(combined, {**env, "NUMBA_CACHE_DIR": str(copy)})
    assert fresh["compiled"] == 0
    assert set(fresh["used"]) <= set(parts["used"]) and len(fresh["used"]) > 20
