"""advise(): the answers of `yahtzee advise --json` and `--batch`, for sampled positions of
every rule set, and the command line's messages for bad positions."""

import json
import random

import numpy as np
import pytest

import yahtzee


def walk(rules, seed, turns):
    """Positions of a game played at random (random dice, often five of a kind, scored in a
    random legal box as advise lists them): (card dict, yahtzee bonuses, dice, rolls left)."""
    rng = random.Random(seed)
    table = yahtzee.solve(rules)
    card, bonuses, positions = {}, 0, []
    for _ in range(turns):
        if rng.random() < 0.3:
            dice = [rng.randint(1, 6)] * 5
        else:
            dice = [rng.randint(1, 6) for _ in range(5)]
        positions.append((dict(card), bonuses, dice, rng.randint(0, 2)))
        options = yahtzee.advise(table, card, dice, 0, bonuses).options
        o = rng.choice(options)
        card[o.category] = o.points
        if o.bonus >= 100:
            bonuses += 1
    return table, positions


def card_text(card):
    return ",".join(f"{k}={v}" for k, v in card.items())


def cli_args(rules, card, bonuses, dice, rolls_left):
    args = ["advise", "--rules", rules, "--dice", "".join(map(str, dice))]
    args += ["--rolls-left", str(rolls_left), "--yahtzee-bonus", str(bonuses)]
    if card:
        args += ["--card", card_text(card)]
    return args


@pytest.mark.parametrize("rules,seed", [("yahtzee", 1), ("yahtzee-free-joker", 2), ("yacht", 3), ("yatzy", 4)])
def test_advice_equals_the_cli_json_for_sampled_positions(cli, rules, seed):
    table, positions = walk(rules, seed, 12)
    for card, bonuses, dice, rolls_left in positions[::3]:
        got = yahtzee.advise(table, card, dice, rolls_left, bonuses)
        want = cli.json(*cli_args(rules, card, bonuses, dice, rolls_left), "--json")
        assert got.json == want
        assert got.banked == want["banked"] and list(got.dice) == sorted(dice)
        assert [o.expected_final for o in got.options] == [o["expected_final"] for o in want["options"]]
        # The card as command-line text gives the same answer.
        if card:
            assert yahtzee.advise(table, card_text(card), dice, rolls_left, bonuses).json == want


def test_advice_of_a_batch_equals_advise_batch_line_for_line(cli):
    table, positions = walk("yahtzee", 7, 13)
    queries = [dict(card=c, yahtzee_bonus=b, dice=d, rolls_left=r) for c, b, d, r in positions]
    got = yahtzee.advise_batch(table, queries)
    lines = "".join(json.dumps(q) + "\n" for q in queries)
    want = [json.loads(l) for l in cli.run("advise", "--batch", input=lines).stdout.splitlines()]
    assert [a.json for a in got] == want
    assert len(got) == 13


def test_target_advice_equals_the_cli_json(cli):
    table = yahtzee.solve("yacht")
    card = {"ones": 2, "twos": 8, "threes": 9, "fours": 16, "fives": 20, "sixes": 24,
            "full-house": 0, "little-straight": 30, "big-straight": 30}
    got = yahtzee.advise(table, card, [2, 2, 6, 2, 6], 2, target=200)
    want = cli.json(*cli_args("yacht", card, 0, [2, 2, 6, 2, 6], 2), "--target", "200", "--json")
    assert got.json == want
    assert got.target == 200 and got.needed == 61
    assert str(got.best) == "keep 2 2 2" and abs(got.best.p_reach - 0.1747) < 5e-5
    assert got.best.expected_loss > 0


def test_the_best_opening_keep_is_the_readme_answer():
    table = yahtzee.solve("yahtzee")
    a = yahtzee.advise(table, dice="1,3,3,5,6")
    assert str(a.best) == "keep 3 3" and a.best.keep == (3, 3)
    assert abs(a.best.expected_final - 251.4054) < 5e-5
    assert a.best.loss == 0 and all(o.loss >= 0 for o in a.options)
    assert len(a.options) == 24 and str(a.options[-1]) == "stop and score threes"
    frame = a.to_dataframe()
    assert list(frame["option"][:2]) == ["keep 3 3", "keep 3 3 5"]
    joker = yahtzee.advise(table, "ones=3,full-house=25,yahtzee=50", "44444", 0, 1)
    assert str(joker.best) == "score fours for 20 (+100 bonus)"


@pytest.mark.parametrize(
    "card,bonus,dice,rolls_left",
    [
        ("twos=3", 0, "13356", 2),
        ("", 0, "1335", 2),
        ("", 0, "1,3,3,5,7", 1),
        ("fiftys=3", 0, "13356", 2),
        ("ones=3,ones=2", 0, "13356", 2),
        ("", 1, "13356", 2),
        ("yahtzee=0", 2, "66666", 0),
    ],
)
def test_bad_positions_raise_value_error_with_the_cli_message(cli, card, bonus, dice, rolls_left):
    table = yahtzee.solve("yahtzee")
    args = ["advise", "--dice", dice, "--rolls-left", str(rolls_left)]
    args += ["--yahtzee-bonus", str(bonus)] + (["--card", card] if card else [])
    message = cli.error(*args)
    with pytest.raises(ValueError) as e:
        yahtzee.advise(table, card or None, dice, rolls_left, bonus)
    assert str(e.value) == message


