"""Exact optimal strategy for Yahtzee, Yacht and Scandinavian Yatzy, from Python.

The package is a thin layer over the Rust library of the `yahtzee` command line: the same
tables (the same cached files, in ``$YAHTZEE_TABLE_DIR`` or the user's cache folder), the same
advice (through the batch protocol of ``yahtzee advise --batch``, so an answer here equals the
command's ``--json`` answer), the same exact distribution and the same seeded simulations.

>>> import yahtzee
>>> table = yahtzee.solve("yahtzee")
>>> round(table.expected_score, 4)
254.5877
>>> yahtzee.advise(table, dice=[1, 3, 3, 5, 6]).options[0].keep
(3, 3)

Rules are named as on the command line: ``yahtzee`` (official, forced Joker),
``yahtzee-free-joker``, ``yahtzee-plain``, ``yacht``, ``yatzy``, ``yacht-dice`` (the built-in
rule sets; rules files are read by the command line only); ``upper_first=True`` adds the
modifier "no lower box while an upper box is open".

Bad input raises ``ValueError`` with the message the command line prints. The functions that
compute (``solve``, ``stats``, ``simulate``, ``advise`` and ``advise_batch``) release the GIL
while they work.
"""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._native import Table

__all__ = [
    "Table",
    "AdviceOption",
    "Advice",
    "Stats",
    "Simulation",
    "RULE_SETS",
    "POLICIES",
    "DEFAULT_THRESHOLDS",
    "solve",
    "advise",
    "advise_batch",
    "stats",
    "simulate",
]

#: The rule sets, by the names the command line gives them.
RULE_SETS: Tuple[str, ...] = tuple(_native.rule_sets())

#: The policies of :func:`simulate` (and ``target:T`` for a target score ``T``).
POLICIES: Tuple[str, ...] = ("optimal", "greedy", "most-common")

#: The thresholds t of P(score >= t) that ``stats`` and ``simulate`` report by default.
DEFAULT_THRESHOLDS: Tuple[int, ...] = (200, 250, 300, 350, 400, 500)

Card = Union[None, str, Mapping[str, int]]
DiceLike = Union[str, Sequence[int]]


def solve(
    rules: str = "yahtzee",
    upper_first: bool = False,
    path: Union[None, str, PathLike] = None,
    target_path: Union[None, str, PathLike] = None,
    distribution_path: Union[None, str, PathLike] = None,
) -> Table:
    """The strategy table of ``rules``: loaded from its file when there is one, else solved
    (about a second for the Yahtzee rule sets) and saved there for next time.

    ``path`` is the table file (default: the cache folder, as for the command line);
    ``target_path`` the target table's, used by ``advise(..., target=T)`` and built on first
    use (about a minute for the Yahtzee rule sets); ``distribution_path`` the distribution
    table's (the remaining score of every state under expected-score play), used by
    ``advise(..., opponents=[...])`` and built on first use too. The table has ``rules``, ``upper_first``,
    ``expected_score`` (of a new game), ``states`` (reachable turn-start states), ``path``,
    and ``values()``: a dict of numpy arrays, one entry per reachable state in layout order,
    ``filled`` (uint16 mask of filled boxes, bit i for box i in card order), ``upper``
    (uint8, upper total capped at 63), ``yahtzee_50`` (bool, the Yahtzee box holds 50),
    ``turns_played`` (uint32) and ``expected_remaining`` (float64, the expected points still
    to come under optimal play) -- the columns of ``yahtzee export --all-states``, unrounded.
    ``pandas.DataFrame(table.values())`` makes a data frame of it.
    """
    return _native.solve(
        rules,
        bool(upper_first),
        None if path is None else str(path),
        None if target_path is None else str(target_path),
        None if distribution_path is None else str(distribution_path),
    )


