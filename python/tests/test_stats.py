"""stats() and simulate(): the exact distribution sums to 1 and is the CLI's; simulations are
the CLI's games, seeded."""

import json

import numpy as np
import pytest

import yahtzee


# Yahtzee's own distribution takes some 20 s of CPU: its upper-first variant has the same
# bonuses and Jokers on 15,018 states.
@pytest.mark.parametrize("rules,upper_first", [("yacht", False), ("yahtzee", True), ("yatzy", True)])
def test_the_exact_distribution_sums_to_one_and_has_the_solver_mean(rules, upper_first):
    s = yahtzee.stats(rules, upper_first=upper_first)
    table = yahtzee.solve(rules, upper_first)
    assert s.pmf.dtype == np.float64
    assert abs(s.pmf.sum() - 1) < 1e-12
    assert (s.pmf >= 0).all()
    mean = float((s.support * s.pmf).sum())
    assert abs(mean - table.expected_score) < 1e-9
    assert abs(s.mean - table.expected_score) < 1e-9
    assert s.pmf[s.summary["min"]] > 0 and len(s.pmf) == s.summary["max"] + 1


def test_the_distribution_is_the_cli_pmf_and_summary(cli, tmp_path):
    pmf = tmp_path / "yacht.csv"
    want = cli.json("stats", "--rules", "yacht", "--json", "--pmf", str(pmf), "--at-least", "150,200")
    s = yahtzee.stats("yacht", at_least=[150, 200])
    for key in ("seconds", "threads"):
        assert key in s.timing
        del want[key]
    assert s.summary == want
    rows = [line.split(",") for line in pmf.read_text().splitlines()[1:]]
    for score, p in rows:
        assert float(p) == s.pmf[int(score)]
    # Yacht's published figures (docs/stats.md): standard deviation, median, P(score >= 200).
    assert round(s.std_dev, 4) == 35.2965 and s.summary["median"] == 169
    assert round(s.pmf[200:].sum(), 4) == 0.1847


def test_stats_takes_a_table_too():
    table = yahtzee.solve("yacht", upper_first=True)
    s = yahtzee.stats(table)
    assert abs(s.mean - 137.7122414788) < 1e-9
    assert s.summary["upper_first"] is True


@pytest.mark.parametrize("policy", ["optimal", "greedy", "most-common"])
def test_simulated_games_are_the_cli_games(cli, policy):
    sim = yahtzee.simulate("yacht", games=3000, seed=7, policy=policy)
    assert sim.scores.dtype == np.uint32 and len(sim.scores) == 3000
    want = cli.json("simulate", "--rules", "yacht", "--games", "3000", "--seed", "7",
                    "--policy", policy, "--json")
    for key in ("seconds", "games_per_second", "threads"):
        del want[key]
    assert sim.summary == want
    assert abs(sim.scores.mean() - want["mean"]) < 1e-9
    again = yahtzee.simulate("yacht", games=3000, seed=7, policy=policy)
    assert (again.scores == sim.scores).all()
    other = yahtzee.simulate("yacht", games=3000, seed=8, policy=policy)
    assert not (other.scores == sim.scores).all()


def test_target_games_are_the_cli_games(cli):
    sim = yahtzee.simulate("yacht", games=2000, seed=3, policy="target:180")
    want = cli.json("simulate", "--rules", "yacht", "--games", "2000", "--seed", "3",
                    "--policy", "target:180", "--json")
    assert sim.summary["reached"] == want["reached"] and sim.summary["target"] == 180
    assert sim.summary["mean_interval"] == want["mean_interval"]
    assert abs((sim.scores >= 180).mean() - want["reached"]["share"]) < 1e-12


def test_optimal_games_agree_with_the_exact_distribution():
    sim = yahtzee.simulate("yacht", games=20_000, seed=1)
    exact = yahtzee.stats("yacht")
    se = sim.scores.std() / np.sqrt(len(sim.scores))
    assert abs(sim.scores.mean() - exact.mean) < 4 * se


@pytest.mark.parametrize(
    "kwargs,cli_args",
    [
        (dict(games=0), ["--games", "0"]),
        (dict(games=(1 << 40) + 1), ["--games", str((1 << 40) + 1)]),
    ],
)
def test_bad_simulations_raise_value_error_with_the_cli_message(cli, kwargs, cli_args):
    message = cli.error("simulate", "--rules", "yacht", *cli_args)
    with pytest.raises(ValueError) as e:
        yahtzee.simulate("yacht", **kwargs)
    # The command line names its flag first: `--games 0: ...`.
    assert message == f"{cli_args[0]} {cli_args[1]}: {e.value}"


def test_unknown_policies_and_negative_games_are_value_errors():
    with pytest.raises(ValueError, match="unknown policy `best`: the policies are optimal \\(or ev\\), greedy, most-common, target:T"):
        yahtzee.simulate("yacht", games=10, policy="best")
    with pytest.raises(ValueError, match="plays against other players"):
        yahtzee.simulate("yacht", games=10, policy="win")
    with pytest.raises(ValueError, match="the number of games must be from 1 to 1099511627776, not -3"):
        yahtzee.simulate("yacht", games=-3)
    with pytest.raises(ValueError, match="unknown rules"):
        yahtzee.simulate("yahtzee-deluxe", games=10, policy="greedy")


