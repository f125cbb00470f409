"""scripts/distribution_example.py runs as a plain script (matplotlib's Agg backend) and draws
the distribution to the PNG file it is given."""

import struct
import subprocess
import sys

import yahtzee
from conftest import ROOT

SCRIPT = ROOT / "scripts" / "distribution_example.py"


def test_the_example_plots_the_distribution_to_a_png(tmp_path):
    png = tmp_path / "yacht.png"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(png), "--rules", "yacht"],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "MPLBACKEND": ""},
    )
    assert done.returncode == 0, done.stderr
    exact = yahtzee.stats("yacht")
    lines = done.stdout.splitlines()
    assert lines[0] == (
        f"yacht: mean {exact.mean:.4f}, standard deviation {exact.std_dev:.4f}, median 169, "
        "lowest 6, highest 303"
    )
    assert lines[1] == "P(sum) = 1.000000000000"
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (900, 450)
    assert len(data) > 10_000  # bars, axes and text, not an empty canvas


def test_the_example_refuses_unknown_rules(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "x.png"), "--rules", "yahtzee-deluxe"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "invalid choice: 'yahtzee-deluxe'" in done.stderr
    assert not (tmp_path / "x.png").exists()
