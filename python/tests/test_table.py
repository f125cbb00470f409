"""solve(): the published values of every rule set, the cached file, values() as numpy columns."""

import os
from pathlib import Path

import numpy as np
import pytest

import yahtzee

# Golden values: the published optimal expected scores (Verhoeff; Glenn), and the project's
# own for the rule sets without one, as in the README's table.
GOLDEN = [
    ("yahtzee", False, 254.5877287345, 536_448),
    ("yahtzee-free-joker", False, 254.5896094820, 536_448),
    ("yahtzee-plain", False, 245.8707745141, 357_632),
    ("yacht", False, 169.7738890526, 4_096),
    ("yahtzee", True, 213.6881086786, None),
    ("yacht", True, 137.7122414788, None),
]


@pytest.mark.parametrize("rules,upper_first,expected,states", GOLDEN)
def test_solve_gives_the_published_expected_scores(rules, upper_first, expected, states):
    table = yahtzee.solve(rules, upper_first=upper_first)
    assert abs(table.expected_score - expected) < 1e-9
    assert table.rules == rules
    assert table.upper_first == upper_first
    if states is not None:
        assert table.states == states


def test_solve_saves_the_table_in_the_cache_folder_and_loads_it_again(tmp_path):
    path = tmp_path / "yacht.table"
    first = yahtzee.solve("yacht", path=path)
    assert Path(first.path) == path and path.is_file()
    mtime = os.stat(path).st_mtime_ns
    again = yahtzee.solve("yacht", path=str(path))
    assert os.stat(path).st_mtime_ns == mtime  # loaded, not written again
    assert again.expected_score == first.expected_score
    default = yahtzee.solve("yacht")
    assert Path(default.path).parent == Path(os.environ["YAHTZEE_TABLE_DIR"])


def test_values_are_every_reachable_state_with_its_columns():
    table = yahtzee.solve("yahtzee")
    v = table.values()
    assert list(v) == ["filled", "upper", "yahtzee_50", "turns_played", "expected_remaining"]
    assert [v[k].dtype for k in v] == [np.uint32, np.uint8, np.bool_, np.uint32, np.float64]
    assert all(len(a) == table.states for a in v.values())
    empty = (v["filled"] == 0) & (v["upper"] == 0) & ~v["yahtzee_50"]
    assert empty.sum() == 1
    assert v["expected_remaining"][empty][0] == table.expected_score
    full = v["filled"] == (1 << 13) - 1
    assert full.sum() > 0 and (v["expected_remaining"][full] == 0).all()
    assert (v["turns_played"] == [bin(int(f)).count("1") for f in v["filled"]]).all()
    assert (v["upper"] <= 63).all()


def test_values_equal_the_all_states_export(cli, tmp_path):
    out = tmp_path / "states.csv"
    cli.run("export", "--rules", "yacht", "--all-states", "--out", str(out))
    lines = out.read_text().splitlines()
    table = yahtzee.solve("yacht")
    v = table.values()
    # The export's last column is the chance of reaching each state: visit_probabilities().
    visits = yahtzee.visit_probabilities(table)
    assert lines[0] == ",".join([*v, "visit_probability"])
    assert len(lines) - 1 == len(v["filled"]) == len(visits)
    for i, line in enumerate(lines[1:]):
        filled, upper, flag, turns, value, visit = line.split(",")
        assert int(filled) == v["filled"][i] and int(upper) == v["upper"][i]
        assert (flag == "true") == v["yahtzee_50"][i] and int(turns) == v["turns_played"][i]
        assert abs(float(value) - v["expected_remaining"][i]) <= 5e-7
        assert float(visit) == visits[i]


def test_unknown_rules_are_a_value_error_naming_the_rule_sets():
    with pytest.raises(ValueError) as e:
        yahtzee.solve("yahtzee-deluxe")
    assert str(e.value) == (
        "unknown rules `yahtzee-deluxe`: the rule sets are yahtzee, yahtzee-free-joker, "
        "yahtzee-plain, yacht, yatzy, yacht-dice, maxi-yatzy, or give the path of a rules file "
        "(with a `/` or ending in .toml)"
    )
    assert yahtzee.RULE_SETS == (
        "yahtzee",
        "yahtzee-free-joker",
        "yahtzee-plain",
        "yacht",
        "yatzy",
        "yacht-dice",
        "maxi-yatzy",
    )


def test_a_file_that_is_not_a_table_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("my notes")
    with pytest.raises(ValueError, match="is not a yahtzee table"):
        yahtzee.solve("yacht", path=path)
    assert path.read_text() == "my notes"
