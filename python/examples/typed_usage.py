"""A user's script, typed: the package's tests run ``mypy --strict`` on it, so that the stub
of the compiled module and the package's hints stay complete (every name used here is
checked against them)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import yahtzee

table: yahtzee.Table = yahtzee.solve("yacht")
advice: yahtzee.Advice = yahtzee.advise(table, {"ones": 3}, "22346", 1)
best: yahtzee.AdviceOption = advice.best
value: float = best.expected_final

stats: yahtzee.Stats = yahtzee.stats(table, {"ones": 3}, "22346", 1, target=150)
mean: float = stats.mean
new_game: yahtzee.Stats = yahtzee.stats(table)
visits: np.ndarray = yahtzee.visit_probabilities(table)

values: np.ndarray = yahtzee.option_values(table, [None], [[1, 3, 3, 5, 6]], rolls_left=2)
labels: tuple[str, ...] = yahtzee.option_labels(table)

legal: tuple[str, ...] = yahtzee.legal_boxes("yacht", {"ones": 3}, "22346")
score: yahtzee.Score = yahtzee.score("yacht", None, "11134", "ones")
total: int = score.total

simulation: yahtzee.Simulation = yahtzee.simulate(table, games=100, seed=1)

# A game of saved rolls (a rules file with `saved_rolls = true`): the same calls, with the rolls
# saved before the turn.
example = Path(__file__).resolve().parents[2] / "data" / "rules" / "examples"
saved_game: yahtzee.Table = yahtzee.solve(example / "yatzy-saved-rolls.toml")
keeps_rolls: bool = saved_game.saved_rolls
saved_advice: yahtzee.Advice = yahtzee.advise(saved_game, {"ones": 3}, "13356", saved=2)
saves: int | None = saved_advice.best.saves
to_come: float = yahtzee.value(saved_game, {"ones": 3}, saved=2)
rating_needs_records = yahtzee.rate
provenance: tuple[str, str, int] = (yahtzee.__version__, yahtzee.COMMIT, yahtzee.DICE_GENERATOR)
print(value, mean, new_game.sd, visits.sum(), values.shape, labels[0], legal, total,
      simulation.mean, provenance, keeps_rolls, saves, to_come)