@pytest.mark.parametrize(
    "query",
    [
        {"dice": [1, 3, 3, 5]},
        {"dice": [1, 3, 3, 5, 7]},
        {"dice": [1, 2, 3, 4, 5], "rolls_left": 3},
        {"dice": [1, 2, 3, 4, 5], "yahtzee_bonus": -1},
        {"dice": [1, 2, 3, 4, 5], "card": {"ones": "3"}},
        {"dice": [1, 2, 3, 4, 5], "target": -5},
    ],
)
def test_bad_queries_raise_value_error_with_the_batch_message(cli, query):
    table = yahtzee.solve("yahtzee")
    line = cli.run("advise", "--batch", input=json.dumps(query) + "\n").stdout
    message = json.loads(line)["error"]
    with pytest.raises(ValueError) as e:
        yahtzee.advise(table, **query)
    assert str(e.value) == message
    with pytest.raises(ValueError) as e:
        yahtzee.advise_batch(table, [{"dice": [6, 6, 6, 6, 6]}, query])
    assert str(e.value) == "query 1: " + message


def test_advice_against_opponents_equals_the_cli_json(cli):
    table = yahtzee.solve("yacht")
    card = {"ones": 3, "twos": 6, "full-house": 26}
    other = {"threes": 9, "choice": 22}
    got = yahtzee.advise(
        table, card, [2, 2, 3, 3, 6], 1, opponents=[{"card": other, "yahtzee_bonus": 0}, 40]
    )
    want = cli.json(
        *cli_args("yacht", card, 0, [2, 2, 3, 3, 6], 1),
        "--opponent", card_text(other), "--opponent-final", "40", "--json",
    )
    assert got.json == want
    assert got.p_win == want["p_win"] == got.best.p_win
    assert [o.p_win for o in got.options] == [o["p_win"] for o in want["options"]]
    assert got.opponents[1]["finished"] == 40 and got.model == want["model"]
    # The card as command-line text, and the final score as a dict, give the same answer.
    same = yahtzee.advise(
        table, card, [2, 2, 3, 3, 6], 1,
        opponents=[{"card": card_text(other)}, {"final": 40}],
    )
    assert same.json == want
    batch = yahtzee.advise_batch(
        table, [dict(card=card, dice=[2, 2, 3, 3, 6], rolls_left=1, opponents=[40])]
    )
    assert batch[0].p_win == yahtzee.advise(table, card, [2, 2, 3, 3, 6], 1, opponents=[40]).p_win


def test_bad_opponents_raise_value_error_with_the_batch_message(cli):
    table = yahtzee.solve("yacht")
    for opponents in [[], [{"final": -1}], [{"card": {"ones": 7}}], "alice"]:
        query = {"dice": [1, 2, 3, 4, 5], "opponents": opponents}
        line = cli.run("advise", "--rules", "yacht", "--batch", input=json.dumps(query) + "\n").stdout
        message = json.loads(line)["error"]
        with pytest.raises(ValueError) as e:
            yahtzee.advise(table, dice=[1, 2, 3, 4, 5], opponents=opponents)
        assert str(e.value) == message


SIX_DICE = """name = "six-dice-python"
dice = 6
rolls = 3
joker = "none"

[[box]]
name = "pairs"
kind = "three-pairs"

[[box]]
name = "house"
kind = "full-house"
score = "sum"

[[box]]
name = "maxi"
kind = "all-of-a-kind"
points = 100
"""


def test_advice_of_a_six_dice_file_equals_the_cli_json(cli, tmp_path):
    rules = tmp_path / "six.toml"
    rules.write_text(SIX_DICE)
    path = tmp_path / "six.table"
    table = yahtzee.solve(rules, path=path)
    for dice, rolls_left in [("122336", 2), ("111166", 1), ("123456", 0)]:
        got = yahtzee.advise(table, dice=dice, rolls_left=rolls_left)
        want = cli.json(
            "advise", "--rules", str(rules), "--table", str(path), "--dice", dice,
            "--rolls-left", str(rolls_left), "--json",
        )
        assert got.json == want
    # One column per subset of the six dice, then the boxes.
    values = yahtzee.option_values(table, [None], ["122336"], 2)
    assert values.shape == (1, 64 + 3)
    assert yahtzee.keep_columns(table) == 64 and yahtzee.keep_columns("yacht") == 32
    names = yahtzee.boxes(table)
    assert yahtzee.box_column(table, names[0]) == 64
    # The box columns are NaN with rolls left; with none they hold each box's value.
    last = yahtzee.option_values(table, [None], ["123456"], 0)
    for b in names:
        column = yahtzee.box_column(table, b)
        assert np.isnan(values[0, column])
        assert last[0, column] == next(
            o.expected_final for o in yahtzee.advise(table, dice="123456", rolls_left=0).options
            if o.category == b
        )
    assert np.nanmax(values) == yahtzee.advise(table, dice="122336").options[0].expected_final
    with pytest.raises(ValueError, match="as the game has six dice"):
        yahtzee.advise(table, dice="12233")
