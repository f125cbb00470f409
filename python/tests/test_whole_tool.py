"""The whole tool from Python: the numpy option values against `advise --batch`, the target
curve, two-player advice, the rules engine, simulations with a policy of one's own, and the
value objects. Yacht where the rules do not matter (its tables are the suite's cheapest)."""

import importlib.metadata
import json
import random
from pathlib import Path

import numpy as np
import pytest

import yahtzee

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def yacht():
    return yahtzee.solve("yacht")


def random_positions(rules, count, seed):
    """`count` positions of games played at random through the rules engine (random dice,
    often five of a kind; a random legal box, scored by `yahtzee.score`): (card, yahtzee
    bonuses, dice, rolls left)."""
    rng = random.Random(seed)
    boxes = yahtzee.boxes(rules)
    positions = []
    while len(positions) < count:
        card, bonuses = {}, 0
        for _ in range(len(boxes)):
            if rng.random() < 0.2:
                dice = [rng.randint(1, 6)] * 5
            else:
                dice = sorted(rng.randint(1, 6) for _ in range(5))
            positions.append((dict(card), bonuses, dice, rng.randint(0, 2)))
            box = rng.choice(yahtzee.legal_boxes(rules, card, dice, bonuses))
            s = yahtzee.score(rules, card, dice, box, bonuses)
            card[box] = s.points
            bonuses += s.bonus >= 100
    return positions[:count]


def test_option_values_equal_the_cli_batch_for_10000_random_positions(cli, yacht):
    positions = random_positions("yacht", 10_000, 1)
    values = yahtzee.option_values(
        yacht,
        [c for c, _, _, _ in positions],
        [d for _, _, d, _ in positions],
        [r for _, _, _, r in positions],
        [b for _, b, _, _ in positions],
    )
    assert values.dtype == np.float64
    assert values.shape == (10_000, yahtzee.KEEP_COLUMNS + 12)
    lines = "".join(
        json.dumps({"card": c, "yahtzee_bonus": b, "dice": d, "rolls_left": r}) + "\n"
        for c, b, d, r in positions
    )
    out = cli.run("advise", "--rules", "yacht", "--batch", input=lines).stdout.splitlines()
    assert len(out) == 10_000
    for (card, _, dice, rolls_left), row, line in zip(positions, values, out):
        # The first column of each keep's faces.
        first = {}
        for m in range(yahtzee.KEEP_COLUMNS):
            first.setdefault(tuple(dice[i] for i in range(5) if m >> i & 1), m)
        seen = set()
        for o in json.loads(line)["options"]:
            if o["kind"] == "keep":
                column = first[tuple(o["keep"])]
            else:
                column = yahtzee.box_column(yacht, o["category"])
            assert row[column] == o["expected_final"], (card, dice, rolls_left, o)
            seen.add(column)
        if rolls_left > 0:
            # Every other keep column repeats the keep of the same faces; the boxes are NaN.
            assert seen == set(first.values())
            for m in range(yahtzee.KEEP_COLUMNS):
                assert row[m] == row[first[tuple(dice[i] for i in range(5) if m >> i & 1)]]
            assert np.isnan(row[yahtzee.KEEP_COLUMNS:]).all()
        else:
            assert np.isnan(row[: yahtzee.KEEP_COLUMNS]).all()
            assert seen == set(np.flatnonzero(~np.isnan(row)))


def test_option_values_take_arrays_and_name_a_bad_position(cli, yacht):
    cards = np.full((2, 12), -1)
    cards[1, 0] = 3  # ones = 3
    v = yahtzee.option_values(yacht, cards, np.array([[1, 3, 3, 5, 6], [2, 2, 3, 4, 6]]), 1)
    best = yahtzee.advise(yacht, {"ones": 3}, "22346", 1).best
    assert v[1, yahtzee.keep_column("22346", best.keep)] == best.expected_final
    assert yahtzee.keep_column("13356", (3, 5)) == 0b01010 and yahtzee.keep_column("31365", []) == 0
    assert yahtzee.box_column(yacht, "yacht") == yahtzee.KEEP_COLUMNS + 11
    with pytest.raises(ValueError, match="cannot keep"):
        yahtzee.keep_column("13356", (5, 5))
    assert np.nanmax(v[1]) == best.expected_final
    cards[1, 0] = 7
    message = json.loads(cli.run(
        "advise", "--rules", "yacht", "--batch",
        input=json.dumps({"card": {"ones": 7}, "dice": [2, 2, 3, 4, 6]}) + "\n",
    ).stdout)["error"]
    with pytest.raises(ValueError) as e:
        yahtzee.option_values(yacht, cards, [[1, 3, 3, 5, 6], [2, 2, 3, 4, 6]], 1)
    assert str(e.value) == "position 1: " + message
    with pytest.raises(ValueError, match="position 0: rolls left must be 0, 1 or 2, not 3"):
        yahtzee.option_values(yacht, [None], ["13356"], 3)
    with pytest.raises(ValueError, match="N rows of five faces"):
        yahtzee.option_values(yacht, [None], [[1, 3, 3, 5]], 1)


