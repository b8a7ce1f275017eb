"""The engine knows nothing of Qt or the GUI; the GUI does no learning math of its own."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN_IN_ENGINE = ("PySide6", "PyQt5", "PyQt6", "superqt", "qtpy", "boomer_gui")


def _imports(package: str):
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield path, alias.name
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                yield path, node.module


def test_engine_source_never_imports_qt_or_the_gui():
    bad = [(str(p.relative_to(ROOT)), m) for p, m in _imports("engine") if m.split(".")[0] in FORBIDDEN_IN_ENGINE]
    assert not bad, f"engine modules import GUI toolkits: {bad}"


def test_importing_the_engine_loads_no_qt():
    code = ("import sys, engine, engine.datasets, engine.metrics, engine.registry, engine.inspection, engine.cli; "
            "print([m for m in sys.modules if m.split('.')[0] in ('PySide6', 'superqt', 'boomer_gui')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_a_boomer_fit_loads_no_other_learner():
    """``engine`` imports its learners on first use (PEP 562): a BOOMER process does not pay for ML-ME's
    NetworkX or the other learners' modules; every public name still resolves, and unknown ones fail."""
    code = ("import sys, engine; from engine import BoomerClassifier; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'networkx' or m in "
            "('engine.mlme', 'engine.seco', 'engine.adaboost', 'engine.ranking')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
    import engine

    assert set(engine.__all__) <= set(dir(engine))
    for name in engine.__all__:
        assert getattr(engine, name).__name__ == name
    assert engine.metrics.__name__ == "engine.metrics"  # a submodule, imported on first use
    with pytest.raises(AttributeError, match="no attribute 'NoSuchLearner'"):
        engine.NoSuchLearner


def test_gui_does_not_use_numba_kernels_directly():
    if not (ROOT / "boomer_gui").is_dir():
        return
    bad = [(str(p.relative_to(ROOT)), m) for p, m in _imports("boomer_gui")
           if m.startswith(("numba", "engine.core"))]
    assert not bad, f"GUI modules reach into the learning kernels: {bad}"


def test_import_linter_contract_holds():
    """The contracts in pyproject.toml, checked by import-linter (a test dependency)."""
    import shutil
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    out = subprocess.run([exe, "--no-cache"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    # Qt-free engine, engine layers, GUI layers, Qt-free application model, the views' door into
    # the engine, no cycles between siblings
    assert "6 kept, 0 broken" in out.stdout


def _contracts() -> dict:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    return {c["name"]: c for c in config}


def _engine_modules() -> set:
    return {f"engine.{p.stem if p.is_file() else p.name}" for p in (ROOT / "engine").iterdir()
            if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and (p / "__init__.py").exists())}


def test_every_engine_module_belongs_to_a_layer():
    layers = next(c for name, c in _contracts().items() if name.startswith("Engine layers"))["layers"]
    placed = {m.strip() for layer in layers for m in layer.split(":")}
    assert _engine_modules() - placed == set(), "engine modules in no layer of pyproject.toml"


def test_the_views_door_into_the_engine_lists_every_internal_module():
    """A new engine module is internal until engine.api exports what the GUI needs of it."""
    contract = next(c for name, c in _contracts().items() if name.startswith("The window, its views"))
    forbidden = set(contract["forbidden_modules"])
    public = {"engine.api", "engine.registry", "engine.rules", "engine.steps"}
    datasets = {f"engine.datasets.{p.stem}" for p in (ROOT / "engine" / "datasets").glob("*.py")
                if p.stem not in ("__init__", "errors")}
    expected = (_engine_modules() - public - {"engine.datasets"}) | datasets
    assert forbidden == expected


def test_commands_find_the_project_and_the_shared_data_from_where_they_live():
    """Benchmarks and tools sit two folders deep: their paths to the project, its resources and
    ../shared/data must still point there."""
    from boomer_gui.tools import bench as gui_bench
    from boomer_gui.tools import screenshot
    from engine.bench import boomer, mlme, ranking
    from engine.evaluation import data

    shared = ROOT.parent / "shared" / "data"
    assert boomer.DATA_DIR == mlme.DATA_DIR == ranking.DATA_DIR == data.SHARED_DATA == shared
    assert boomer.PROJECT == gui_bench.PROJECT_ROOT == ROOT
    assert screenshot.DEFAULT_OUT == ROOT / "resources" / "screenshot.png"
    assert boomer.DRIVER.is_file()
