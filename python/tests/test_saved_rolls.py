"""Games of saved rolls (a rules file with `saved_rolls = true`; `shared/RULES.md`, section 8):
Yatzy with saved rolls (its example file), whose table is built once (about 10 s) in the tests'
table folder (`$YAHTZEE_TABLE_DIR`, a temporary folder: see conftest.py), where the command
line run by the tests reads it too. The expected score is the command line's `solve` and the
mean of the best options of the 252 opening rolls; advice equals `advise --saved --json`;
value() is the table's and agrees with the options' values; simulate() plays the command
line's games; bad rolls saved and re-rolls left raise the batch's message; what is not solved
under saved rolls raises a ValueError saying why."""

import itertools
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import yahtzee

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "data" / "rules" / "examples" / "yatzy-saved-rolls.toml"


@pytest.fixture(scope="module")
def table():
    return yahtzee.solve(RULES)


@pytest.fixture(scope="module")
def solved(cli, tmp_path_factory):
    """`yahtzee solve --json` of the rules, its table written to a folder of its own."""
    out = tmp_path_factory.mktemp("saved-solve") / "t.table"
    return cli.json("solve", "--rules", str(RULES), "--out", str(out), "--json")


def card_text(card):
    return ",".join(f"{k}={v}" for k, v in card.items())


def openings():
    """The 252 opening rolls of five dice (ascending faces), each with the number of the
    6^5 ordered rolls that show it."""
    for dice in itertools.combinations_with_replacement(range(1, 7), 5):
        ways = math.factorial(5)
        for n in Counter(dice).values():
            ways //= math.factorial(n)
        yield list(dice), ways


def test_the_expected_score_is_the_command_line_solve(table, solved):
    assert table.saved_rolls and table.rules.startswith("yatzy-saved-rolls-")
    assert solved["saved_rolls"] is True
    assert table.expected_score == solved["expected_score"]
    # The value the guide gives (docs/rules-files.md), above Yatzy's 248.44 by the saved rolls.
    assert round(table.expected_score, 10) == 280.4109275551
    assert yahtzee.value(table) == table.expected_score
    assert yahtzee.solve("yatzy").saved_rolls is False


def test_the_start_is_the_mean_of_the_best_options_of_the_opening_rolls(table):
    rolls = list(openings())
    assert len(rolls) == 252 and sum(w for _, w in rolls) == 6**5
    answers = yahtzee.advise_batch(table, [{"dice": d} for d, _ in rolls])
    assert all(a.rolls_left == 2 for a in answers)
    mean = sum(w * a.best.expected_final for (_, w), a in zip(rolls, answers)) / 6**5
    assert abs(mean - table.expected_score) < 1e-9
    # A card after a turn, with 2 rolls saved (4 re-rolls left): its value and the points
    # banked are the mean of the best options of its turn's opening rolls.
    card = {"ones": 3}
    answers = yahtzee.advise_batch(table, [{"card": card, "dice": d, "saved": 2} for d, _ in rolls])
    assert all(a.rolls_left == 4 and a.banked == 3 for a in answers)
    mean = sum(w * a.best.expected_final for (_, w), a in zip(rolls, answers)) / 6**5
    assert abs(mean - (3 + yahtzee.value(table, card, saved=2))) < 1e-9
    # A roll saved is worth something here.
    assert yahtzee.value(table, card, saved=2) > yahtzee.value(table, card, saved=0)


# (card, dice, rolls saved, re-rolls left or None for the turn's start)
POSITIONS = [
    (None, "13356", 0, None),
    ({"ones": 3}, "13356", 2, None),
    ({"ones": 3, "chance": 22, "yatzy": 0}, "22456", 5, 3),
    ({"twos": 6, "fours": 12, "full-house": 0}, "44446", 6, 7),
    ({"sixes": 24, "one-pair": 12}, "66666", 4, 0),
]


