"""What a researcher asks of the package (issue 48): the distribution from a position and
under a target policy, the forward pass made once per table, results as data frames with
labelled columns, one argument order, where a result comes from, and a typed script that
``mypy --strict`` passes."""

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import yahtzee

ROOT = Path(__file__).resolve().parents[2]

YACHT_CARD = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18,
              "choice": 20, "yacht": 0, "full-house": 0}


def test_stats_from_a_card_a_position_and_under_a_target_are_the_cli_s(cli):
    table = yahtzee.solve("yacht")
    text = ",".join(f"{k}={v}" for k, v in YACHT_CARD.items())
    cases = [
        (dict(card=YACHT_CARD), ["--card", text]),
        (dict(card=YACHT_CARD, dice="12345", rolls_left=1),
         ["--card", text, "--dice", "12345", "--rolls-left", "1"]),
        (dict(card=YACHT_CARD, target=150), ["--card", text, "--target", "150"]),
        (dict(card=YACHT_CARD, dice="12345", rolls_left=1, target=150),
         ["--card", text, "--dice", "12345", "--rolls-left", "1", "--target", "150"]),
    ]
    for kwargs, flags in cases:
        got = yahtzee.stats(table, **kwargs)
        want = cli.json("stats", "--rules", "yacht", "--json", *flags)
        for k in ("seconds", "threads"):
            want.pop(k, None)
        assert got.summary == want, kwargs
        assert abs(got.pmf.sum() - 1) < 1e-12
        assert abs(float((got.support * got.pmf).sum()) - got.mean) < 1e-9
    # A position is the rules' first, then the card, the dice and the rolls left.
    assert yahtzee.stats(table, YACHT_CARD, "12345", 1) == yahtzee.stats(
        table, card=YACHT_CARD, dice="12345", rolls_left=1)
    with pytest.raises(ValueError, match="rolls_left"):
        yahtzee.stats(table, rolls_left=1)
    with pytest.raises(ValueError):
        yahtzee.stats(table, YACHT_CARD, "12345", 7)


def test_the_forward_pass_is_made_once_per_table():
    table = yahtzee.solve("yacht", True)
    first = yahtzee.stats(table)
    # The same pass: the seconds it took are those of the first.
    again = yahtzee.stats(table, at_least=[100])
    assert again.timing["seconds"] == first.timing["seconds"]
    visits = yahtzee.visit_probabilities(table)
    assert abs(visits.sum() - (len(yahtzee.boxes(table)) + 1)) < 1e-9
    assert again.pmf.tobytes() == first.pmf.tobytes()


def test_results_are_data_frames_with_labelled_columns():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    table = yahtzee.solve("yacht")
    s = yahtzee.stats(table)
    frame = s.to_pandas()
    assert list(frame.columns) == ["score", "probability", "at_least"]
    assert len(frame) == len(s.pmf) and abs(frame.probability.sum() - 1) < 1e-12
    assert frame.at_least.iloc[0] == pytest.approx(1.0)
    assert s.to_polars().columns == ["score", "probability", "at_least"]
    sim = yahtzee.simulate(table, games=200, seed=3)
    assert abs(sim.to_pandas().probability.sum() - 1) < 1e-12
    cards = [None, {"ones": 3}]
    dice = [[1, 3, 3, 5, 6], [2, 2, 3, 4, 6]]
    labels = yahtzee.option_labels(table)
    assert len(labels) == 32 + 12 and labels[0] == "keep_0" and labels[-1] == "score_yacht"
    assert labels[yahtzee.box_column(table, "choice")] == "score_choice"
    values = yahtzee.option_values(table, cards, dice, rolls_left=[2, 0])
    options = yahtzee.option_frame(table, cards, dice, rolls_left=[2, 0])
    assert isinstance(options, pd.DataFrame) and list(options.columns) == list(labels)
    assert np.array_equal(options.to_numpy(), values, equal_nan=True)
    assert yahtzee.advise(table, dice="13356").to_pandas().option[0] == "keep 5 6"
    del pl


def test_one_argument_order_and_the_old_one_with_a_warning():
    card = {"yahtzee": 50, "fours": 12}
    new = yahtzee.score("yahtzee", card, "44444", "full-house")
    assert new == yahtzee.Score("full-house", 25, 100)
    with pytest.warns(DeprecationWarning, match="score"):
        assert yahtzee.score("yahtzee", "44444", "full-house", card) == new
    legal = yahtzee.legal_boxes("yahtzee", card, "44444")
    with pytest.warns(DeprecationWarning, match="legal_boxes"):
        assert yahtzee.legal_boxes("yahtzee", "44444", card) == legal
    with pytest.warns(DeprecationWarning, match="legal_boxes"):
        assert yahtzee.legal_boxes("yacht", [1, 1, 1, 3, 4]) == yahtzee.legal_boxes(
            "yacht", None, [1, 1, 1, 3, 4])
    with pytest.warns(DeprecationWarning, match="stats"):
        old = yahtzee.stats("yacht", False, [150])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert old == yahtzee.stats("yacht", upper_first=False, at_least=[150])
        yahtzee.score("yacht", None, "11134", "ones")
        yahtzee.legal_boxes("yacht", None, "11134")


def test_every_result_says_where_it_comes_from():
    table = yahtzee.solve("yacht")
    summary = yahtzee.stats(table).summary
    assert summary["version"] == yahtzee.__version__
    assert summary["commit"] == yahtzee.COMMIT
    assert summary["dice_generator"] == yahtzee.DICE_GENERATOR
    assert yahtzee.COMMIT == "unknown" or len(yahtzee.COMMIT) == 40
    sim = yahtzee.simulate(table, games=10, seed=1)
    assert sim.summary["dice_generator"] == yahtzee.DICE_GENERATOR


def test_a_typed_script_passes_mypy_strict():
    """The stub of the compiled module and the package's hints are complete: a user's typed
    script passes ``mypy --strict``, and so does the package itself."""
    pytest.importorskip("mypy")
    script = ROOT / "python" / "examples" / "typed_usage.py"
    for target in ([str(script)], ["-p", "yahtzee"]):
        done = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *target],
            capture_output=True, text=True, cwd=ROOT / "python" / "examples",
        )
        assert done.returncode == 0, done.stdout + done.stderr


def test_citation_is_valid_cff():
    pytest.importorskip("cffconvert")
    command = Path(sys.executable).parent / "cffconvert"
    done = subprocess.run(
        [str(command), "--validate", "-i", str(ROOT / "CITATION.cff")],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    version = [line for line in (ROOT / "CITATION.cff").read_text().splitlines()
               if line.startswith("version:")]
    assert version == [f"version: {yahtzee.__version__}"]