@dataclass(frozen=True)
class AdviceOption:
    """One option of a position, as ``advise --json`` writes it.

    ``kind`` is ``"keep"`` (keep the dice ``keep`` and re-roll the others; a keep of all five
    dice has ``stop_and_score``, the box the policy then fills) or ``"score"`` (fill
    ``category`` for ``points``, with ``bonus`` earned by it). ``expected_final`` is the
    expected final score after it and ``loss`` how much less than the best option it is worth.
    With a target, ``p_reach`` is its chance of reaching the target, ``loss`` the loss in
    chance, ``reachable`` whether any dice still make the target, and ``expected_final`` and
    ``expected_loss`` are under expected-score play. Against opponents, ``p_win`` is its chance
    of winning, ``loss`` the loss in that chance, and ``expected_final`` and
    ``expected_loss`` are under expected-score play.
    """

    kind: str
    expected_final: float
    loss: float
    keep: Optional[Tuple[int, ...]] = None
    stop_and_score: Optional[str] = None
    category: Optional[str] = None
    points: Optional[int] = None
    bonus: Optional[int] = None
    p_reach: Optional[float] = None
    reachable: Optional[bool] = None
    expected_loss: Optional[float] = None
    p_win: Optional[float] = None

    @classmethod
    def _of(cls, o: Mapping[str, Any]) -> "AdviceOption":
        o = dict(o)
        if "keep" in o:
            o["keep"] = tuple(o["keep"])
        return cls(**o)

    def __str__(self) -> str:
        if self.kind == "score":
            extra = f" (+{self.bonus} bonus)" if self.bonus else ""
            return f"score {self.category} for {self.points}{extra}"
        if self.stop_and_score is not None:
            return f"stop and score {self.stop_and_score}"
        if not self.keep:
            return "reroll all"
        return "keep " + " ".join(map(str, self.keep))


@dataclass(frozen=True)
class Advice:
    """The ranked options of a position, best first (``options``), as ``advise --json``
    answers: the rules, the points ``banked`` on the card (bonuses included), the ``dice``
    (ascending) and the ``rolls_left``. Advice for a target also has ``target``, ``needed``
    (points still needed), ``p_reach`` (the best chance of reaching it), ``reachable`` and
    ``tail`` (chances below it are left out of the table and shown as 0). Advice against
    opponents has ``p_win`` (the best chance of winning), ``opponents`` (each one's
    ``finished`` score or None, and the ``mean``, ``min``, ``max`` and ``percentiles`` of their
    final score) and ``model`` (what the win probability assumes). ``json`` is the answer as
    the command line prints it.
    """

    rules: str
    upper_first: bool
    banked: int
    dice: Tuple[int, ...]
    rolls_left: int
    options: List[AdviceOption]
    target: Optional[int] = None
    needed: Optional[int] = None
    p_reach: Optional[float] = None
    reachable: Optional[bool] = None
    tail: Optional[float] = None
    p_win: Optional[float] = None
    opponents: Optional[List[Dict[str, Any]]] = None
    model: Optional[str] = None
    json: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def _of(cls, answer: Mapping[str, Any]) -> "Advice":
        a = dict(answer)
        a["dice"] = tuple(a["dice"])
        a["options"] = [AdviceOption._of(o) for o in a["options"]]
        return cls(**a, json=dict(answer))

    @property
    def best(self) -> AdviceOption:
        """The best option."""
        return self.options[0]

    def to_dataframe(self) -> Any:
        """The options as a pandas DataFrame, one row per option, best first (pandas must be
        installed); the column ``option`` is the option in words."""
        import pandas as pd

        rows = []
        for o in self.options:
            row = {"option": str(o)}
            row.update({k: v for k, v in o.__dict__.items() if v is not None})
            rows.append(row)
        return pd.DataFrame(rows)


def _card(rules: str, upper_first: bool, card: Card) -> Dict[str, int]:
    if card is None:
        return {}
    if isinstance(card, str):
        return dict(_native.card_entries(rules, upper_first, card))
    return {str(k): _integer(v) for k, v in dict(card).items()}


def _integer(v: Any) -> Any:
    # Integers of any kind (numpy's too) as Python ints; anything else as it is, for the
    # batch protocol to refuse with its message.
    if isinstance(v, bool):
        return v
    try:
        return operator.index(v)
    except TypeError:
        return v


def _dice(dice: DiceLike) -> List[Any]:
    if isinstance(dice, str):
        return list(_native.parse_dice(dice))
    return [_integer(f) for f in dice]


