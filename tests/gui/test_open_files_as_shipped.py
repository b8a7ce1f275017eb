"""Files as the field ships them: a file without a statement of its labels offers a choice of
label attributes or the Mulan XML; a training file offers its test sibling; loader warnings are
shown; a failed choice leaves the window as it was."""
from __future__ import annotations

from pathlib import Path


from boomer_gui.panels.data_panel import LabelChoiceDialog

ARFF = ("@relation plain\n@attribute a numeric\n@attribute b numeric\n@attribute y1 {0,1}\n@attribute y2 {0,1}\n"
        "@data\n" + "".join(f"{i % 7},{i % 3},{i % 2},{(i // 2) % 2}\n" for i in range(40)))
XML = ('<?xml version="1.0" encoding="utf-8"?>\n<labels xmlns="http://mulan.sourceforge.net/labels">\n'
       '<label name="y1"></label>\n<label name="y2"></label>\n</labels>\n')


def test_labels_not_found_asks_and_loads_with_the_chosen_attributes(window, tmp_path, errors, qtbot):
    path = tmp_path / "plain.arff"
    path.write_text(ARFF)
    asked = []

    def ask(p, exc):
        asked.append((Path(p).name, list(exc.candidates)))
        return {"label_columns": ["y1", "y2"], "xml": None}

    window.ask_labels = ask
    assert window.data_panel.open_path(path)
    qtbot.waitUntil(lambda: not window.loading)
    assert asked == [("plain.arff", ["y1", "y2"])]
    assert window.data.train.label_names == ["y1", "y2"] and not errors
    assert window.data.spec.label_columns == ["y1", "y2"]


def test_labels_not_found_accepts_an_xml_file(window, tmp_path, errors, qtbot):
    path = tmp_path / "plain.arff"
    path.write_text(ARFF)
    xml = tmp_path / "elsewhere" / "labels.xml"
    xml.parent.mkdir()
    xml.write_text(XML)
    window.ask_labels = lambda p, exc: {"xml": str(xml), "label_columns": None}
    assert window.data_panel.open_path(path)
    qtbot.waitUntil(lambda: not window.loading)
    assert window.data.train.label_names == ["y1", "y2"] and window.data.spec.xml == str(xml)


def test_cancelling_the_label_choice_leaves_the_window_as_it_was(window, tmp_path, errors, qtbot):
    path = tmp_path / "plain.arff"
    path.write_text(ARFF)
    before = window.data
    window.ask_labels = lambda p, exc: None
    window.data_panel.open_path(path)
    qtbot.waitUntil(lambda: not window.loading)
    assert window.data is before and not errors
    assert "Not loaded" in window.statusBar().currentMessage()


def test_the_label_choice_dialog(qtbot, tmp_path):
    dialog = LabelChoiceDialog(tmp_path / "x.arff", ["y1", "y2", "y3"], "no labels")
    qtbot.addWidget(dialog)
    assert not dialog.ok_button.isEnabled()  # nothing ticked yet
    from PySide6.QtCore import Qt

    dialog.list.item(2).setCheckState(Qt.Checked)
    assert dialog.ok_button.isEnabled() and dialog.choice() == {"label_columns": ["y3"], "xml": None}
    dialog.set_xml(tmp_path / "l.xml")
    assert dialog.choice()["xml"] == str(tmp_path / "l.xml")


def test_a_training_file_offers_its_test_sibling(window, tmp_path, errors, qtbot):
    for name in ("toy-train.arff", "toy-test.arff"):
        (tmp_path / name).write_text(ARFF)
    (tmp_path / "toy.xml").write_text(XML)
    offered = []
    window.data_panel.ask_use_test_file = lambda p, s: offered.append(Path(s).name) or True
    assert window.data_panel.open_path(tmp_path / "toy-train.arff")
    qtbot.waitUntil(lambda: not window.loading)
    assert offered == ["toy-test.arff"] and not errors
    assert window.data.spec.test_mode == "file" and window.data.test.n_examples == 40
    assert window.data.train.n_examples == 40


def test_loader_warnings_are_shown(window, tmp_path, errors, qtbot):
    text = ("@relation 'stale: -C 2'\n@attribute w1 numeric\n@attribute w2 numeric\n@attribute w3 numeric\n"
            "@attribute y1 {0,1}\n@attribute y2 {0,1}\n@data\n"
            + "".join(f"{i % 2},{(i + 1) % 2},{i},{i % 2},{(i // 2) % 2}\n" for i in range(30)))
    (tmp_path / "stale.arff").write_text(text)
    assert window.data_panel.open_path(tmp_path / "stale.arff")
    qtbot.waitUntil(lambda: not window.loading)
    assert len(errors) == 1 and errors[0][0] == "The data loaded with a warning" and "stale" in errors[0][1]


def test_data_load_off_the_gui_thread_with_progress(window, tmp_path, errors, qtbot):
    import threading

    from boomer_gui.adapters import data_loading

    rows = "".join(f"{i % 7},{i % 3},{i % 2},{(i // 2) % 2}\n" for i in range(20000))
    path = tmp_path / "big.arff"
    path.write_text(ARFF.split("@data")[0].replace("@relation plain", "@relation 'big: -C -2'") + "@data\n" + rows)
    threads, values = [], []
    real = data_loading.load_with_notes

    def spy(spec, progress=None):
        threads.append(threading.current_thread() is threading.main_thread())
        return real(spec, progress)

    window.load_progress.valueChanged.connect(values.append)
    data_loading.load_with_notes = spy
    try:
        window.data_panel.open_path(path)
        assert window.loading and not window.act_open.isEnabled() and not window.run_controls.start_button.isEnabled()
        qtbot.waitUntil(lambda: not window.loading, timeout=20000)
    finally:
        data_loading.load_with_notes = real
    assert threads == [False]  # parsed in a worker thread
    assert window.data.full.n_examples == 20000 and not errors
    assert values and max(values) == 1000 and len(set(values)) > 5
    assert window.act_open.isEnabled() and not window.load_progress.isVisible()