def test_visit_probabilities_count_games_and_give_the_exact_shares():
    table = yahtzee.solve("yahtzee")
    visits = yahtzee.visit_probabilities(table)
    values = table.values()
    assert visits.shape == values["filled"].shape and not visits.flags.writeable
    turns = values["turns_played"]
    for t in range(0, int(turns.max()) + 1):
        assert abs(visits[turns == t].sum() - 1) < 1e-9, t
    # Full cards: the chance of ending there. The upper total is kept up to the bonus
    # threshold (63), so the full cards at 63 are the games with the bonus.
    s = yahtzee.stats(table)
    full = turns == turns.max()
    bonus = visits[full & (values["upper"] == 63)].sum()
    fifty = visits[full & values["yahtzee_50"]].sum()
    assert abs(bonus - s.summary["upper_bonus"]["probability"]) < 1e-9
    assert abs(fifty - s.summary["fifty_probability"]) < 1e-9


def test_events_and_covariances_are_the_cli_figures(cli):
    card = {
        "ones": 3, "twos": 6, "threes": 9, "fives": 15, "sixes": 18, "three-of-a-kind": 20,
        "four-of-a-kind": 0, "full-house": 25, "large-straight": 40, "chance": 22,
    }
    text = ",".join(f"{k}={v}" for k, v in card.items())
    want = cli.json("stats", "--rules", "yahtzee", "--events", "--json", "--card", text)
    s = yahtzee.stats("yahtzee", card=card, events=True)
    assert s.events == {e["name"]: e["probability"] for e in want["events"]}
    assert set(s.events) == {
        "small-straight-rolled", "large-straight-rolled", "yahtzee-rolled", "yahtzee-scored",
        "upper-bonus",
    }
    assert s.bonus_by_five_of_a_kind == want["bonus_by_five_of_a_kind"]
    c = s.covariance
    rows = want["covariance"]["rows"]
    matrix = np.array(c) if not isinstance(c, dict) else c["matrix"]
    assert np.allclose(matrix, np.array(want["covariance"]["matrix"]), rtol=0, atol=1e-12)
    if not isinstance(c, dict):
        assert list(c.index) == rows and list(c.columns) == rows
    # Every entry added up: the variance of the final score.
    assert abs(matrix.sum() - s.sd ** 2) < 1e-9
    # Without events, none; under a target, refused.
    assert yahtzee.stats("yahtzee", card=card).events == {}
    with pytest.raises(ValueError, match="expected-score play"):
        yahtzee.stats("yahtzee", card=card, target=200, events=True)


def test_joint_distributions_are_the_cli_figures(cli):
    card = {
        "ones": 3, "twos": 6, "threes": 9, "fives": 15, "sixes": 18, "three-of-a-kind": 20,
        "four-of-a-kind": 0, "full-house": 25, "large-straight": 40, "chance": 22,
    }
    text = ",".join(f"{k}={v}" for k, v in card.items())
    want = cli.json(
        "stats", "--rules", "yahtzee", "--joint", "yahtzee,fours", "--json", "--card", text
    )["joint"]
    s = yahtzee.stats("yahtzee", card=card, joint=("yahtzee", "fours"))
    assert s.joint == want
    first, second = s.joint["boxes"]
    assert (first["box"], second["box"]) == ("yahtzee", "fours")
    # Each box's points given their chances add up to 1, as do the pair's.
    for b in s.joint["boxes"]:
        assert abs(sum(v["probability"] for v in b["values"]) - 1) < 1e-12
    assert abs(sum(m for _, _, m in s.joint["pair"]["table"]) - 1) < 1e-12
    # The box's marginal is the distribution's own: P(50 in the Yahtzee box).
    fifty = {v["points"]: v["probability"] for v in first["values"]}[50]
    assert abs(fifty - s.summary["fifty_probability"]) < 1e-12
    # The given means, weighted by their chances, are the mean.
    mean = sum(v["probability"] * v["mean"] for v in first["values"])
    assert abs(mean - s.mean) < 1e-9
    frame = s.joint_frame()
    assert list(frame.columns) == [
        "first", "first_points", "second", "second_points", "probability"
    ]
    rows = len(first["score_table"]) + len(second["score_table"]) + len(s.joint["pair"]["table"])
    assert len(frame) == rows
    by = frame.groupby(["first", "second"])["probability"].sum()
    assert all(abs(x - 1) < 1e-12 for x in by)
    # One box by name; bad boxes and other policies refused.
    assert "pair" not in yahtzee.stats("yahtzee", card=card, joint="fours").joint
    assert yahtzee.stats("yahtzee", card=card).joint is None
    with pytest.raises(ValueError, match="unknown box"):
        yahtzee.stats("yahtzee", card=card, joint="sevens")
    with pytest.raises(ValueError, match="twice"):
        yahtzee.stats("yahtzee", card=card, joint=("fours", "fours"))
    with pytest.raises(ValueError, match="expected-score play"):
        yahtzee.stats("yahtzee", card=card, target=200, joint="fours")
