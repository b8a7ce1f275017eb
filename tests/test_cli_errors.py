"""Command-line user errors: one line on stderr starting with ``error:``, exit code 2, and no work
done before the check (paths are checked before training)."""
from __future__ import annotations

import json

import pytest

from engine import BoomerClassifier
from engine.cli import main
from engine.datasets import make_synthetic


@pytest.fixture
def files(tmp_path):
    data = make_synthetic("conditional-dependence", n_examples=120, seed=0)
    csv = tmp_path / "d.csv"
    header = [f"x{j}" for j in range(data.X.shape[1])] + [f"y{k}" for k in range(data.Y.shape[1])]
    rows = [",".join(header)] + [",".join(map(str, list(x) + list(y))) for x, y in zip(data.X, data.Y)]
    csv.write_text("\n".join(rows) + "\n")
    model = tmp_path / "m.json"
    BoomerClassifier(max_rules=5).fit(data.X, data.Y).save(model)
    return {"csv": csv, "model": model, "labels": ",".join(header[data.X.shape[1]:])}


def _run(capsys, *argv):
    with pytest.raises(SystemExit) as info:
        code = main(list(argv))
        raise SystemExit(code)
    out, err = capsys.readouterr()
    return info.value.code, out, err


def _assert_one_line_error(code, err):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    assert "Traceback" not in err


@pytest.mark.parametrize("argv, expected", [
    (["fit", "{csv}", "--every", "0"], "--every"),
    (["fit", "{csv}", "--every", "-3"], "--every"),
    (["fit", "{csv}", "--rules", "10000000000000"], "--rules"),
    (["fit", "{csv}", "--rules=-1"], "--rules"),  # 0 is no limit (mlrl-boomer's max_rules=0)
    (["fit", "{csv}", "--shrinkage", "0"], "--shrinkage"),
    (["fit", "{csv}", "--shrinkage", "nan"], "--shrinkage"),
    (["fit", "{csv}", "--test-size", "1"], "--test-size"),
    (["bench", "--data", "foo"], "invalid choice: 'foo'"),
    (["fit", "{tmp}/missing.arff"], "missing.arff"),
    (["fit", "{tmp}"], "not a regular file"),
    (["predict", "{tmp}/missing.json", "{csv}"], "model file not found"),
    (["predict", "{csv}", "{csv}"], "not a model file"),
    (["fit", "{csv}", "--label-columns", "nope", "--rules", "2"], "nope"),
    (["predict", "{model}", "{csv}", "--label-columns", "{labels}", "--out", "{model}"], "is the input file"),
    (["predict", "{model}", "{csv}", "--label-columns", "{labels}", "--out", "{csv}"], "is the input file"),
    (["predict", "{model}", "{csv}", "--label-columns", "{labels}", "--out", "{tmp}"], "is a folder"),
    (["figure1", "--out", "{tmp}/no/such/folder/f.png"], "does not exist"),
])
def test_user_errors_are_one_line_with_exit_code_2(tmp_path, capsys, files, argv, expected):
    argv = [a.format(tmp=tmp_path, **files) for a in argv]
    before = files["model"].read_bytes()
    code, out, err = _run(capsys, *argv)
    _assert_one_line_error(code, err)
    assert expected in err
    assert files["model"].read_bytes() == before  # --out naming the model never overwrites it


def test_fit_checks_the_model_path_before_training(tmp_path, capsys, files):
    code, out, err = _run(capsys, "fit", str(files["csv"]), "--label-columns", files["labels"],
                          "--model", str(tmp_path / "no" / "dir" / "m.json"))
    _assert_one_line_error(code, err)
    assert "rules in" not in out and out == ""  # nothing was loaded or trained


def test_predict_writes_predictions_atomically(tmp_path, capsys, files):
    out_path = tmp_path / "p.csv"
    code = main(["predict", str(files["model"]), str(files["csv"]), "--label-columns", files["labels"],
                 "--out", str(out_path)])
    assert code == 0
    lines = out_path.read_text().splitlines()
    assert len(lines) == 121 and lines[0].count(",") == 5
    assert json.loads(files["model"].read_text())["format"] == "boomer-gui-rule-model"


def test_mulan_split_files_on_the_command_line(tmp_path, capsys):
    header = "@relation m\n@attribute a numeric\n@attribute b numeric\n@attribute y1 {0,1}\n@attribute y2 {0,1}\n"
    rows = "".join(f"{i % 5},{i % 3},{i % 2},{(i // 2) % 2}\n" for i in range(40))
    for name in ("toy-train.arff", "toy-test.arff"):
        (tmp_path / name).write_text(header + "@data\n" + rows)
    (tmp_path / "labels.xml").write_text('<labels xmlns="http://mulan.sourceforge.net/labels"><label name="y1"/>'
                                         '<label name="y2"/></labels>')
    code = main(["fit", str(tmp_path / "toy-train.arff"), "--test", str(tmp_path / "toy-test.arff"),
                 "--rules", "3", "--xml", str(tmp_path / "labels.xml"), "--model", str(tmp_path / "m.json")])
    assert code == 0
    out = capsys.readouterr().out
    assert "2 labels" in out and "test: Hamming" in out
    code = main(["predict", str(tmp_path / "m.json"), str(tmp_path / "toy-test.arff"), "--label-columns", "y1,y2"])
    assert code == 0 and capsys.readouterr().out.splitlines()[0] == "y1,y2"


def test_learners_bench_times_each_learner_and_rejects_bad_arguments(shared_data, capsys):
    from engine.bench import learners

    rows = learners.run(["emotions"], ["adaboost-mh"], repeats=1)
    assert len(rows) == 1 and rows[0][:2] == ("emotions", "adaboost-mh") and rows[0][2] > 0
    assert 0 < rows[0][4] < 50  # test Hamming loss in percent
    with pytest.raises(SystemExit) as exc:
        learners.main(["--repeats", "0"])
    assert exc.value.code == 2 and "--repeats must be at least 1" in capsys.readouterr().err
