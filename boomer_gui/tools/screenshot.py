"""``python -m boomer_gui.tools.screenshot [OUT.png]``: the main window mid-training, as a PNG.

Opens the window exactly as ``boomer-gui`` does (the built-in synthetic data set), starts
training with the paper's example-wise complete variant, waits until ``--rules`` rules have
reached the table, selects one so the inspector is filled, and grabs the window while the
run is still going.  Runs offscreen unless ``QT_QPA_PLATFORM`` says otherwise.  The README's
screenshot, ``resources/screenshot.png``, is made by this command.  ``--show preparing`` pictures
a first run whose kernels are being compiled (a fake child process reports the compile);
``--show learners`` four finished runs of three learners (BOOMER's label-wise and example-wise
variants, label ranking, ML-ME) on one trajectory plot, the run table above it and the selected
run's own plots beside it (``resources/runs_all_learners.png``; with ``--presentation --size
1280x800``, ``resources/presentation.png``).  The run-identity pictures at a 1280 x 800 projector's size:
``resources/runs_N.png`` and (``--presentation``) ``resources/presentation_N.png`` for N = 1 (``--runs 1``: one
run mid-training, a rule selected), 4 and 12 (``--show runs --runs N --max-rules 300``: the presets in turn, a
preset's second and third run with another shrinkage).  ``--show regression --size 1280x800 --max-rules 100``: a
classification run, then BOOMER's regressor on synthetic linear-regression data beside it (the run table, the MSE and MAE
tab, a regression rule's why-this-head; ``resources/regression_run.png``; with ``--rules-tab`` the regression run's
rules, ``resources/regression_rules.png``).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "resources" / "screenshot.png"
# --show preparing: a child that reports compiling a few of BOOMER's kernels, then waits to be killed
FAKE_COMPILE = r"""
import json, time
for i, name in enumerate(["sample_features", "_fixed_label_quality", "_fast_quality", "_split_quality",
                          "_side_quality", "find_refinement"]):
    print(json.dumps({"event": "compiling", "kernel": name, "compiled": 11 + i, "elapsed": 0}), flush=True)
time.sleep(600)
"""
FAKE_ELAPSED_S = 83.0  # the picture shows a compile this long under way


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m boomer_gui.tools.screenshot", description=__doc__.split("\n\n")[0])
    p.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT, help=f"PNG file [{DEFAULT_OUT}]")
    p.add_argument("--rules", type=int, default=120, help="rules in the table when the picture is taken [120]")
    p.add_argument("--select", type=int, default=7, help="the rule shown in the inspector [7]")
    p.add_argument("--size", default="1500x940", help="window size WIDTHxHEIGHT [1500x940]")
    p.add_argument("--timeout", type=float, default=120.0, help="give up after this many seconds [120]")
    p.add_argument("--show", choices=("inspector", "head", "explanation", "runs", "preparing", "learners",
                                      "regression"),
                   default="inspector",
                   help="what the window shows: the rule inspector, why-this-head, the explanation of a test "
                        "example or the run table (these three after the run finished), or a first run "
                        "whose kernels are compiled, or runs of three learners [inspector]")
    p.add_argument("--runs", type=int, default=1, help="finished runs before the shown one (presets in turn) [1]")
    p.add_argument("--max-rules", type=int, default=1000, help="rules of each finished run [1000]")
    p.add_argument("--presentation", action="store_true", help="in presentation mode (F11)")
    p.add_argument("--rules-tab", action="store_true", help="--show regression: the rule table instead of the runs")
    args = p.parse_args(argv)
    if args.show in ("preparing", "learners", "regression"):
        args.runs = 0
    if args.select >= args.rules:
        p.error("--select must be smaller than --rules")
    return args


SHRINKAGES = (0.3, 0.1, 0.6)  # --runs: the shrinkage of a preset's first, second and third run


def _wait(condition, timeout: float) -> bool:
    """Run the event loop (no sleeping) until ``condition()`` holds; False after ``timeout`` seconds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    poll = QTimer()
    poll.setInterval(20)
    poll.timeout.connect(lambda: loop.quit() if condition() else None)
    deadline = QTimer()
    deadline.setSingleShot(True)
    deadline.timeout.connect(loop.quit)
    poll.start()
    deadline.start(int(timeout * 1000))
    if not condition():
        loop.exec()
    poll.stop()
    deadline.stop()
    return bool(condition())


def _start_fake_preparation(window, timeout: float) -> None:
    """Start the paper's example-wise variant as if its kernels were not compiled yet; the child
    is :data:`FAKE_COMPILE`, and the clock is set back by :data:`FAKE_ELAPSED_S`."""
    import time

    from boomer_gui import training
    from boomer_gui.adapters.preparation import KernelPreparation

    sys_command = [sys.executable, "-c", FAKE_COMPILE]
    training.is_prepared, KernelPreparation.command = (lambda key: False), sys_command
    window.learner_panel.apply_preset("Example-wise, multi-label heads")
    if not window.start_training():
        raise SystemExit("training could not start")
    preparation = window.training.preparation
    preparation._started = time.perf_counter() - FAKE_ELAPSED_S
    if not _wait(lambda: "find_refinement" in window.run_controls.info.text(), timeout):
        raise SystemExit("the fake preparation reported nothing")