def test_the_target_curve_is_the_target_tables_reach(cli, yacht):
    curve = yahtzee.target_curve(yacht)
    report = cli.json("verify", str(yacht.target_path), "--json")
    for r in report["reach"]:
        # Beyond the curve's end no dice make the target.
        t = r["target"]
        assert (curve[t] if t < len(curve) else 0.0) == r["p_reach"]
        assert r["reachable"] == (t < len(curve) - 1)
    assert curve[0] == 1 and curve[-1] == 0
    assert (np.diff(curve) <= 0).all()
    # From a card: 1 up to the points banked, then the state's curve; Yacht's `choice`
    # alone open scores at most 30.
    card = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18,
            "full-house": 20, "four-of-a-kind": 16, "little-straight": 30,
            "big-straight": 30, "yacht": 50}
    banked = sum(card.values())
    c = yahtzee.target_curve(yacht, card)
    assert len(c) == banked + 32 and np.allclose(c[: banked + 6], 1, rtol=0, atol=1e-6)
    assert 0 < c[banked + 30] < c[banked + 29] and c[banked + 31] == 0
    # The best chance of 30 in `choice` is five sixes: keep the sixes twice.
    assert c[banked + 30] == pytest.approx(0.01327, abs=5e-5)


def test_two_player_advice_equals_the_cli(cli, yacht):
    mine = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18,
            "full-house": 20, "four-of-a-kind": 16, "little-straight": 30}
    theirs = {"ones": 2, "twos": 8, "threes": 12, "fours": 16, "fives": 20, "sixes": 24,
              "full-house": 26, "four-of-a-kind": 24, "choice": 22}
    text = lambda card: ",".join(f"{k}={v}" for k, v in card.items())
    a = yahtzee.advise(yacht, mine, "55556", 1, two_player=True, opponents=[{"card": theirs}])
    want = cli.json("advise", "--rules", "yacht", "--card", text(mine), "--dice", "55556",
                    "--rolls-left", "1", "--two-player", "--opponent", text(theirs), "--json")
    assert a.json == want
    assert a.you_are == want["you_are"] and a.lead == want["lead"] and a.banked is None
    assert a.value == a.best.value == want["options"][0]["value"]
    led = yahtzee.advise(yacht, mine, "55556", 1, two_player=True,
                         opponents=[{"card": theirs}], lead=-40)
    assert led.lead == -40 and led.value < a.value
    batch = yahtzee.advise_batch(yacht, [dict(card=mine, dice="55556", rolls_left=1,
                                               two_player=True, opponents=[{"card": theirs}])])
    assert batch[0] == a and hash(batch[0]) == hash(a)


def test_the_rules_engine_scores_as_the_advice_does():
    table = yahtzee.solve("yahtzee")
    card = {"ones": 3, "yahtzee": 50, "fours": 12}
    # A further Yahtzee of fours with fours filled: the forced Joker, any lower box.
    legal = yahtzee.legal_boxes("yahtzee", card, "44444", 1)
    advice = yahtzee.advise(table, card, "44444", 0, 1)
    assert legal == tuple(o.category for o in sorted(
        advice.options, key=lambda o: yahtzee.boxes("yahtzee").index(o.category)))
    for o in advice.options:
        s = yahtzee.score("yahtzee", card, "44444", o.category, 1)
        assert (s.box, s.points, s.bonus) == (o.category, o.points, o.bonus)
    assert yahtzee.score("yahtzee", card, "44444", "large-straight", 1) == yahtzee.Score(
        "large-straight", 40, 100)
    with pytest.raises(ValueError, match="fours"):
        yahtzee.score("yahtzee", card, "44444", "fours", 1)
    with pytest.raises(ValueError, match="unknown box"):
        yahtzee.score("yahtzee", None, "44444", "fourz")
    # The keeps: the keep options of the advice, in the order of the tie convention.
    k = yahtzee.keeps("13356")
    assert k[0] == () and k[-1] == (1, 3, 3, 5, 6) and len(k) == 24
    assert sorted(k, key=lambda x: (len(x), x)) == list(k)
    assert set(k) == {o.keep for o in yahtzee.advise(table, dice="13356").options}
    # A rules file, by its path.
    house = ROOT / "data" / "rules" / "examples" / "yahtzee-four-of-a-kind-40.toml"
    assert yahtzee.boxes(house) == yahtzee.boxes("yahtzee")
    assert yahtzee.score(house, None, "33334", "four-of-a-kind").points == 40
    assert yahtzee.score("yahtzee", None, "33334", "four-of-a-kind").points == 16
    assert yahtzee.boxes("yacht", upper_first=True)[0] == "ones"
    with pytest.raises(ValueError, match="or give the path of a rules file"):
        yahtzee.boxes("yahtzee-deluxe")


