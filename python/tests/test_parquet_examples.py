"""The DuckDB, pandas and polars examples of data/README.md, run as they are written there on
the Parquet file they name, agree with each other and with the CSV of the same export."""

import csv
import math
import re

import pytest

from conftest import ROOT


def examples():
    """The ```python blocks of the section "## Parquet" of data/README.md, in order."""
    text = (ROOT / "data" / "README.md").read_text()
    section = text.split("\n## Parquet\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def rows(top):
    """The result of an example as (rolls_left, decisions, mean_gap, max_gap) tuples."""
    name = type(top).__module__.split(".")[0]
    if name == "duckdb":
        return [tuple(r) for r in top.fetchall()]
    if name == "pandas":
        return list(top.itertuples(index=False, name=None))
    if name == "polars":
        return top.rows()
    raise AssertionError(f"an example's `top` is a {type(top)}")


@pytest.fixture(scope="module")
def policy(cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("parquet")
    for fmt in ("parquet", "csv"):
        cli.run("export", "--rules", "yacht", "--all-states", "--policy", "--format", fmt,
                "--out", str(folder / f"policy.{fmt}"))
    return folder


def expected(folder):
    """The same figures from the CSV, by the standard library. The rows of the empty card
    (`filled` 0) come first: the policy lists states by `filled`."""
    by = {}
    with open(folder / "policy.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["filled"] != "0":
                break
            gaps = by.setdefault(int(r["rolls_left"]), [0, []])
            gaps[0] += 1
            if r["gap"]:
                gaps[1].append(float(r["gap"]))
    return [(k, n, sum(g) / len(g), max(g)) for k, (n, g) in sorted(by.items())]


def test_the_readme_has_the_three_examples():
    blocks = examples()
    assert len(blocks) == 3
    assert [b.split()[1] for b in blocks] == ["duckdb", "pandas", "polars"]


@pytest.mark.parametrize("index", [0, 1, 2])
def test_each_example_runs_as_written_and_gives_the_csv_figures(policy, monkeypatch, capsys, index):
    monkeypatch.chdir(policy)
    namespace = {}
    exec(compile(examples()[index], f"data/README.md example {index + 1}", "exec"), namespace)
    printed = capsys.readouterr().out
    got = rows(namespace["top"])
    want = expected(policy)
    assert [g[:2] for g in got] == [w[:2] for w in want] == [(0, 252), (1, 252), (2, 252)]
    for g, w in zip(got, want):
        assert math.isclose(g[2], w[2], rel_tol=1e-12) and g[3] == w[3]
    assert "252" in printed


def test_the_columns_have_the_documented_types(policy):
    """The types of the table in data/README.md: what pandas, polars and pyarrow take from the
    file's Arrow schema (its `ARROW:schema` metadata: categoricals for the text, unsigned
    integers of their width), and what DuckDB takes from the Parquet types."""
    import duckdb
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = policy / "policy.parquet"
    assert {c: str(t) for c, t in pd.read_parquet(path).dtypes.items()} == {
        "filled": "uint32", "upper": "uint8", "yahtzee_50": "bool", "dice": "category",
        "rolls_left": "uint8", "best": "category", "expected": "float64",
        "runner_up": "category", "gap": "float64", "visit_probability": "float64",
        "faced_probability": "float64",
    }
    assert dict(pl.scan_parquet(path).collect_schema()) == {
        "filled": pl.UInt32, "upper": pl.UInt8, "yahtzee_50": pl.Boolean,
        "dice": pl.Categorical, "rolls_left": pl.UInt8, "best": pl.Categorical,
        "expected": pl.Float64, "runner_up": pl.Categorical, "gap": pl.Float64,
        "visit_probability": pl.Float64, "faced_probability": pl.Float64,
    }
    dictionary = pa.dictionary(pa.int32(), pa.string())
    assert pq.read_schema(path) == pa.schema(
        [("filled", pa.uint32()), ("upper", pa.uint8()), ("yahtzee_50", pa.bool_()),
         ("dice", dictionary), ("rolls_left", pa.uint8()), ("best", dictionary),
         ("expected", pa.float64()), ("runner_up", dictionary), ("gap", pa.float64()),
         ("visit_probability", pa.float64()), ("faced_probability", pa.float64())]
    )
    described = duckdb.sql(f"DESCRIBE SELECT * FROM '{path}'").fetchall()
    assert {r[0]: r[1] for r in described} == {
        "filled": "UINTEGER", "upper": "UTINYINT", "yahtzee_50": "BOOLEAN", "dice": "VARCHAR",
        "rolls_left": "UTINYINT", "best": "VARCHAR", "expected": "DOUBLE",
        "runner_up": "VARCHAR", "gap": "DOUBLE", "visit_probability": "DOUBLE",
        "faced_probability": "DOUBLE",
    }