def _opponents(table: Table, opponents: Any) -> Any:
    # An int is a finished opponent's score; a dict with "card" (a dict or the command line's
    # text) and "yahtzee_bonus" one still playing; anything else goes as it is, for the batch
    # protocol to refuse with its message.
    if isinstance(opponents, (str, bytes, Mapping)) or not isinstance(opponents, Iterable):
        return opponents
    out: List[Any] = []
    for o in opponents:
        if isinstance(o, Mapping):
            o = dict(o)
            if "card" in o and (o["card"] is None or isinstance(o["card"], (str, Mapping))):
                o["card"] = _card(table.rules, table.upper_first, o["card"])
            if "yahtzee_bonus" in o:
                o["yahtzee_bonus"] = _integer(o["yahtzee_bonus"])
            if "final" in o:
                o["final"] = _integer(o["final"])
            out.append(o)
        elif not isinstance(o, bool) and isinstance(_integer(o), int):
            out.append({"final": _integer(o)})
        else:
            out.append(o)
    return out


def _query(
    table: Table,
    card: Card,
    dice: DiceLike,
    rolls_left: int,
    yahtzee_bonus: int,
    target: Optional[int],
    opponents: Optional[Sequence[Any]],
) -> str:
    query: Dict[str, Any] = {}
    entries = _card(table.rules, table.upper_first, card)
    if entries:
        query["card"] = entries
    query["yahtzee_bonus"] = _integer(yahtzee_bonus)
    query["dice"] = _dice(dice)
    query["rolls_left"] = _integer(rolls_left)
    if target is not None:
        query["target"] = _integer(target)
    if opponents is not None:
        query["opponents"] = _opponents(table, opponents)
    try:
        return json.dumps(query)
    except TypeError as e:
        raise ValueError(f"a query holds numbers, text and lists only: {e}") from None


def advise(
    table: Table,
    card: Card = None,
    dice: DiceLike = (),
    rolls_left: int = 2,
    yahtzee_bonus: int = 0,
    target: Optional[int] = None,
    opponents: Optional[Sequence[Any]] = None,
) -> Advice:
    """Every legal option of a position, ranked, as ``yahtzee advise --json`` answers.

    ``card`` is the filled boxes with their points, a dict (``{"ones": 3, "full-house": 25}``)
    or the command line's text (``"ones=3,full-house=25"``); ``None`` for a new game.
    ``dice`` is five faces (``[1, 3, 3, 5, 6]`` or ``"13356"``), ``rolls_left`` 2 just after
    the first roll, 1, or 0 after the last, ``yahtzee_bonus`` the 100-point bonuses already
    earned. With ``target=T`` the options are ranked by their best chance of a final score of
    at least ``T`` (the target table is read, or built on first use). With ``opponents`` the
    options are ranked by the chance of winning against them, as ``advise --opponent``
    ranks them: each opponent is ``{"card": CARD, "yahtzee_bonus": N}`` (``CARD`` as
    ``card``) while still playing, or their final score (an int, or ``{"final": N}``) once
    finished; the distribution table is read, or built on first use.

    Raises ``ValueError`` with the command line's message for an impossible position.
    """
    line = _query(table, card, dice, rolls_left, yahtzee_bonus, target, opponents)
    return Advice._of(json.loads(_native.advise_line(table, line)))


def advise_batch(table: Table, queries: Iterable[Mapping[str, Any]]) -> List[Advice]:
    """Answers many positions at once, in parallel, without the GIL: each query is a dict of
    the keyword arguments of :func:`advise` (``card``, ``dice``, ``rolls_left``,
    ``yahtzee_bonus``, ``target``, ``opponents``). Returns the advice of each, in order; if any query is
    bad, raises ``ValueError`` naming the first bad one (counting from 0) and why.
    """
    allowed = {"card", "dice", "rolls_left", "yahtzee_bonus", "target", "opponents"}
    lines = []
    for i, q in enumerate(queries):
        unknown = set(q) - allowed
        if unknown:
            raise ValueError(
                f"query {i}: unknown key `{sorted(unknown)[0]}`: the keys are card, dice, "
                "rolls_left, yahtzee_bonus, target and opponents"
            )
        lines.append(
            _query(
                table,
                q.get("card"),
                q.get("dice", ()),
                q.get("rolls_left", 2),
                q.get("yahtzee_bonus", 0),
                q.get("target"),
                q.get("opponents"),
            )
        )
    answers = [json.loads(a) for a in _native.advise_lines(table, lines)]
    for i, a in enumerate(answers):
        if "error" in a:
            raise ValueError(f"query {i}: {a['error']}")
    return [Advice._of(a) for a in answers]


