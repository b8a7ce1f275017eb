"""The learner panel is generated from the registry; the data panel shows the data."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QSpinBox

from engine import registry
from engine.boomer import PAPER_2020
from engine.registry import LearnerSpec, Parameter


class FakeLearner:
    def __init__(self, depth=3, rate=0.5, kind="a", limit=None, random_state=7):
        self.kwargs = dict(depth=depth, rate=rate, kind=kind, limit=limit, random_state=random_state)


@pytest.fixture
def fake_spec():
    spec = LearnerSpec(
        key="fake-test-learner", title="Fake learner", factory=FakeLearner, description="for the test only",
        parameters=(Parameter("depth", "int", 3, "Depth", "how deep", minimum=1, maximum=10),
                    Parameter("rate", "float", 0.5, "Rate", "", minimum=0.01, maximum=1.0),
                    Parameter("kind", "choice", "a", "Kind", "", choices=("a", "b", "c")),
                    Parameter("limit", "int", None, "Limit", "", minimum=1, maximum=50, optional=True),
                    Parameter("random_state", "seed", 7, "Seed")),
        presets={"Deep": {"depth": 9, "kind": "c"}, "Fast": {"rate": 1.0}})
    registry.register(spec)
    yield spec
    registry._REGISTRY.pop(spec.key, None)


def test_learner_panel_is_built_from_the_registry(qtbot, fake_spec):
    from boomer_gui.panels.learner_panel import LearnerPanel

    panel = LearnerPanel()
    qtbot.addWidget(panel)
    keys = [panel.combo.itemData(i) for i in range(panel.combo.count())]
    assert keys == [s.key for s in registry.learners()] and "fake-test-learner" in keys
    panel.set_learner("fake-test-learner")
    assert set(panel.editors) == {"depth", "rate", "kind", "limit", "random_state"}
    assert isinstance(panel.editors["depth"].widget, QSpinBox)
    assert isinstance(panel.editors["rate"].widget, QDoubleSpinBox)
    assert isinstance(panel.editors["kind"].widget, QComboBox)
    assert panel.editors["depth"].widget.maximum() == 10
    assert panel.params() == fake_spec.defaults()
    assert set(panel.preset_buttons) == {"Deep", "Fast"}
    panel.preset_buttons["Deep"].click()
    assert panel.params()["depth"] == 9 and panel.params()["kind"] == "c"
    assert panel.current_preset() == "Deep" and panel.preset_buttons["Deep"].isChecked()
    panel.set_params({"limit": 12})
    assert panel.params()["limit"] == 12
    panel.set_params({"limit": None})
    assert panel.params()["limit"] is None
    est = fake_spec.make(**panel.params())
    assert est.kwargs["depth"] == 9
    with pytest.raises(ValueError):
        panel.set_params({"nonsense": 1})
    panel.set_learner("boomer")
    assert "loss" in panel.editors and "depth" not in panel.editors


def test_fake_learner_appears_in_main_window(qtbot, fake_spec, make_window):
    window = make_window()
    window.learner_panel.refresh()
    window.learner_panel.set_learner(fake_spec.key)
    assert window.learner_panel.spec is fake_spec
    assert window.learner_panel.form.rowCount() == len(fake_spec.parameters)


def test_boomer_presets_are_the_papers_four_variants(qtbot):
    from boomer_gui.panels.learner_panel import LearnerPanel

    panel = LearnerPanel()
    qtbot.addWidget(panel)
    panel.set_learner("boomer")
    # the paper's four Figure 1 variants, each with every setting of the paper explicit but the
    # budget (the run's max_rules stays), then mlrl-boomer's defaults spelled out
    assert list(panel.preset_buttons) == [*registry.PAPER_PRESETS, registry.MLRL_DEFAULTS_PRESET]
    for name in registry.PAPER_PRESETS:
        assert set(registry.get("boomer").presets[name]) == set(PAPER_2020) - {"max_rules"} | {"loss", "head_type"}
    panel.set_params({"max_rules": 300})
    for name, values in registry.get("boomer").presets.items():
        panel.apply_preset(name)
        assert {k: panel.params()[k] for k in values} == dict(values) and panel.params()["max_rules"] == 300


def test_data_panel_shows_the_data(window):
    panel = window.data_panel
    assert panel.labels_table.rowCount() == window.data.train.n_labels
    assert "300 training + 300 test examples" in panel.summary.text()
    assert "2 numeric, 0 nominal" in panel.summary.text()
    assert "distinct label sets" in panel.summary.text() and "Bayes-optimal" in panel.summary.text()
    freq = [panel.labels_table.item(k, 1).data(256) for k in range(panel.labels_table.rowCount())]
    assert freq == pytest.approx(list(window.data.train.label_frequencies))
    assert window.plot.bayes is not None


def test_split_and_synthetic_controls(window, qtbot):
    panel = window.data_panel
    panel.kind.setCurrentIndex(panel.kind.findData("marginal-independence"))
    panel.n_examples.setValue(200)
    panel.n_labels.setValue(3)
    panel.generate()
    assert window.loading  # in a worker thread; the window stays usable
    qtbot.waitUntil(lambda: not window.loading)
    assert window.data.train.n_examples == 200 and window.data.train.n_labels == 3
    assert window.data.train.n_features == 6 and window.data.test.n_examples == 300
    panel.test_mode.setCurrentIndex(panel.test_mode.findData("split"))
    panel.fraction.setValue(0.25)
    panel.apply_split()
    qtbot.waitUntil(lambda: not window.loading)
    assert window.data.test.n_examples == 50 and window.data.train.n_examples == 150
