"""docs/paper (issue 48): the script reproduces every number and figure of the short paper
from the package, and the numbers are the command line's."""

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import yahtzee

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "docs" / "paper"


def paper_rows(n: dict) -> list:
    """The lines of docs/paper/README.md that quote the script's numbers, formatted from them."""
    e, j = n["events"], n["bonus_by_five_of_a_kind"]
    p = n["percentiles"]
    rows = [
        f"| mean | {n['mean']:.10f} |",
        f"| standard deviation | {n['sd']:.10f} |",
        f"| 5th / 50th / 95th percentile | {p['5']} / {p['50']} / {p['95']} |",
        f"| at least one five of a kind rolled (any roll) | {e['yahtzee-rolled']:.10f} |",
        f"| five of a kind scored (50 in the box, or a bonus) | {e['yahtzee-scored']:.10f} |",
        f"| a small straight rolled | {e['small-straight-rolled']:.10f} |",
        f"| a large straight rolled | {e['large-straight-rolled']:.10f} |",
        f"| the upper bonus reached | {e['upper-bonus']:.10f} |",
        f"| upper bonus | {j['both']:.10f} | {j['bonus_only']:.10f} |",
        f"| no upper bonus | {j['five_of_a_kind_only']:.10f} | {j['neither']:.10f} |",
        f"the variance of the total, {n['variance']:.10f}",
    ]
    for f in n["frontier"]:
        q = f["percentiles"]
        rows.append(
            f"| {f.get('theta', 0):g} | {f['mean']:.4f} | {f['std_dev']:.4f} | {q[0]} | {q[3]} | {q[6]} |"
        )
    best = {b["percentile"]: b for b in n["best_theta"]}
    rows.append(
        f"for the 5th percentile is {best[5]['theta']:g} ({best[5]['score']}), "
        f"for the 95th {best[95]['theta']:g} ({best[95]['score']})"
    )
    return rows


def test_the_paper_s_script_reproduces_its_numbers_and_figures(tmp_path):
    clock = time.monotonic()
    subprocess.run([sys.executable, str(PAPER / "figures.py"), str(tmp_path)], check=True)
    seconds = time.monotonic() - clock
    print(f"docs/paper/figures.py: {seconds:.1f} s")
    n = json.loads((tmp_path / "numbers.json").read_text())
    text = " ".join((PAPER / "README.md").read_text().split())
    for row in paper_rows(n):
        assert " ".join(row.split()) in text, f"docs/paper/README.md lacks: {row}"
    for name in ("distribution", "events", "frontier", "visits"):
        png = (tmp_path / f"{name}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000, name
        assert (PAPER / "figures" / f"{name}.png").is_file(), name

    # The numbers hold together (the command line's own are compared with the package's in
    # test_stats.py and below, on Yacht, where each costs a fraction of a second).
    assert abs(n["covariance_sum"] - n["variance"]) < 1e-9 * n["variance"]
    assert abs(sum(n["pmf"]) - 1) < 1e-12
    j = n["bonus_by_five_of_a_kind"]
    assert abs(j["both"] + j["bonus_only"] - n["events"]["upper-bonus"]) < 1e-12
    optimal = [f for f in n["frontier"] if f["policy"] == "optimal"][0]
    assert abs(optimal["mean"] - n["expected_score"]) < 1e-9
    assert max(f["mean"] for f in n["frontier"]) == optimal["mean"]
    heat = np.array(n["visits"])
    assert np.allclose(heat.sum(axis=1), 1.0, atol=1e-12)


def test_theta_from_python_is_the_command_line_s(cli):
    table = yahtzee.solve("yacht")
    s = yahtzee.stats(table, theta=-0.05)
    want = cli.json("stats", "--rules", "yacht", "--theta", "-0.05", "--json")
    assert abs(s.mean - want["mean"]) < 1e-9
    assert abs(s.summary["certainty_equivalent"] - want["certainty_equivalent"]) < 1e-9
    a = yahtzee.advise(table, dice="13356", theta=0.1)
    line = cli.json("advise", "--rules", "yacht", "--dice", "1,3,3,5,6", "--theta", "0.1",
                    "--json")
    assert [o.certainty_equivalent for o in a.options] == [
        o["certainty_equivalent"] for o in line["options"]
    ]
    assert a.theta == 0.1 and a.best.keep == tuple(line["options"][0]["keep"])
    f = yahtzee.frontier(table, thetas=[-0.05, 0])
    assert [p["policy"] for p in f.policies] == ["theta:-0.05", "optimal"]
    assert abs(f.policies[0]["mean"] - s.mean) < 1e-9
    assert list(f.to_pandas()["p50"]) == [p["percentiles"][3] for p in f.policies]
    for bad in (float("nan"), 9.0, "x"):
        try:
            yahtzee.stats(table, theta=bad)  # type: ignore[arg-type]
        except ValueError as e:
            assert "θ" in str(e) or "theta" in str(e), e
        else:
            raise AssertionError(f"theta={bad!r} accepted")
