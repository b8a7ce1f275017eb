"""``python -m engine experiment --save-*``: per-task predictions and scores, rules, model and data
characteristics, checked against the store and the data; rules asked for later are computed again."""
import csv

import numpy as np

from engine.cli import main
from engine.evaluation.experiment.file import load_experiment
from engine.evaluation.experiment.tasks import make_tasks
from engine.evaluation.store import ResultStore
from test_experiment_file import write_svm

TEXT = """name = "saves"
data = ["a.svm"]
measures = ["hamming"]
[protocol]
kind = "cross-validation"
folds = 2
seed = 1
[[learner]]
key = "boomer"
params = { max_rules = 8 }
[[learner]]
key = "seco"
params = { max_rules = 4 }
"""
SAVES = ["--save-predictions", "--save-scores", "--save-rules", "--save-model-characteristics",
         "--save-data-characteristics"]


def _rows(path):
    with open(path, newline="") as stream:
        return list(csv.reader(stream))


def test_saved_outputs_are_the_stored_results(tmp_path, capsys):
    write_svm(tmp_path / "a.svm", n=80)
    (tmp_path / "e.toml").write_text(TEXT)
    argv = ["experiment", str(tmp_path / "e.toml"), "--store", str(tmp_path / "s.sqlite"), "--report",
            str(tmp_path / "r"), "--workers", "1"]
    assert main(argv) == 0  # without saving: no model text is kept
    assert "4 tasks computed" in capsys.readouterr().err
    with ResultStore(tmp_path / "s.sqlite", readonly=True) as store:
        assert store.model_keys() == set()
    assert main(argv + SAVES) == 0
    assert "4 tasks computed, 0 already stored" in capsys.readouterr().err  # rules asked for: computed again
    saved = tmp_path / "r" / "saved"
    exp = load_experiment(tmp_path / "e.toml")
    with ResultStore(tmp_path / "s.sqlite", readonly=True) as store:
        tasks = make_tasks(exp)
        results = store.results(t["key"] for t in tasks)
        Y = store.dataset_labels("a")
    # predictions: every test row of every fold, as stored
    for learner in ("boomer", "seco"):
        rows = _rows(saved / f"predictions_a_{learner}.csv")
        assert rows[0] == ["fold", "configuration", "rules", "row", "label_0", "label_1", "label_2"]
        got = {(int(r[0]), int(r[3])): [int(v) for v in r[4:]] for r in rows[1:]}
        for t in tasks:
            if t["name"] == learner:
                r = results[t["key"]]
                for row, p in zip(r.test_rows, r.predictions):
                    assert got[(t["fold"] + 1, int(row))] == p.tolist()
        assert len(got) == 80
    scores = {(int(r[0]), int(r[3])): [float(v) for v in r[4:]] for r in _rows(saved / "scores_a_boomer.csv")[1:]}
    for t in tasks:
        if t["name"] == "boomer":
            r = results[t["key"]]
            np.testing.assert_allclose([scores[(t["fold"] + 1, int(row))] for row in r.test_rows], r.scores, rtol=1e-5)
    # rules: one file per task, one line per rule after the header lines, as many as the characteristics say
    characteristics = {(r[1], r[2]): r for r in _rows(saved / "model_characteristics.csv")[1:]}
    for t in tasks:
        text = (saved / f"rules_a_{t['name']}_fold{t['fold'] + 1}_config1.txt").read_text()
        n_if = sum(line.lstrip().split(" ", 1)[-1].startswith("IF ") for line in text.splitlines())
        assert n_if == int(characteristics[(t["name"], str(t["fold"] + 1))][4]) > 0
    header, row = _rows(saved / "data_characteristics.csv")
    values = dict(zip(header, row))
    assert (int(values["examples"]), int(values["attributes"]), int(values["labels"])) == (80, 4, 3)
    assert float(values["cardinality"]) == float(np.mean(Y.sum(axis=1)))
    assert int(values["distinct-label-sets"]) == len({tuple(y) for y in Y.tolist()})
