"""The defects a walkthrough as a lecturer (1280x800, presentation mode) and as an analyst found
(issue 30), one test each, on the real window."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint

from boomer_gui.components.controller import format_losses


def _shown_losses(window) -> str:
    run = window.driver.replaying or window.run
    return format_losses(run.losses_at(window.table_model.rowCount() - 1))


def test_status_losses_follow_the_rule_on_screen_in_paced_play_step_and_replay(qtbot, make_window, train):
    window = make_window(max_rules=12)
    window.set_speed(1)  # the learner finishes long before the table
    assert window.start_training()
    qtbot.waitUntil(lambda: window.table_model.rowCount() >= 1, timeout=300_000)
    window.pause_training()
    window.step()
    n = window.table_model.rowCount()
    assert n >= 2 and window.loss_label.text() == _shown_losses(window)
    window.stop_training()
    qtbot.waitUntil(lambda: not window.training_active and not window.playing, timeout=300_000)
    # replay: the status shows the losses of the replayed rule on screen, not the run's last
    window.set_speed(50)
    assert window.replay()
    qtbot.waitUntil(lambda: 3 <= window.table_model.rowCount() < len(window.run), timeout=10000)
    window.pause_training()
    assert window.loss_label.text() == _shown_losses(window)
    assert window.loss_label.text() != format_losses(window.run.final_losses())
    window.stop_training()  # shows the rest at once
    assert not window.playing


def test_a_finished_replay_reports_how_long_it_took(qtbot, make_window, train):
    window = make_window(max_rules=12)
    assert train(window) == "finished"
    window.set_speed(50)  # 12 rules at 50 per second: about a quarter of a second
    assert window.replay()
    qtbot.waitUntil(lambda: not window.playing, timeout=10000)
    info = window.run_controls.info.text()
    assert "replayed after" in info and "after 0.0 s" not in info


def test_selecting_an_older_run_moves_the_ring_and_the_run_bar_to_it(qtbot, make_window, train):
    window = make_window(max_rules=10)
    assert train(window) == "finished"
    window.learner_panel.set_params({"max_rules": 14})
    assert train(window) == "finished"
    first, second = window.history.runs
    window.select_rule(5)
    assert window.plot._highlight_at is not None and window.plot._highlight_at[0] is second
    assert window.show_run(first)
    assert window.plot._highlight_at is None or window.plot._highlight_at[0] is first
    info = window.run_controls.info.text()
    assert first.name in info and "10 rules" in info and "14" not in info
    window.select_rule(3)
    assert window.plot._highlight_at[0] is first


def test_two_runs_of_one_setting_have_different_names(make_window, train):
    window = make_window(max_rules=5)
    window.learner_panel.apply_preset("Label-wise, single-label heads")
    window.learner_panel.set_params({"max_rules": 5})
    assert train(window) == "finished"
    assert train(window) == "finished"
    a, b = window.history.runs
    assert a.name != b.name and a.name.startswith("BOOMER · label-wise logistic, single-label heads")
    assert b.name.endswith("#2")
    window.learner_panel.set_params({"max_rules": 6})
    assert train(window) == "finished"
    assert "max_rules=6" in window.history.runs[-1].name


def test_the_synthetic_box_is_unticked_while_a_file_is_loaded(make_window, tmp_path):
    from boomer_gui.components.state import DataSpec

    window = make_window()
    assert window.data_panel.synthetic_box.isChecked() and window.data_panel.kind.isEnabled()
    rows = "\n".join(f"{i % 7 / 7:.3f},{(i * 3) % 5 / 5:.3f},{i % 2},{(i // 2) % 2}" for i in range(60))
    path = tmp_path / "tiny.arff"
    path.write_text("@relation 'tiny: -C 2'\n@attribute y1 {0,1}\n@attribute y2 {0,1}\n"
                    "@attribute a numeric\n@attribute b numeric\n@data\n"
                    + "\n".join(f"{r.split(',')[2]},{r.split(',')[3]},{r.split(',')[0]},{r.split(',')[1]}"
                                for r in rows.splitlines()) + "\n")
    assert window.load_data(DataSpec(kind="file", path=str(path), test_mode="split"))
    box = window.data_panel.synthetic_box
    assert not box.isChecked() and not window.data_panel.kind.isEnabled()
    assert not window.data_panel.generate_button.isEnabled()
    box.setChecked(True)  # the user asks for synthetic data again
    assert window.data_panel.kind.isEnabled() and window.data_panel.generate_button.isEnabled()


def test_a_session_restores_the_filters_and_the_selected_rule(make_window, train, tmp_path):
    window = make_window(max_rules=20)
    assert train(window) == "finished"
    b = window.browser
    b.label_filter.setCurrentIndex(b.label_filter.findData(1))
    b.label_mode.setCurrentIndex(b.label_mode.findData(False))
    b.text_filter.setText("x")
    b.apply_filters()
    shown = window.proxy.rowCount()
    assert 0 < shown < 20
    window.table.selectRow(1)
    selected = b.selected_records()[0].index
    window.save_session(tmp_path / "s.json")
    other = make_window()
    other.open_session(tmp_path / "s.json")
    ob = other.browser
    assert ob.label_filter.currentData() == 1 and ob.label_mode.currentData() is False
    assert ob.text_filter.text() == "x" and other.proxy.rowCount() == shown
    assert ob.selected_records()[0].index == selected


def test_opening_a_session_builds_each_model_once(make_window, train, tmp_path, monkeypatch):
    import engine.persistence as persistence

    window = make_window(max_rules=6)
    assert train(window) == "finished"
    window.learner_panel.set_params({"max_rules": 7})
    assert train(window) == "finished"
    window.save_session(tmp_path / "s.json")
    built = []
    real = persistence.estimator_from_document
    monkeypatch.setattr(persistence, "estimator_from_document", lambda *a, **k: built.append(1) or real(*a, **k))
    other = make_window()
    other.open_session(tmp_path / "s.json")
    assert len(built) == 2  # the shown run's model (the session's) and the other run's, once each
    assert len(other.history) == 2


def test_reselecting_a_stump_run_of_a_reopened_session_adds_no_run(make_window, train, tmp_path):
    window = make_window(max_rules=8)
    window.learner_panel.set_learner("adaboost-mh")
    window.learner_panel.set_params({"max_rules": 8})
    assert train(window) == "finished"
    run = window.run
    n_rules = window.table_model.rowCount()
    assert len(run) < n_rules  # a round adds two rules (a stump)
    window.learner_panel.set_learner("boomer")
    window.learner_panel.set_params({"max_rules": 5})
    assert train(window) == "finished"
    window.save_session(tmp_path / "s.json")
    other = make_window()
    other.open_session(tmp_path / "s.json")
    stumps = other.history.runs[0]
    assert other.show_run(stumps)
    assert len(other.history) == 2 and other.run is stumps
    assert other.table_model.rowCount() == n_rules
    assert [r.test_hamming for r in other.table_model.records[1::2]] == list(stumps.array("test_hamming"))


def test_the_presets_are_in_sight_at_1280_by_800(qtbot, make_window):
    window = make_window()
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() <= 1280)
    scroll = window.setup_dock.widget()
    buttons = list(window.learner_panel.preset_buttons.values())
    assert buttons
    viewport = scroll.viewport()
    for button in buttons:
        bottom = button.mapTo(viewport, QPoint(0, button.height())).y()
        assert bottom <= viewport.height(), f"{button.text()} is below the fold"


def test_presentation_mode_gives_the_plot_most_of_the_window(qtbot, make_window, train):
    window = make_window(max_rules=6)
    window.resize(1280, 800)
    assert train(window) == "finished"
    window.set_presentation(True)
    central = window.centralWidget()
    qtbot.waitUntil(lambda: window.plot.width() >= 0.6 * central.width() - 4)  # the runs' legend beside the axes
    assert window.plot.height() >= 0.95 * central.height()
    assert window.table.isVisible() and window.details.isVisible()  # rules and inspector on the right
    window.set_presentation(False)
    assert window.splitter.widget(0) is window.top_tabs and window.bottom.widget(0) is window.plot
    assert window.setup_dock.isVisible()


def test_the_label_filter_narrows_complete_heads(make_window, train):
    window = make_window(max_rules=25, loss="logistic-non-decomposable", head_type="complete", label_binning="none")
    assert train(window) == "finished"
    window.label_filter.setCurrentIndex(window.label_filter.findData(0))
    assert 0 < window.proxy.rowCount() < 25
    assert np.all([0 in window.table_model.predicted_labels(window.proxy.mapToSource(window.proxy.index(r, 0)).row(),
                                                            True) for r in range(window.proxy.rowCount())])