@dataclass(frozen=True)
class Stats:
    """The exact distribution of the final score under optimal play.

    ``pmf[s]`` is the probability of a final score of exactly ``s`` (a float64 array from 0 to
    the highest score with nonzero probability; it sums to 1), and ``summary`` the report of
    ``yahtzee stats --json``: ``mean``, ``std_dev``, ``median``, ``percentiles``, ``min``,
    ``max``, ``at_least`` (P(score >= t)), per-box ``boxes``, ``upper_bonus``,
    ``fifty_probability``, ``yahtzee_bonuses``, and the rules, method and tie convention.
    """

    pmf: np.ndarray
    summary: Dict[str, Any]

    @property
    def scores(self) -> np.ndarray:
        """The final scores that ``pmf`` is indexed by: ``0 .. len(pmf) - 1``."""
        return np.arange(len(self.pmf))

    @property
    def mean(self) -> float:
        """The mean final score."""
        return float(self.summary["mean"])

    @property
    def std_dev(self) -> float:
        """The standard deviation of the final score."""
        return float(self.summary["std_dev"])


def _table_of(rules: Union[str, Table], upper_first: bool) -> Table:
    if isinstance(rules, Table):
        return rules
    return solve(rules, upper_first)


def stats(
    rules: Union[str, Table] = "yahtzee",
    upper_first: bool = False,
    at_least: Sequence[int] = DEFAULT_THRESHOLDS,
) -> Stats:
    """The exact distribution of the final score under optimal play (nothing sampled), as
    ``yahtzee stats``: give the rules (their table is loaded or built) or a table.
    ``at_least`` are the thresholds t of the summary's P(score >= t).
    """
    table = _table_of(rules, upper_first)
    pmf, report = _native.stats(table, [_integer(t) for t in at_least])
    return Stats(pmf=pmf, summary=json.loads(report))


@dataclass(frozen=True)
class Simulation:
    """Games played with random dice: ``scores[g]`` is the final score of game ``g`` (uint32,
    in the order the games are dealt), and ``summary`` the figures of the games (as
    ``yahtzee simulate --json``: ``mean_interval``, the 95% interval of the mean, and under
    ``summary`` the mean, standard deviation, percentiles, P(score >= t) and per-box figures).
    """

    scores: np.ndarray
    summary: Dict[str, Any]


def simulate(
    rules: Union[str, Table] = "yahtzee",
    games: int = 100_000,
    seed: int = 1,
    policy: str = "optimal",
    upper_first: bool = False,
    at_least: Sequence[int] = DEFAULT_THRESHOLDS,
) -> Simulation:
    """Plays ``games`` games with random dice under ``policy`` (``optimal``, ``greedy``,
    ``most-common`` or ``target:T``, as ``yahtzee simulate --policy``; ``target:T`` plays for
    the best chance of a final score of at least ``T``, with the target table, and its summary
    has ``reached``, the share of games reaching ``T`` with its 95% interval), reproducibly: a seed gives the same
    games as ``yahtzee simulate --seed`` at any thread count. Give the rules or a table (the
    optimal policy plays with the table; the baselines need none). Memory: 4 bytes a game.
    """
    if isinstance(rules, Table):
        table: Optional[Table] = rules
        name, upper = rules.rules, rules.upper_first
    else:
        name, upper = rules, bool(upper_first)
        needs_table = policy in ("optimal", "ev") or str(policy).startswith("target")
        table = solve(name, upper) if needs_table and name in RULE_SETS else None
    scores, report = _native.simulate(
        (name, upper),
        _integer(games),
        _integer(seed),
        policy,
        [_integer(t) for t in at_least],
        table,
    )
    return Simulation(scores=scores, summary=json.loads(report))