@pytest.mark.parametrize("card,dice,saved,rolls_left", POSITIONS)
def test_advice_equals_the_cli_json(cli, table, card, dice, saved, rolls_left):
    args = ["advise", "--rules", str(RULES), "--dice", dice, "--saved", str(saved)]
    if rolls_left is not None:
        args += ["--rolls-left", str(rolls_left)]
    if card:
        args += ["--card", card_text(card)]
    got = yahtzee.advise(table, card, dice, rolls_left, saved=saved)
    want = cli.json(*args, "--json")
    assert got.json == want
    assert got.rolls_left == (2 + saved if rolls_left is None else rolls_left)
    # The options in words, as the command line's table words them.
    lines = cli.run(*args).stdout.splitlines()[2:]
    assert [str(o) for o in got.options] == [
        line[6:].rsplit(None, 2)[0].rstrip() for line in lines
    ]
    # A box filled now is worth its points, its bonus and the value of the card after it with
    # the re-rolls left saved: value() and advise() read the same table.
    scores = [o for o in got.options if o.kind == "score"]
    assert scores and all(o.saves == got.rolls_left for o in scores)
    for o in scores:
        after = dict(card or {}, **{o.category: o.points})
        rest = yahtzee.value(table, after, saved=o.saves)
        assert abs(o.expected_final - (got.banked + o.points + o.bonus + rest)) < 1e-9
    if got.rolls_left == 0:
        assert all(o.kind == "score" for o in got.options)


def test_a_batch_with_rolls_saved_equals_advise_batch(cli, table):
    queries = []
    for card, dice, saved, rolls_left in POSITIONS:
        query = {"card": card or {}, "dice": [int(d) for d in dice], "saved": saved}
        if rolls_left is not None:
            query["rolls_left"] = rolls_left
        queries.append(query)
    lines = "".join(json.dumps(q) + "\n" for q in queries)
    out = cli.run("advise", "--rules", str(RULES), "--batch", input=lines).stdout
    want = [json.loads(line) for line in out.splitlines()]
    assert [a.json for a in yahtzee.advise_batch(table, queries)] == want


@pytest.mark.parametrize(
    "card,saved,rolls_left",
    [
        (None, 1, None),  # no turn played: nothing saved yet
        ({"ones": 3}, 3, None),  # one turn saves 2 at most
        ({"ones": 3}, 2, 5),  # 2 re-rolls and 2 saved: 4 at most
        (None, 0, 3),
        (None, -1, None),
        (None, "2", None),
    ],
)
def test_bad_rolls_saved_or_left_raise_the_batch_message(cli, table, card, saved, rolls_left):
    query = {"card": card or {}, "dice": [1, 3, 3, 5, 6], "saved": saved}
    if rolls_left is not None:
        query["rolls_left"] = rolls_left
    line = cli.run("advise", "--rules", str(RULES), "--batch", input=json.dumps(query) + "\n").stdout
    message = json.loads(line)["error"]
    with pytest.raises(ValueError) as e:
        yahtzee.advise(table, card, "13356", rolls_left, saved=saved)
    assert str(e.value) == message
    # The command line's flags are checked by the same function, and say so with their names.
    if isinstance(saved, int) and saved >= 0:
        args = ["advise", "--rules", str(RULES), "--dice", "13356", "--saved", str(saved)]
        args += ["--card", card_text(card)] if card else []
        args += ["--rolls-left", str(rolls_left)] if rolls_left is not None else []
        assert cli.error(*args) == "--saved, --rolls-left: " + message
        # value() checks the rolls saved as advice does (the re-rolls left are advice's).
        if rolls_left is None:
            with pytest.raises(ValueError) as e:
                yahtzee.value(table, card, saved=saved)
            assert str(e.value) == message


def test_rolls_saved_are_refused_in_a_game_without_them(cli):
    table = yahtzee.solve("yahtzee")
    query = {"dice": [1, 3, 3, 5, 6], "saved": 0}
    line = cli.run("advise", "--batch", input=json.dumps(query) + "\n").stdout
    with pytest.raises(ValueError) as e:
        yahtzee.advise(table, dice="13356", saved=0)
    assert str(e.value) == json.loads(line)["error"]
    with pytest.raises(ValueError, match="yahtzee does not .saved_rolls = true"):
        yahtzee.value(table, None, saved=1)
    # value() of an ordinary game is the table's column of values().
    assert yahtzee.value(table) == table.expected_score
    v = table.values()
    row = np.flatnonzero((v["filled"] == 1) & (v["upper"] == 3))
    assert yahtzee.value(table, {"ones": 3}) == v["expected_remaining"][row[0]]


def test_values_have_a_row_per_state_and_rolls_saved(table, solved):
    v = table.values()
    assert list(v) == [
        "filled", "upper", "yahtzee_50", "turns_played", "saved", "expected_remaining",
    ]
    assert v["saved"].dtype == np.uint8
    assert all(len(a) == table.states for a in v.values())
    assert (v["saved"] <= 2 * v["turns_played"]).all()
    start = (v["filled"] == 0) & (v["saved"] == 0)
    assert start.sum() == 1 and v["expected_remaining"][start][0] == table.expected_score
    full = v["turns_played"] == len(yahtzee.boxes(table))
    assert (v["expected_remaining"][full] == 0).all()
    # The solve counts the states it solves: all but the full card's.
    assert table.states - full.sum() == solved["states"]
    # The rows of the card {"ones": 3} are value() of it with each number of rolls saved.
    rows = np.flatnonzero((v["filled"] == 1) & (v["upper"] == 3))
    assert list(v["saved"][rows]) == [0, 1, 2]
    for r in rows:
        saved = int(v["saved"][r])
        assert v["expected_remaining"][r] == yahtzee.value(table, {"ones": 3}, saved=saved)