def test_a_policy_of_ones_own_copying_the_optimal_one_plays_the_optimal_games(yacht):
    optimal = yahtzee.simulate(yacht, games=200, seed=11)
    seen = []

    def copy(position):
        seen.append(position)
        return yahtzee.advise(yacht, *position).best

    own = yahtzee.simulate(yacht, games=200, seed=11, policy=copy)
    assert (own.scores == optimal.scores).all()
    assert own.policy == "own" and optimal.policy == "optimal"
    for key in ("mean", "std_dev", "percentiles", "at_least", "boxes", "mean_interval"):
        assert own.summary[key] == optimal.summary[key], key
    assert isinstance(seen[0], yahtzee.Position) and seen[0].card == {}
    assert hash(seen[0]) == hash(yahtzee.Position({}, seen[0].dice, 2, 0))
    # Common random numbers: a keep-nothing-and-score-greedily policy is `greedy`'s games.
    greedy = yahtzee.simulate("yacht", games=200, seed=11, policy="greedy")

    def greedy_own(p):
        if p.rolls_left:
            return p.dice
        best = max(yahtzee.legal_boxes("yacht", p.card, p.dice),
                   key=lambda b: yahtzee.score("yacht", p.card, p.dice, b).total)
        return best

    assert (yahtzee.simulate("yacht", games=200, seed=11, policy=greedy_own).scores
            == greedy.scores).all()


def test_a_policy_of_ones_own_is_checked():
    with pytest.raises(ValueError, match=r"game 0: turn 1: cannot keep 6 6 6 6 6"):
        yahtzee.simulate("yacht", games=5, policy=lambda p: (6, 6, 6, 6, 6))
    with pytest.raises(ValueError, match=r"game 0: invalid dice `7`"):
        yahtzee.simulate("yacht", games=5, policy=lambda p: (7,))
    with pytest.raises(ValueError, match=r"game 0: unknown box `fifties`"):
        yahtzee.simulate("yacht", games=5, policy=lambda p: "fifties")
    with pytest.raises(ValueError, match=r"game 0: turn 2: .*ones"):
        yahtzee.simulate("yacht", games=5, policy=lambda p: "ones")
    with pytest.raises(TypeError, match="a policy answers a keep"):
        yahtzee.simulate("yacht", games=5, policy=lambda p: 3.5)

    def fails(p):
        raise KeyError("mine")

    with pytest.raises(KeyError, match="mine"):
        yahtzee.simulate("yacht", games=5, policy=fails)


def test_results_are_value_objects(yacht):
    exact, again = yahtzee.stats(yacht), yahtzee.stats("yacht")
    assert exact == again and hash(exact) == hash(again) and exact is not again
    assert len({exact, again}) == 1
    assert repr(exact).startswith("Stats(rules='yacht', upper_first=False, mean=169.7739")
    sim, same = (yahtzee.simulate(yacht, games=500, seed=2) for _ in range(2))
    assert sim == same and hash(sim) == hash(same)
    assert sim != yahtzee.simulate(yacht, games=500, seed=3) and sim != exact
    assert "policy='optimal', games=500, seed=2" in repr(sim)
    a, b = yahtzee.advise(yacht, dice="13356"), yahtzee.advise(yacht, dice=[6, 5, 3, 3, 1])
    assert a == b and hash(a) == hash(b) and a.best == b.best and hash(a.best) == hash(b.best)
    assert a != yahtzee.advise(yacht, dice="13356", rolls_left=1)
    assert yahtzee.Score("ones", 3, 0) == yahtzee.score("yacht", None, "11134", "ones")
    # Stats and Simulation have one shape.
    for r in (exact, sim):
        assert r.rules == "yacht" and r.upper_first is False
        assert abs(r.pmf.sum() - 1) < 1e-12 and len(r.support) == len(r.pmf) == r.max + 1
        assert abs(float((r.support * r.pmf).sum()) - r.mean) < 1e-9
        assert r.sd == r.std_dev == r.summary["std_dev"] and 1.0 in r.percentiles
        assert set(r.at_least) == set(yahtzee.DEFAULT_THRESHOLDS) and r.min <= r.median
    assert sim.mean_interval[0] < sim.mean < sim.mean_interval[1] and sim.games == 500
    with pytest.raises(ValueError):
        sim.scores[0] = 1


def test_bad_thresholds_and_a_table_of_the_other_fill_order_are_value_errors(yacht):
    with pytest.raises(ValueError, match="at_least: the thresholds are whole numbers from 0"):
        yahtzee.stats(yacht, at_least=[-5])
    with pytest.raises(ValueError, match="at_least"):
        yahtzee.simulate(yacht, games=10, at_least=[2.5])
    with pytest.raises(ValueError, match="not upper_first=True"):
        yahtzee.stats(yacht, upper_first=True)
    with pytest.raises(ValueError, match="not upper_first=True"):
        yahtzee.simulate(yacht, games=10, upper_first=True)
    assert yahtzee.stats(yacht, upper_first=False) == yahtzee.stats(yacht)


def test_the_version_is_the_packages(cli):
    assert yahtzee.__version__ == importlib.metadata.version("yahtzee")
    # The binary and the package built from the same checkout: the same version and commit.
    assert cli.run("--version").stdout == (
        f"yahtzee {yahtzee.__version__} (commit {yahtzee.COMMIT})\n"
    )
