"""The figure command at reduced size produces a non-empty image of the requested format."""
import pytest

from engine.cli import main


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_figure1_writes_the_requested_format(tmp_path, suffix, magic, capsys):
    out = tmp_path / f"figure{suffix}"
    traj = tmp_path / "traj.csv"
    assert main(["figure1", "--out", str(out), "--rules", "8", "--examples", "300",
                 "--trajectories", str(traj)]) == 0
    data = out.read_bytes()
    assert data.startswith(magic) and len(data) > 5000
    assert traj.read_text().count("rules,train_hamming") == 12
    assert "Bayes-optimal" in capsys.readouterr().out
