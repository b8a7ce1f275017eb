"""Command line entry point: ``boomer-gui [DATA_FILE | SESSION.json] [--synthetic KIND] ...``.

Without arguments the window opens ready to train on the synthetic 'conditional-dependence'
data set (2,000 training and 2,000 test examples drawn with different seeds)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.api import SYNTHETIC_KINDS

DEFAULT_SYNTHETIC = "conditional-dependence"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="boomer-gui", description="Learn and explore multi-label classification rules.")
    p.add_argument("data", nargs="?", help="a data file (.arff, .svm, .csv) or a saved session (.json)")
    p.add_argument("--synthetic", metavar="KIND", choices=SYNTHETIC_KINDS,
                   help=f"generate a synthetic data set: {', '.join(SYNTHETIC_KINDS)}")
    p.add_argument("--examples", type=int, default=2000, help="synthetic training (and test) examples [2000]")
    p.add_argument("--seed", type=int, default=0, help="synthetic data seed [0]")
    p.add_argument("--test", metavar="FILE", help="a separate test file (otherwise a 30%% random split)")
    p.add_argument("--labels", metavar="COLS", help="CSV label columns, comma separated")
    p.add_argument("--start", action="store_true", help="start training at once")
    args = p.parse_args(argv)
    if args.data and args.synthetic:
        p.error("give a data file or --synthetic, not both")
    return args


def initial_spec(args):
    from boomer_gui.components.state import DataSpec

    if args.data and Path(args.data).suffix.lower() != ".json":
        labels = [c.strip() for c in args.labels.split(",")] if args.labels else None
        if args.test:
            return DataSpec(kind="file", path=args.data, label_columns=labels, test_mode="file", test_path=args.test)
        return DataSpec(kind="file", path=args.data, label_columns=labels, test_mode="split")
    return DataSpec(kind="synthetic", synthetic=args.synthetic or DEFAULT_SYNTHETIC, n_examples=args.examples,
                    n_test=args.examples, seed=args.seed, test_mode="generated")


def install_excepthook(window) -> None:
    """An exception escaping a Qt slot is shown in a message box (with its type) instead of only
    on stderr; the window stays usable and nothing learned is lost."""
    previous = sys.excepthook

    def hook(exc_type, exc, tb):
        previous(exc_type, exc, tb)  # keep the traceback on stderr for bug reports
        try:
            window.show_error("Unexpected error", f"{exc_type.__name__}: {exc}\n\nThe window is still usable; "
                                                  "the rules learned so far are kept.")
        except Exception:  # noqa: BLE001 - never fail inside the hook
            pass

    sys.excepthook = hook


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from PySide6.QtWidgets import QApplication

    from boomer_gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("boomer-gui")
    window = MainWindow()
    install_excepthook(window)
    window.show()
    if args.data and Path(args.data).suffix.lower() == ".json":
        if not window._guard("Cannot open the session", window.open_session, args.data):
            window.load_data(initial_spec(parse_args([])))
    else:
        spec = initial_spec(args)
        if spec.kind == "file" and spec.path.lower().endswith(".csv") and not spec.label_columns:
            if not window.data_panel.open_path(spec.path):
                window.load_data(initial_spec(parse_args([])))
        elif not window.load_data(spec) and spec.kind == "file":
            window.load_data(initial_spec(parse_args([])))
    if args.start and window.data is not None:
        window.start_training()
    return quit_promptly(app.exec())


def quit_promptly(code: int) -> int:
    """After the window closed (its training stopped, the background preparation killed, an
    experiment's cluster closed on ``aboutToQuit``) only the interpreter's teardown is left; its
    final garbage collection walks the whole heap (Numba, LLVM, matplotlib, SciPy ...) and kept the
    process alive for 2-8 s after Quit.  Freezing the heap skips that walk; the exit handlers and
    the modules' cleanup still run."""
    import gc

    gc.freeze()
    return code
