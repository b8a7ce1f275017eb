"""Shared test set-up: Qt runs offscreen; real benchmark data are found beside the project."""
import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data``; tests that need it skip with a reason when it is absent."""
    if not DATA_DIR.is_dir():
        pytest.skip(f"benchmark data folder {DATA_DIR} is absent")
    return DATA_DIR
