"""`yahtzee.rate`: a player's rating across records, the figures of `review --rating --json`."""

from pathlib import Path

import pytest

import yahtzee


@pytest.fixture(scope="module")
def yacht():
    return yahtzee.solve("yacht")


def play(cli, folder: Path, seed: int) -> Path:
    """A record of Yacht by the CLI: ann stops at once and fills the boxes in order, the bot
    plays optimally."""
    moves = "".join(f"stop\nscore {b}\n" for b in yahtzee.boxes("yacht"))
    path = folder / f"game-{seed}.jsonl"
    cli.run(
        "play", "--rules", "yacht", "--players", "ann,bot", "--seed", str(seed),
        "--coach-threshold", "off", "--record", str(path), input=moves,
    )
    return path


def test_rate_gives_the_figures_of_review_rating_json(cli, yacht, tmp_path):
    files = [play(cli, tmp_path, seed) for seed in (1, 2, 3)]
    want = cli.json("review", "--rating", "--json", *map(str, files))
    got = yahtzee.rate(yacht, tmp_path)
    assert got.records == want["records"] == 3
    assert got.optimal_score == want["optimal_score"]
    assert [p.player for p in got.players] == ["ann", "bot"]
    for p, w in zip(got.players, want["players"]):
        assert p == yahtzee.PlayerRating._of(w)
        assert p.loss_per_game.mean == w["loss_per_game"]["mean"]
        assert p.loss_per_decision.low == w["loss_per_decision"]["low"]
        assert [h.habit for h in p.habits] == [h["habit"] for h in w["habits"]]
    ann, bot = got.players
    assert ann.rating == "beginner" and ann.loss_per_game.mean > 64
    assert bot.rating == "master" and bot.loss_per_game.mean == 0
    # The same from the paths, from the texts, and from one text holding the three games.
    texts = [f.read_text() for f in files]
    assert yahtzee.rate(yacht, files) == got
    assert yahtzee.rate(yacht, texts) == got
    assert yahtzee.rate(yacht, "".join(texts)) == got
    assert repr(got).startswith("Rating(rules='yacht'")


def test_rate_is_stamped_like_review_rating_json(cli, yacht, tmp_path):
    # The provenance of every JSON result: the program's version and the checksum of the
    # table read (what `yahtzee verify` prints of it), as `review --rating --json` and
    # `yahtzee.stats` state them.
    record = play(cli, tmp_path, 4)
    want = cli.json("review", "--rating", "--json", str(record))
    got = yahtzee.rate(yacht, record)
    assert got.version == want["version"] == yahtzee.__version__
    assert got.table_checksum == want["table_checksum"]
    assert got.table_checksum == yahtzee.stats(yacht).summary["table_checksum"]
    assert len(got.table_checksum) == 8 and int(got.table_checksum, 16) >= 0
    # Where the rating came from is not part of it: it neither compares nor prints.
    assert got == yahtzee.Rating(**{**got.__dict__, "version": None, "table_checksum": None})
    assert "version" not in repr(got) and "checksum" not in repr(got)


def test_rate_refuses_bad_records(yacht, tmp_path):
    with pytest.raises(ValueError, match="no game record"):
        yahtzee.rate(yacht, [])
    with pytest.raises(ValueError, match="holds no game record"):
        yahtzee.rate(yacht, tmp_path)
    with pytest.raises(ValueError, match="record 1 \\(from line 1\\)"):
        yahtzee.rate(yacht, '{"type": "game"}\n')