def test_simulated_games_are_the_cli_games(cli, table):
    sim = yahtzee.simulate(table, games=400, seed=5)
    want = cli.json("simulate", "--rules", str(RULES), "--games", "400", "--seed", "5", "--json")
    for key in ("seconds", "games_per_second", "threads"):
        del want[key]
    assert sim.summary == want
    assert sim.summary["table_checksum"] is not None
    assert sim.scores.dtype == np.uint32 and len(sim.scores) == 400
    assert abs(sim.scores.mean() - want["mean"]) < 1e-9
    # The rules by their file give the same games, game by game.
    again = yahtzee.simulate(str(RULES), games=400, seed=5)
    assert (again.scores == sim.scores).all()
    se = sim.scores.std() / np.sqrt(len(sim.scores))
    assert abs(sim.scores.mean() - table.expected_score) < 4 * se


def refusals(table):
    """What is not solved, or not played, under saved rolls: each call, and what its refusal
    says is why."""
    objectives = "the target, win and two-player objectives need the rules without saved rolls"
    exact = "under saved rolls is not computed"
    return {
        "stats from a card": (
            lambda: yahtzee.stats(table, card={"ones": 3}),
            "is computed from a new game alone",
        ),
        "visit_probabilities": (lambda: yahtzee.visit_probabilities(table), exact),
        "target": (lambda: yahtzee.advise(table, dice="13356", target=250), objectives),
        "opponents": (lambda: yahtzee.advise(table, dice="13356", opponents=[250]), objectives),
        "target_curve": (lambda: yahtzee.target_curve(table), objectives),
        "target_path": (lambda: table.target_path, objectives),
        "option_values": (
            lambda: yahtzee.option_values(table, [None], ["13356"]),
            "advise and advise_batch take a position's rolls saved",
        ),
        "greedy": (
            lambda: yahtzee.simulate(table, games=10, policy="greedy"),
            "the policies but the optimal one (optimal) need the rules without saved rolls",
        ),
        "callable": (
            lambda: yahtzee.simulate(table, games=10, policy=lambda p: "chance"),
            "policies of one's own (callables) need the rules without saved rolls",
        ),
        "rate": (
            lambda: yahtzee.rate(table, []),
            "ratings of game records need the rules without saved rolls",
        ),
    }


@pytest.mark.parametrize("what", list(refusals(None)))
def test_what_saved_rolls_do_not_solve_is_refused_saying_why(table, what):
    call, why = refusals(table)[what]
    with pytest.raises(ValueError) as e:
        call()
    message = str(e.value)
    assert message.count(table.rules) == 1 and "\n" not in message
    assert "keeps unused rolls for later turns" in message or "under saved rolls" in message
    assert why in message


SMALL = """name = "saved-small"
dice = 5
rolls = 3
saved_rolls = true
joker = "forced"
five_of_a_kind_bonus = 100

[[box]]
name = "three"
kind = "of-a-kind"
count = 3
score = "sum"

[[box]]
name = "house"
kind = "full-house"
points = 25

[[box]]
name = "yahtzee"
kind = "five-of-a-kind"
points = 50

[[box]]
name = "chance"
kind = "chance"
"""


def test_stats_of_a_game_of_saved_rolls_is_the_command_line_s_exact_distribution(
    cli, tmp_path
):
    """The exact distribution under saved rolls (of a game of four boxes: the command line's
    test checks it against a brute force): its chances sum to 1, its mean is the expected
    score, and its report is `stats --json`'s."""
    rules = tmp_path / "saved-small.toml"
    rules.write_text(SMALL)
    table = yahtzee.solve(str(rules))
    result = yahtzee.stats(table)
    pmf = result.pmf
    assert abs(pmf.sum() - 1.0) < 1e-12
    mean = float((np.arange(len(pmf)) * pmf).sum())
    assert abs(mean - table.expected_score) < 1e-9
    want = cli.json("stats", "--rules", str(rules), "--json")
    got = dict(result.summary)
    for report in (want, got):
        for key in ("seconds", "threads"):
            report.pop(key, None)
    assert got == want