# --show learners: (learner, preset, parameters) of the runs, in order; the last one is selected
LEARNER_RUNS = (("boomer", "Label-wise, single-label heads", {"max_rules": 300}),
                ("boomer", "Example-wise, multi-label heads", {"max_rules": 300}),
                ("label-ranking", None, {"max_iterations": 60, "eval_every": 3}),
                ("ml-me", "Paper (5 experts, early stopping)", {"n_experts": 3}))


def _train_learners(window, timeout: float) -> None:
    """One finished run per entry of :data:`LEARNER_RUNS`; the label-ranking run is shown."""
    panel = window.learner_panel
    for key, preset, params in LEARNER_RUNS:
        panel.set_learner(key)
        if preset:
            panel.apply_preset(preset)
        panel.set_params(params)
        if not window.start_training():
            raise SystemExit(f"{key}: training could not start")
        if not _wait(lambda: not window.training_active, timeout):
            raise SystemExit(f"{key}: the run did not finish in {timeout:g} s")
    window.show_run(next(r for r in window.history.runs if r.learner == "label-ranking"))
    window.top_tabs.setCurrentWidget(window.run_table)
    window.details.setCurrentWidget(window.step_view.plots)


def _regression_beside_classification(window, max_rules: int, select: int, timeout: float, rules: bool) -> None:
    """A classification run (mlrl-boomer's defaults) on the loaded data, then the regressor on synthetic
    linear-regression data (3 targets); the regression run's rule ``select`` is shown in why-this-head."""
    from boomer_gui.components.state import DataSpec

    for spec in (None, DataSpec(kind="synthetic", synthetic="linear-regression", n_examples=2000, n_test=2000,
                                n_labels=3, seed=0)):
        if spec is not None and not window.load_data(spec):
            raise SystemExit("the regression data could not be generated")
        window.learner_panel.set_params({"max_rules": max_rules})
        if not window.start_training():
            raise SystemExit("training could not start")
        if not _wait(lambda: not window.training_active, timeout):
            raise SystemExit(f"a run did not finish in {timeout:g} s")
    window.select_rule(select)
    window.details.setCurrentWidget(window.head_view)
    if not rules:
        window.top_tabs.setCurrentWidget(window.run_table)


def take(args) -> Path:
    from PySide6.QtWidgets import QApplication

    from boomer_gui.app import initial_spec
    from boomer_gui.app import parse_args as app_args
    from boomer_gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    width, height = (int(v) for v in args.size.lower().split("x"))
    window = MainWindow()
    window.confirm_close = lambda text: "discard"  # a scripted window closes without asking
    window.resize(width, height)
    window.show()
    if not window.load_data(initial_spec(app_args([]))):
        raise SystemExit("the built-in synthetic data set could not be generated")
    window.learner_panel.set_learner("boomer")
    if args.presentation:
        window.set_presentation(True)
    presets = list(window.learner_panel.spec.presets)
    n_runs = max(args.runs - 1, 0) if args.show == "inspector" else args.runs
    for k in range(n_runs):  # the last n presets, so that one run is the paper's example-wise complete heads
        window.learner_panel.apply_preset(presets[(len(presets) - n_runs + k) % len(presets)])
        # a preset's second and third run: another shrinkage (the runs' names say which)
        window.learner_panel.set_params({"max_rules": args.max_rules,
                                         "shrinkage": SHRINKAGES[(k // len(presets)) % len(SHRINKAGES)]})
        if not window.start_training():
            raise SystemExit("training could not start")
        if not _wait(lambda: not window.training_active, args.timeout):
            raise SystemExit(f"a run did not finish in {args.timeout:g} s")
    if args.show == "inspector":
        window.learner_panel.set_params({"loss": "logistic-non-decomposable", "head_type": "complete",
                                         "max_rules": 1000})
        if not window.start_training():
            raise SystemExit("training could not start")
        # Wait (event loop running, no sleeping) until enough rules have arrived.
        if not _wait(lambda: window.table_model.rowCount() >= args.rules or not window.training_active,
                     args.timeout) or window.table_model.rowCount() < args.rules:
            training = window.training
            window.stop_training()
            if training is not None:
                training.wait()
            raise SystemExit(f"only {window.table_model.rowCount()} rules after {args.timeout:g} s")
    if args.show == "preparing":
        _start_fake_preparation(window, args.timeout)
    elif args.show == "learners":
        _train_learners(window, args.timeout)
    elif args.show == "regression":
        _regression_beside_classification(window, args.max_rules, args.select, args.timeout, args.rules_tab)
    else:
        window.select_rule(args.select)
    if args.show == "head":
        window.details.setCurrentWidget(window.head_view)
    elif args.show == "explanation":
        window.details.setCurrentWidget(window.explanation)
        window.explanation.spin.setValue(args.select)
    elif args.show == "runs":
        window.top_tabs.setCurrentWidget(window.run_table)
    window.table.flush_repaint()
    window.plot.draw_now()
    window.driver.refresh_status()  # the rule count and the losses now, not at the status timer's next tick
    for _ in range(10):  # let the inspector's and the status bar's pending paints happen
        app.processEvents()
    pixmap = window.grab()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if not pixmap.save(str(args.out)):
        raise SystemExit(f"could not write {args.out}")
    if window.training is not None:
        training = window.training
        window.stop_training()
        training.wait()
    window.close()
    return args.out


def main(argv=None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("BOOMER_NO_BACKGROUND_PREPARE", "1")  # no compile in the background meanwhile
    out = take(args)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
