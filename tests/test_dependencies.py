"""The install pulls no GPU libraries: XGBoost (only Table 1's baselines use it) is an optional extra,
its CPU-only build where the full one brings CUDA's NCCL; a baseline without it is one clear error."""
import importlib.metadata
import sys
import tomllib
from pathlib import Path

import pytest

from engine.cli import main
from test_experiment_file import write_svm

ROOT = Path(__file__).resolve().parents[1]
HINT = "pip install 'boomer-gui[baselines]'"


def test_no_installed_distribution_is_a_gpu_library():
    names = sorted({(dist.metadata["Name"] or "").lower() for dist in importlib.metadata.distributions()})
    assert len(names) > 20  # the environment's packages were seen
    assert [n for n in names if "cuda" in n or "nvidia" in n] == []


def test_xgboost_is_an_optional_extra_of_its_cpu_build():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if d.lower().startswith("xgboost")]
    extras = project["optional-dependencies"]
    linux = [d for d in extras["baselines"] if "platform_system == 'Linux' and platform_machine == 'x86_64'" in d]
    assert len(linux) == 1 and linux[0].startswith("xgboost-cpu")
    assert "boomer-gui[baselines]" in extras["test"]  # the tests of the baselines run in CI


@pytest.fixture
def without_xgboost(monkeypatch):
    monkeypatch.setitem(sys.modules, "xgboost", None)  # as if it were not installed


def test_an_experiment_with_a_baseline_asks_for_xgboost(tmp_path, capsys, without_xgboost):
    write_svm(tmp_path / "a.svm", n=30, seed=1)
    (tmp_path / "e.toml").write_text('name = "e"\ndata = ["a.svm"]\nmeasures = ["hamming"]\n'
                                     '[[learner]]\nkey = "xgboost-br"\n[[learner]]\nkey = "boomer"\n')
    store = tmp_path / "e.sqlite"
    assert main(["experiment", str(tmp_path / "e.toml"), "--store", str(store),
                 "--report", str(tmp_path / "report")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "xgboost-br needs XGBoost" in err and HINT in err
    assert not store.exists()  # before any work


def test_table1_with_a_baseline_asks_for_xgboost(tmp_path, capsys, without_xgboost):
    assert main(["evaluate", "--methods", "boomer-lw-single,br", "--store", str(tmp_path / "t.sqlite"),
                 "--report", str(tmp_path / "report")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "br needs XGBoost" in err and HINT in err
