"""Table 1's profiles are experiment files shipped with the package, run by ``evaluate``."""
import pytest

from engine.cli import main
from engine.evaluation.table1.profiles import EXPERIMENTS, PROFILES, profile, profile_of_experiment


def test_the_shipped_files_hold_the_papers_grids():
    paper, authors, smoke = PROFILES["paper"], PROFILES["authors"], PROFILES["smoke"]
    # SPEC C.2/C.3: 10 folds, η {0.1, 0.3, 0.5} x λ {0, 0.25, 1, 4, 16, 64}, T up to 10,000 in steps of 50
    assert (paper.n_folds, paper.n_bootstraps, paper.max_rules, paper.rule_step) == (10, 100, 10000, 50)
    assert paper.shrinkage == (0.1, 0.3, 0.5) and paper.l2 == (0.0, 0.25, 1.0, 4.0, 16.0, 64.0)
    assert paper.learning_rate == (0.1, 0.3, 0.5) and paper.cc_orders == 10 and len(paper.datasets) == 8
    assert authors.shrinkage == (0.1,) and authors.learning_rate == (0.1,) and authors.cc_orders == 20
    assert smoke.datasets == ("emotions",) and smoke.n_folds == 3
    assert set(PROFILES) == {"smoke", "reduced", "paper", "authors"}


def test_a_file_of_ones_own_is_a_profile_and_a_broken_one_is_refused(tmp_path):
    text = (EXPERIMENTS / "table1_smoke.toml").read_text()
    mine = tmp_path / "mine.toml"
    mine.write_text(text.replace("bootstraps = 50", "bootstraps = 7"))
    assert profile(str(mine)).n_bootstraps == 7 and profile(str(mine)).name == "mine"
    mine.write_text(text.replace('key = "xgboost-lp"', 'key = "xgboost-br"'))
    with pytest.raises(ValueError, match="not a Table 1 profile"):
        profile_of_experiment(mine)
    with pytest.raises(ValueError, match="unknown profile 'fast'"):
        profile("fast")


def test_the_experiment_command_runs_table1_files(tmp_path, capsys):
    """Table 1's files are experiments like any other: `experiment` runs them (BBC-CV, prefixes)."""
    from engine.evaluation.experiment.file import load_experiment
    from engine.evaluation.experiment.run import check_runnable

    for name in PROFILES:
        check_runnable(load_experiment(EXPERIMENTS / f"table1_{name}.toml", resolve_data=False, max_tasks=None))
    data = tmp_path / "d.svm"
    rng = __import__("numpy").random.default_rng(0)
    data.write_text("\n".join(f"{int(x > 0.5)},2 1:{x:.4f} 2:{1 - x:.4f}" for x in rng.random(60)) + "\n")
    text = (EXPERIMENTS / "table1_smoke.toml").read_text().replace('data = ["emotions"]', f'data = ["{data}"]')
    text = text.split("[[learner]]")
    mine = tmp_path / "mine.toml"
    mine.write_text("[[learner]]".join(text[:2]).replace("max_rules = 100", "max_rules = 20")
                    .replace("prefix_step = 50", "prefix_step = 10"))
    argv = ["experiment", str(mine), "--store", str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "r"),
            "--workers", "1"]
    assert main(argv) == 0
    assert "BBC-CV over the pooled out-of-fold predictions of 3 folds" in (tmp_path / "r" / "results.md").read_text()
