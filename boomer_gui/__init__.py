"""Desktop application (PySide6) for learning and exploring multi-label rule models.

Start it with ``boomer-gui`` or ``python -m boomer_gui``; see :mod:`boomer_gui.app`."""

__all__ = ["main"]


def main(argv=None) -> int:
    from boomer_gui.app import main as _main

    return _main(argv)
