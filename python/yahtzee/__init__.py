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
``yahtzee-free-joker``, ``yahtzee-plain``, ``yacht``, ``yatzy``, ``yacht-dice``,
``maxi-yatzy`` (the built-in rule sets), or the path of a rules file (with a ``/`` or ending in ``.toml``, as ``--rules
PATH``); ``upper_first=True`` adds the modifier "no lower box while an upper box is open".

A game of saved rolls (a rules file with ``saved_rolls = true``, such as
``data/rules/examples/yatzy-saved-rolls.toml``: the re-rolls a turn leaves unused are kept for
later turns) is solved and advised the same way: ``advise(..., saved=N)`` takes the rolls
saved before the turn, :func:`value` the expected remaining score of a card with rolls saved,
and :func:`simulate` plays its optimal games; what is not solved under saved rolls (targets,
opponents, the exact distribution) raises ``ValueError`` saying so.

Results are plain value objects: they compare equal (``==``) when they hold the same figures
(timings aside), hash, and print in one line.

Bad input raises ``ValueError`` with the message the command line prints. The functions that
compute (``solve``, ``stats``, ``simulate``, ``advise`` and ``advise_batch``) release the GIL
while they work.
"""

from __future__ import annotations

import json
import operator
import warnings
from dataclasses import dataclass, field
from os import PathLike
from typing import (
    Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union,
)

import numpy as np

from . import _native
from ._native import Table

__all__ = [
    "__version__",
    "Table",
    "AdviceOption",
    "Advice",
    "Position",
    "Score",
    "Stats",
    "Frontier",
    "Simulation",
    "RULE_SETS",
    "POLICIES",
    "DEFAULT_THRESHOLDS",
    "KEEP_COLUMNS",
    "COMMIT",
    "DICE_GENERATOR",
    "solve",
    "advise",
    "advise_batch",
    "value",
    "option_values",
    "option_labels",
    "option_frame",
    "keep_column",
    "box_column",
    "keep_columns",
    "target_curve",
    "boxes",
    "legal_boxes",
    "score",
    "keeps",
    "stats",
    "frontier",
    "visit_probabilities",
    "simulate",
    "Estimate",
    "KindLoss",
    "Habit",
    "PlayerRating",
    "Rating",
    "rate",
]

#: The package's version (the version of the Rust crate it was built from). It changes
#: whenever an output for the same input changes.
__version__: str = _native.VERSION

#: The commit the package was built from (``git rev-parse HEAD``), or ``"unknown"`` when it
#: was built outside a git checkout. Every result's ``summary`` states it as ``commit``.
COMMIT: str = _native.COMMIT

#: The version of the dice generator of :func:`simulate`: with the version and the seed, it
#: says which dice a seeded simulation rolled.
DICE_GENERATOR: int = _native.DICE_GENERATOR

#: The columns of :func:`option_values` before the boxes' in a game of five dice: one per
#: subset of the five dice (:func:`keep_columns` of any game: 64 with six dice).
KEEP_COLUMNS: int = _native.KEEP_COLUMNS

#: The rule sets, by the names the command line gives them.
RULE_SETS: Tuple[str, ...] = tuple(_native.rule_sets())

#: The policies of :func:`simulate` (and ``target:T`` for a target score ``T``).
POLICIES: Tuple[str, ...] = ("optimal", "greedy", "most-common")

#: The thresholds t of P(score >= t) that ``stats`` and ``simulate`` report by default.
DEFAULT_THRESHOLDS: Tuple[int, ...] = (200, 250, 300, 350, 400, 500)

Card = Union[None, str, Mapping[str, int]]
DiceLike = Union[str, Sequence[int]]
RulesLike = Union[str, "PathLike[str]", Table]


def solve(
    rules: Union[str, "PathLike[str]"] = "yahtzee",
    upper_first: bool = False,
    path: Union[None, str, "PathLike[str]"] = None,
    target_path: Union[None, str, "PathLike[str]"] = None,
    distribution_path: Union[None, str, "PathLike[str]"] = None,
) -> Table:
    """The strategy table of ``rules``: loaded from its file when there is one, else solved
    (about a second for the Yahtzee rule sets) and saved there for next time.

    ``path`` is the table file (default: the cache folder, as for the command line);
    ``target_path`` the target table's, used by ``advise(..., target=T)`` and built on first
    use (about 20 seconds on two cores for the Yahtzee rule sets); ``distribution_path`` the distribution
    table's (the remaining score of every state under expected-score play), used by
    ``advise(..., opponents=[...])`` and built on first use too. The table has ``rules``, ``upper_first``,
    ``saved_rolls``, ``expected_score`` (of a new game), ``states`` (reachable turn-start states), ``path``,
    and ``values()``: a dict of numpy arrays, one entry per reachable state in layout order,
    ``filled`` (uint32 mask of filled boxes, bit i for box i in card order), ``upper``
    (uint8, upper total capped at 63), ``yahtzee_50`` (bool, the Yahtzee box holds 50),
    ``turns_played`` (uint32) and ``expected_remaining`` (float64, the expected points still
    to come under optimal play) -- the columns of ``yahtzee export --all-states``, unrounded.
    ``pandas.DataFrame(table.values())`` makes a data frame of it. ``rules`` may also be
    the path of a rules file; ``table.target_path`` is the target table's file.

    A game of saved rolls (a rules file with ``saved_rolls = true``) has one table, of every
    reachable state with every number of rolls saved it can have (``yahtzee solve --rules
    FILE`` builds the same file; Yatzy with saved rolls in seconds, Maxi Yatzy in minutes and
    10 GB): ``states`` counts the states and numbers of rolls saved, ``values()`` has a row
    for each, with the column ``saved`` (uint8) before ``expected_remaining``, and
    ``target_path`` raises ``ValueError``: no target, win or two-player table is solved under
    saved rolls.
    """
    return _native.solve(
        str(rules),
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
    ``expected_loss`` are under expected-score play. In the game of two, ``value`` is the
    chance of winning plus half the chance of a tie, ``loss`` the loss in it. Under saved
    rolls, a ``score`` option has ``saves``: the re-rolls left that filling the box now keeps
    for later turns. Under an exponential utility (``theta``), ``certainty_equivalent`` is its
    certainty equivalent of the final score, ``loss`` the loss in it, and ``expected_final``
    is NaN (not computed).
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
    value: Optional[float] = None
    saves: Optional[int] = None
    certainty_equivalent: Optional[float] = None

    @classmethod
    def _of(cls, o: Mapping[str, Any]) -> "AdviceOption":
        o = dict(o)
        # Under θ the answer ranks by certainty equivalent and carries no expected score.
        o.setdefault("expected_final", float("nan"))
        if "keep" in o:
            o["keep"] = tuple(o["keep"])
        return cls(**o)

    def __str__(self) -> str:
        if self.kind == "score":
            extra = f" (+{self.bonus} bonus)" if self.bonus else ""
            if self.saves:
                extra += f", keep {self.saves} roll" + ("s" if self.saves > 1 else "")
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
    final score) and ``model`` (what the win probability assumes). Advice in the game of two
    has ``you_are`` (``first`` or ``second``), ``lead`` and ``value`` (the best chance of
    winning plus half a tie) and no ``banked``. Advice under an exponential utility has
    ``theta``, and each option its ``certainty_equivalent``. ``json`` is the answer as the
    command line prints it.
    """

    rules: str
    upper_first: bool
    dice: Tuple[int, ...]
    rolls_left: int
    options: Tuple[AdviceOption, ...]
    banked: Optional[int] = None
    target: Optional[int] = None
    needed: Optional[int] = None
    p_reach: Optional[float] = None
    reachable: Optional[bool] = None
    tail: Optional[float] = None
    p_win: Optional[float] = None
    opponents: Optional[List[Dict[str, Any]]] = None
    model: Optional[str] = None
    you_are: Optional[str] = None
    lead: Optional[int] = None
    value: Optional[float] = None
    theta: Optional[float] = None
    #: The program's version and commit, the dice generator's version and the checksum of the
    #: expected-score table read, as every JSON result of the command line states them (not
    #: compared: where the answer came from).
    version: Optional[str] = field(default=None, repr=False, compare=False)
    commit: Optional[str] = field(default=None, repr=False, compare=False)
    dice_generator: Optional[int] = field(default=None, repr=False, compare=False)
    table_checksum: Optional[str] = field(default=None, repr=False, compare=False)
    json: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def _of(cls, answer: Mapping[str, Any]) -> "Advice":
        a = dict(answer)
        a["dice"] = tuple(a["dice"])
        a["options"] = tuple(AdviceOption._of(o) for o in a["options"])
        return cls(**a, json=dict(answer))

    def __hash__(self) -> int:
        return hash(_canonical(self.json))

    @property
    def best(self) -> AdviceOption:
        """The best option."""
        return self.options[0]

    def to_dataframe(self) -> Any:
        """The options as a pandas DataFrame, one row per option, best first (pandas must be
        installed); the column ``option`` is the option in words."""
        pd = _import("pandas", "Advice.to_dataframe")
        rows = []
        for o in self.options:
            row = {"option": str(o)}
            row.update({k: v for k, v in o.__dict__.items() if v is not None})
            rows.append(row)
        return pd.DataFrame(rows)

    to_pandas = to_dataframe


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _import(module: str, what: str) -> Any:
    """``module`` imported on first use (pandas and polars are optional), or an ImportError
    that says how to install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(
            f"{what} needs {module}, which is not installed: pip install {module}"
        ) from None


def _rules(rules: RulesLike) -> Union[str, Table]:
    return rules if isinstance(rules, Table) else str(rules)


def _card(rules: RulesLike, upper_first: bool, card: Card) -> Dict[str, int]:
    if card is None:
        return {}
    if isinstance(card, str):
        return dict(_native.card_entries(_rules(rules), upper_first, card))
    return {str(k): _integer(v) for k, v in dict(card).items()}


def _entries(rules: RulesLike, upper_first: bool, card: Card) -> List[Tuple[str, int]]:
    # The card as (box, points) pairs for the compiled module, which checks them.
    out = []
    for k, v in _card(rules, upper_first, card).items():
        v = _integer(v)
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"card.{k} must be an integer number of points, like 25, not {v!r}")
        out.append((k, v))
    return out


def _integer(v: Any) -> Any:
    # Integers of any kind (numpy's too) as Python ints; anything else as it is, for the
    # batch protocol to refuse with its message.
    if isinstance(v, bool):
        return v
    try:
        return operator.index(v)
    except TypeError:
        return v


def _number(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ValueError(f"{what} is a number, not {v!r}")
    return float(v)


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
                o["card"] = _card(table, table.upper_first, o["card"])
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
    rolls_left: Optional[int],
    yahtzee_bonus: int,
    target: Optional[int],
    opponents: Optional[Sequence[Any]],
    two_player: bool = False,
    lead: Optional[int] = None,
    saved: Optional[int] = None,
    theta: Optional[float] = None,
) -> str:
    query: Dict[str, Any] = {}
    entries = _card(table, table.upper_first, card)
    if entries:
        query["card"] = entries
    query["yahtzee_bonus"] = _integer(yahtzee_bonus)
    query["dice"] = _dice(dice)
    if rolls_left is not None:
        query["rolls_left"] = _integer(rolls_left)
    if saved is not None:
        query["saved"] = _integer(saved)
    if target is not None:
        query["target"] = _integer(target)
    if opponents is not None:
        query["opponents"] = _opponents(table, opponents)
    if two_player:
        query["two_player"] = True
    if lead is not None:
        query["lead"] = _integer(lead)
    if theta is not None:
        query["theta"] = _number(theta, "theta")
    try:
        return json.dumps(query)
    except TypeError as e:
        raise ValueError(f"a query holds numbers, text and lists only: {e}") from None


def advise(
    table: Table,
    card: Card = None,
    dice: DiceLike = (),
    rolls_left: Optional[int] = None,
    yahtzee_bonus: int = 0,
    target: Optional[int] = None,
    opponents: Optional[Sequence[Any]] = None,
    two_player: bool = False,
    lead: Optional[int] = None,
    saved: Optional[int] = None,
    theta: Optional[float] = None,
) -> Advice:
    """Every legal option of a position, ranked, as ``yahtzee advise --json`` answers.

    ``card`` is the filled boxes with their points, a dict (``{"ones": 3, "full-house": 25}``)
    or the command line's text (``"ones=3,full-house=25"``); ``None`` for a new game.
    ``dice`` is five faces (``[1, 3, 3, 5, 6]`` or ``"13356"``), ``rolls_left`` 2 just after
    the first roll, 1, or 0 after the last (``None``: the start of a turn, 2, or 3 in a game
    of four rolls a turn), ``yahtzee_bonus`` the 100-point bonuses already
    earned. With ``target=T`` the options are ranked by their best chance of a final score of
    at least ``T`` (the target table is read, or built on first use). With ``opponents`` the
    options are ranked by the chance of winning against them, as ``advise --opponent``
    ranks them: each opponent is ``{"card": CARD, "yahtzee_bonus": N}`` (``CARD`` as
    ``card``) while still playing, or their final score (an int, or ``{"final": N}``) once
    finished; the distribution table is read, or built on first use. With
    ``two_player=True`` and one opponent (Yacht), the options are ranked by the exact chance of
    winning the game of two plus half a tie (``value``), as ``advise
    --two-player`` ranks them, ``lead`` being your points less the opponent's (default: the
    difference of the cards); positions early in the game need the table of the game of two,
    which ``advise --two-player`` builds: they raise ``ValueError`` here.

    In a game of saved rolls (``table.saved_rolls``), ``saved`` is the rolls saved before
    this turn (default 0), as ``advise --saved N`` takes it: ``rolls_left`` is then the
    re-rolls left this turn, up to the game's two and ``saved`` (the default), and each
    ``score`` option ``saves`` the re-rolls left for later turns. Only the expected score is
    solved under saved rolls: a target or opponents raise ``ValueError``. In other games
    ``saved`` is left out.

    With ``theta=X`` the options are ranked by their certainty equivalent under the
    exponential utility of parameter θ (``advise --theta X``: θ > 0 seeks risk, θ < 0 avoids
    it; the θ table is built on first use, about a second).

    Raises ``ValueError`` with the command line's message for an impossible position.
    """
    line = _query(
        table, card, dice, rolls_left, yahtzee_bonus, target, opponents, two_player, lead,
        saved, theta,
    )
    return Advice._of(json.loads(_native.advise_line(table, line)))


def advise_batch(table: Table, queries: Iterable[Mapping[str, Any]]) -> List[Advice]:
    """Answers many positions at once, in parallel, without the GIL: each query is a dict of
    the keyword arguments of :func:`advise` (``card``, ``dice``, ``rolls_left``,
    ``yahtzee_bonus``, ``target``, ``opponents``, ``two_player``, ``lead``, ``saved``).
    Returns the advice of each, in order; if any query is bad, raises ``ValueError`` naming
    the first bad one (counting from 0) and why.
    """
    allowed = {
        "card", "dice", "rolls_left", "yahtzee_bonus", "target", "opponents", "two_player",
        "lead", "saved",
    }
    lines = []
    for i, q in enumerate(queries):
        unknown = set(q) - allowed
        if unknown:
            raise ValueError(
                f"query {i}: unknown key `{sorted(unknown)[0]}`: the keys are card, dice, "
                "rolls_left, yahtzee_bonus, target, opponents, two_player, lead and saved"
            )
        lines.append(
            _query(
                table,
                q.get("card"),
                q.get("dice", ()),
                q.get("rolls_left"),
                q.get("yahtzee_bonus", 0),
                q.get("target"),
                q.get("opponents"),
                bool(q.get("two_player", False)),
                q.get("lead"),
                q.get("saved"),
            )
        )
    answers = [json.loads(a) for a in _native.advise_lines(table, lines)]
    for i, a in enumerate(answers):
        if "error" in a:
            raise ValueError(f"query {i}: {a['error']}")
    return [Advice._of(a) for a in answers]


def value(table: Table, card: Card = None, saved: int = 0) -> float:
    """The expected remaining score of ``card`` (as :func:`advise` takes it; ``None`` for a
    new game) at the start of a turn under optimal play: the points still to come, the upper
    bonus not yet earned included (the card's points are not counted: add them for the
    expected final score). In a game of saved rolls, with ``saved`` rolls saved before the
    turn: at most the game's re-rolls times the turns played, else ``ValueError`` with the
    message :func:`advise` gives (the core's one check of the rolls saved); ``value(table)`` is ``table.expected_score``. In other
    games ``saved`` is 0 and the value is that of ``table.values()``.
    """
    return _native.value(table, _entries(table, table.upper_first, card), _integer(saved))


def _dice_array(dice: Any) -> np.ndarray:
    if isinstance(dice, str):
        raise ValueError("dice must be N rows of five faces, not one roll: give [dice]")
    rows = dice if isinstance(dice, np.ndarray) else [
        _dice(d) if isinstance(d, str) else d for d in dice
    ]
    a = np.asarray(rows, dtype=np.int64)
    if a.ndim != 2 or a.shape[1] not in (5, 6):
        raise ValueError(
            f"dice must be N rows of five faces (six in a game of six dice), not an array of shape {a.shape}"
        )
    return a


def _card_array(table: Table, cards: Any, n: int) -> np.ndarray:
    if isinstance(cards, np.ndarray):
        return np.asarray(cards, dtype=np.int64)
    names = boxes(table)
    out = np.full((n, len(names)), -1, dtype=np.int64)
    for i, card in enumerate(cards):
        for name, points in _card(table, table.upper_first, card).items():
            if name not in names:
                # The compiled module checks the card again: an alias or an unknown box.
                raise ValueError(
                    f"position {i}: unknown box `{name}`: the boxes are {', '.join(names)}"
                )
            out[i, names.index(name)] = points
    return out


def option_values(
    table: Table,
    cards: Any,
    dice: Any,
    rolls_left: Any = 2,
    yahtzee_bonus: Any = 0,
) -> np.ndarray:
    """The expected final score of every option of N positions at once, as one float64 array
    of N rows (no JSON): the values of ``advise`` (equal to ``advise --batch``'s
    ``expected_final``), computed in parallel without the GIL.

    ``cards`` is an int array of N rows and one column per box (card order, see
    :func:`boxes`), each the points in the box or -1 for an open box, or a list of N cards as
    :func:`advise` takes them (``None`` for a new game); ``dice`` N rows of the game's
    five (or six) faces; ``rolls_left`` and ``yahtzee_bonus`` one number each or N.

    Row ``i`` has ``K + len(boxes(table))`` columns, ``K = keep_columns(table)`` (32 with
    five dice, 64 with six): column ``m < K`` keeps the dice at the set bits of ``m``, the
    dice ascending (bit 0 the lowest; ``m = K - 1``, all the dice, stops and scores the best
    box; :func:`keep_column` finds a keep's column), column ``K + b`` scores box ``b``
    (:func:`box_column`). Columns that are not
    options of the position are NaN: keeps with no rolls left, boxes with rolls left, boxes
    that cannot be filled. A bad position raises ``ValueError`` naming it (from 0).
    """
    d = _dice_array(dice)
    n = len(d)
    c = _card_array(table, cards, n)
    r = np.broadcast_to(np.asarray(rolls_left, dtype=np.int64), (n,))
    b = np.broadcast_to(np.asarray(yahtzee_bonus, dtype=np.int64), (n,))
    return _native.option_values(
        table, np.ascontiguousarray(c), np.ascontiguousarray(b), np.ascontiguousarray(d),
        np.ascontiguousarray(r),
    )


def option_labels(rules: RulesLike = "yahtzee", upper_first: bool = False) -> Tuple[str, ...]:
    """The name of each column of :func:`option_values` in a game of ``rules``: ``keep_m``
    for the keep column ``m`` (the dice at the set bits of ``m``, the dice ascending, bit 0
    the lowest: ``keep_0`` re-rolls all, the last keeps all and stops), then ``score_BOX``
    for each box in card order (``score_ones`` ...)."""
    k = keep_columns(rules, upper_first)
    return tuple(f"keep_{m}" for m in range(k)) + tuple(
        f"score_{b}" for b in boxes(rules, upper_first)
    )


def option_frame(
    table: Table,
    cards: Any,
    dice: Any,
    rolls_left: Any = 2,
    yahtzee_bonus: Any = 0,
) -> Any:
    """:func:`option_values` as a pandas DataFrame, its columns named by
    :func:`option_labels` (pandas must be installed; it is imported here, not with the
    package)."""
    pd = _import("pandas", "option_frame")
    values = option_values(table, cards, dice, rolls_left, yahtzee_bonus)
    return pd.DataFrame(values, columns=list(option_labels(table)))


def keep_column(dice: DiceLike, keep: Sequence[int]) -> int:
    """The column of :func:`option_values` that keeps ``keep`` from ``dice``: the lowest mask
    of the ascending dice whose faces are ``keep``. ``ValueError`` when the dice do not hold
    it."""
    faces = sorted(_dice(dice))
    want = sorted(_integer(f) for f in keep)
    for mask in range(1 << len(faces)):
        if [faces[i] for i in range(len(faces)) if mask >> i & 1] == want:
            return mask
    raise ValueError(f"cannot keep {want}: the dice are {faces}")


def keep_columns(rules: RulesLike = "yahtzee", upper_first: bool = False) -> int:
    """The columns of :func:`option_values` before the boxes' in a game of ``rules``: one per
    subset of its dice, 32 for five (``KEEP_COLUMNS``), 64 for six."""
    return _native.keep_columns(_rules(rules), bool(upper_first))


def box_column(rules: RulesLike, name: str, upper_first: bool = False) -> int:
    """The column of :func:`option_values` that scores box ``name``: after the
    :func:`keep_columns` of the game's dice."""
    names = boxes(rules, upper_first)
    if name not in names:
        raise ValueError(f"unknown box `{name}`: the boxes are {', '.join(names)}")
    return keep_columns(rules, upper_first) + names.index(name)


def target_curve(table: Table, card: Card = None, yahtzee_bonus: int = 0) -> np.ndarray:
    """The best chance of each final score from a card (default: a new game), a float64
    array: ``p[t]`` is P(final score >= t) under the strategy that maximises that chance
    (a strategy for each ``t``), for ``t`` from 0 to one past the highest final score the card
    can still reach (where it is 0); 1 up to the points banked. The target table is read, or
    built on first use (``table.target_path``): what ``solve --objective target --curve``
    writes for a new game.
    """
    return _native.target_curve(
        table, _entries(table, table.upper_first, card), _integer(yahtzee_bonus)
    )


def boxes(rules: RulesLike = "yahtzee", upper_first: bool = False) -> Tuple[str, ...]:
    """The boxes of the rules (a name, a rules file's path, or a table), in card order."""
    return tuple(_native.boxes(_rules(rules), bool(upper_first)))


def _is_dice(value: Any) -> bool:
    # Dice as the functions take them: faces (ints), or their text (digits, perhaps
    # separated); never a card (None, a mapping, or text with `=`) nor a box name.
    if isinstance(value, str):
        return value != "" and all(c.isdigit() or c in ", " for c in value)
    return (
        isinstance(value, (list, tuple, np.ndarray))
        and len(value) > 0
        and all(isinstance(f, (int, np.integer)) and not isinstance(f, bool) for f in value)
    )


def _old_order(function: str, order: str) -> None:
    warnings.warn(
        f"{function}: the dice before the card is the order of version 0.1; give the rules, "
        f"then the position: {order}",
        DeprecationWarning,
        stacklevel=3,
    )


def legal_boxes(
    rules: RulesLike,
    card: Union[Card, DiceLike] = None,
    dice: Union[DiceLike, Card] = (),
    yahtzee_bonus: int = 0,
    upper_first: bool = False,
) -> Tuple[str, ...]:
    """The boxes ``dice`` may fill on ``card``, in card order: the open boxes, restricted by
    the fill order and by the forced Joker.

    The arguments come in the order of every function of the package: the rules, then the
    position (``card``, ``dice``). The order of version 0.1, ``legal_boxes(rules, dice,
    card)``, is still read (the dice are told from a card), with a ``DeprecationWarning``.
    """
    the_card: Any = card
    the_dice: Any = dice
    if _is_dice(card):
        _old_order("legal_boxes", "legal_boxes(rules, card, dice)")
        the_card, the_dice = (None if isinstance(dice, tuple) and dice == () else dice), card
    return tuple(
        _native.legal_boxes(
            _rules(rules), bool(upper_first), _entries(rules, upper_first, the_card),
            _integer(yahtzee_bonus), _dice(the_dice),
        )
    )


@dataclass(frozen=True)
class Score:
    """A box filled: its ``box``, its ``points`` (the Joker included) and the ``bonus``
    points earned with it (the upper bonus reached, a further five of a kind's bonus)."""

    box: str
    points: int
    bonus: int

    @property
    def total(self) -> int:
        """The points and the bonus."""
        return self.points + self.bonus


def score(
    rules: RulesLike,
    card: Union[Card, DiceLike],
    dice: DiceLike,
    box: Union[str, Card] = None,
    yahtzee_bonus: int = 0,
    upper_first: bool = False,
) -> Score:
    """Fills ``box`` with ``dice`` on ``card`` (with ``yahtzee_bonus`` bonuses earned), as the
    referee of ``yahtzee play`` scores it; ``ValueError`` saying why when the box cannot be
    filled (filled already, the fill order, the forced Joker).

    The arguments come in the order of every function of the package: the rules, then the
    position (``card``, ``None`` for a new game, and ``dice``), then the box. The order of
    version 0.1, ``score(rules, dice, box, card)``, is still read (a box name is never dice),
    with a ``DeprecationWarning``.
    """
    the_card: Any = card
    the_dice: Any = dice
    the_box: Any = box
    if isinstance(dice, str) and not _is_dice(dice):
        _old_order("score", "score(rules, card, dice, box)")
        the_card, the_dice, the_box = box, card, dice
    if not isinstance(the_box, str):
        raise ValueError(f"box must be a box's name, not {the_box!r}")
    name, points, bonus = _native.score(
        _rules(rules), bool(upper_first), _entries(rules, upper_first, the_card),
        _integer(yahtzee_bonus), _dice(the_dice), the_box,
    )
    return Score(name, points, bonus)


def keeps(dice: DiceLike) -> Tuple[Tuple[int, ...], ...]:
    """The distinct keeps of ``dice`` (the faces kept, ascending), in the order of the tie
    convention: fewest dice first, then the lowest faces; the last keeps all five."""
    return tuple(tuple(k) for k in _native.keeps(_dice(dice)))


_TIMING = ("seconds", "threads", "games_per_second")


def _figure(key: str, doc: str) -> Any:
    # A figure of the summary as a read-only attribute.
    return property(lambda self: self.summary[key], doc=doc)


class _Figures:
    """What :class:`Stats` and :class:`Simulation` share: the figures of ``summary`` as
    attributes, equality on the figures (timings aside), a hash and a one-line repr."""

    summary: Dict[str, Any]
    pmf: np.ndarray

    rules = _figure("rules", "The rules played.")

    upper_first = _figure("upper_first", "True under the upper-section-first modifier.")

    @property
    def support(self) -> np.ndarray:
        """The final scores that ``pmf`` is indexed by: ``0 .. len(pmf) - 1``."""
        return np.arange(len(self.pmf))

    @property
    def mean(self) -> float:
        """The mean final score."""
        return float(self.summary["mean"])

    @property
    def sd(self) -> float:
        """The standard deviation of the final score."""
        return float(self.summary["std_dev"])

    std_dev = sd

    median = _figure("median", "The median final score.")

    min = _figure("min", "The lowest final score (with nonzero probability).")

    max = _figure("max", "The highest final score (with nonzero probability).")

    @property
    def percentiles(self) -> Dict[float, int]:
        """The final score at each percent: ``{1.0: ..., 5.0: ..., ..., 99.0: ...}``."""
        return {p["percent"]: p["score"] for p in self.summary["percentiles"]}

    @property
    def at_least(self) -> Dict[int, float]:
        """P(score >= t) for each threshold t asked for."""
        return {a["score"]: a["probability"] for a in self.summary["at_least"]}

    def to_pandas(self) -> Any:
        """The distribution as a pandas DataFrame (pandas must be installed; it is imported
        here, not with the package): one row per final score from 0, columns ``score``,
        ``probability`` (``pmf``) and ``at_least`` (P(final >= score))."""
        pd = _import("pandas", f"{type(self).__name__}.to_pandas")
        return pd.DataFrame(self._columns())

    def to_polars(self) -> Any:
        """The same as :meth:`to_pandas`, as a polars DataFrame (polars must be installed)."""
        pl = _import("polars", f"{type(self).__name__}.to_polars")
        return pl.DataFrame(self._columns())

    def _columns(self) -> Dict[str, np.ndarray]:
        pmf = np.asarray(self.pmf, dtype=np.float64)
        tail = np.cumsum(pmf[::-1])[::-1]
        return {"score": self.support, "probability": pmf, "at_least": tail}

    def _key(self) -> Tuple[Any, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return bool(self._key() == other._key())

    def __hash__(self) -> int:
        return hash(self._key())


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    a.flags.writeable = False
    return a


def _figures(report: str) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    summary = json.loads(report)
    timing = {k: summary.pop(k) for k in _TIMING if k in summary}
    return summary, timing


@dataclass(frozen=True, eq=False, repr=False)
class Stats(_Figures):
    """The exact distribution of the final score under optimal play.

    ``pmf[s]`` is the probability of a final score of exactly ``s`` (a read-only float64
    array from 0 to the highest score with nonzero probability; it sums to 1; ``support`` is
    ``0 .. len(pmf) - 1``), and ``summary`` the report of ``yahtzee stats --json`` without
    its timings (``timing``: ``seconds``, ``threads``): ``mean``, ``std_dev``, ``median``,
    ``percentiles``, ``min``, ``max``, ``at_least`` (P(score >= t)), per-box ``boxes``,
    ``upper_bonus``, ``fifty_probability``, ``yahtzee_bonuses``, and the rules, method and tie
    convention; the figures are attributes too (``mean``, ``sd``, ``median``, ``percentiles``,
    ``at_least`` ...), as on :class:`Simulation`. Two ``Stats`` are equal when their figures
    are.
    """

    pmf: np.ndarray
    summary: Dict[str, Any]
    timing: Dict[str, Any] = field(default_factory=dict)

    def _key(self) -> Tuple[Any, ...]:
        return (self.pmf.tobytes(), _canonical(self.summary))

    @property
    def events(self) -> Dict[str, float]:
        """The exact probability of each event of a game (``stats(..., events=True)``; empty
        otherwise), by name: ``BOX-rolled`` (some roll showed the box's pattern),
        ``BOX-scored`` (the five-of-a-kind box filled with its points, or a bonus),
        ``upper-bonus``; their meanings are in ``summary["events"]``."""
        return {e["name"]: e["probability"] for e in self.summary.get("events", [])}

    @property
    def covariance(self) -> Any:
        """The covariance matrix of the final points of each box, then of the upper bonus and
        of the five-of-a-kind bonuses (``stats(..., events=True)``): a pandas DataFrame
        labelled by those rows when pandas is installed, else a dict of ``rows`` (the labels),
        ``matrix``, ``correlation`` (float64 arrays) and ``means``. The sum of every entry is
        the variance of the final score. ``None`` without ``events=True``."""
        c = self.summary.get("covariance")
        if c is None:
            return None
        try:
            pd = _import("pandas", "Stats.covariance")
        except ImportError:
            return {
                "rows": list(c["rows"]),
                "matrix": np.array(c["matrix"], dtype=np.float64),
                "correlation": np.array(c["correlation"], dtype=np.float64),
                "means": np.array(c["means"], dtype=np.float64),
            }
        return pd.DataFrame(c["matrix"], index=c["rows"], columns=c["rows"])

    @property
    def bonus_by_five_of_a_kind(self) -> Optional[Dict[str, Any]]:
        """The joint table of the upper bonus and the five-of-a-kind box (``events=True``):
        the chances ``both``, ``bonus_only``, ``five_of_a_kind_only``, ``neither``, and the
        box's name; ``None`` otherwise or when the rules lack either."""
        b = self.summary.get("bonus_by_five_of_a_kind")
        return None if b is None else dict(b)

    @property
    def joint(self) -> Optional[Dict[str, Any]]:
        """The joint distributions of ``stats(..., joint=...)`` (``None`` otherwise), as
        ``stats --joint --json`` gives them: ``boxes``, for each box its ``values`` (each
        points of nonzero chance: ``probability``, and the ``mean``, ``std_dev``, ``median``
        and ``percentiles`` of the final score of the games that end with them),
        ``covariance_with_score``, ``correlation_with_score`` and ``score_table`` (``[points,
        score, probability]``); with two boxes, ``pair``: their ``table`` (``[points, points,
        probability]``), ``covariance`` and ``correlation``."""
        j = self.summary.get("joint")
        return None if j is None else dict(j)

    def joint_frame(self) -> Any:
        """The joint tables of :attr:`joint` in long form, one row per pair of nonzero
        chance, as ``stats --joint-csv`` writes them: columns ``first`` (a box),
        ``first_points``, ``second`` (``score``, or the other box), ``second_points``,
        ``probability``; a pandas DataFrame (pandas must be installed). Raises ``ValueError``
        without ``joint``."""
        j = self.summary.get("joint")
        if j is None:
            raise ValueError("no joint distribution: give stats(..., joint=\"BOX\")")
        pd = _import("pandas", "Stats.joint_frame")
        rows: List[Tuple[str, int, str, int, float]] = []
        for b in j["boxes"]:
            rows.extend((b["box"], p, "score", s, m) for p, s, m in b["score_table"])
        pair = j.get("pair")
        if pair is not None:
            first, second = pair["boxes"]
            rows.extend((first, p, second, q, m) for p, q, m in pair["table"])
        return pd.DataFrame(
            rows, columns=["first", "first_points", "second", "second_points", "probability"]
        )

    def __repr__(self) -> str:
        return (
            f"Stats(rules={self.rules!r}, upper_first={self.upper_first}, "
            f"mean={self.mean:.4f}, sd={self.sd:.4f}, median={self.median}, "
            f"min={self.min}, max={self.max})"
        )


def _table_of(rules: RulesLike, upper_first: Optional[bool]) -> Table:
    if isinstance(rules, Table):
        if upper_first is not None and bool(upper_first) != rules.upper_first:
            raise ValueError(
                f"the table is of {rules.rules}"
                + (" with the upper section first" if rules.upper_first else "")
                + f", not upper_first={bool(upper_first)}: give the table of the rules wanted "
                "(yahtzee.solve(rules, upper_first)), or leave upper_first out"
            )
        return rules
    return solve(str(rules), bool(upper_first))


def stats(
    rules: RulesLike = "yahtzee",
    card: Card = None,
    dice: Optional[DiceLike] = None,
    rolls_left: Optional[int] = None,
    yahtzee_bonus: int = 0,
    target: Optional[int] = None,
    upper_first: Optional[bool] = None,
    at_least: Sequence[int] = DEFAULT_THRESHOLDS,
    events: bool = False,
    theta: Optional[float] = None,
    joint: Union[str, Sequence[str], None] = None,
) -> Stats:
    """The exact distribution of the final score (nothing sampled), as ``yahtzee stats``:
    give the rules (their table is loaded or built) or a table (then ``upper_first``, if
    given, must be the table's), then the position as :func:`advise` takes it.

    From a new game by default; from the start of a turn of ``card`` (with
    ``yahtzee_bonus`` bonuses earned), or with ``dice`` from the position with
    ``rolls_left`` (default: just after the first roll), as ``stats --card --dice
    --rolls-left``. Under optimal play for the expected score by default; with ``target=T``
    under the policy of the best chance of a final score of at least ``T``, as ``stats
    --target T`` (the summary holds the expected-score policy's figures beside it, in
    ``expected_score``). ``at_least`` are the thresholds t of the summary's P(score >= t),
    whole numbers from 0.

    The pass of a new game under optimal play is made once per table and kept: a second
    ``stats`` of the table, or :func:`visit_probabilities`, reads it.

    With ``events=True`` (optimal play for the expected score only), as ``stats --events``:
    the exact events of a game (:attr:`Stats.events`), the covariance matrix of the boxes'
    and bonuses' final points (:attr:`Stats.covariance`) and the joint table of the upper
    bonus and the five-of-a-kind box (:attr:`Stats.bonus_by_five_of_a_kind`), from a pass of
    their own (about twice the distribution's time).

    With ``joint="BOX"`` or ``joint=("BOX", "BOX")`` (optimal play for the expected score
    only), as ``stats --joint``: the exact joint distribution of the box's points and the final
    score, and of the two boxes (:attr:`Stats.joint`, :meth:`Stats.joint_frame`), one pass per
    points a box can end with (2 for a five-of-a-kind box, 26 for Chance).

    With ``theta=X``, under the policy of the exponential utility of parameter θ, as
    ``stats --theta X`` (the θ table built on first use): the summary holds the certainty
    equivalent of the start by the table (``certainty_equivalent``) and by the distribution
    (``distribution_certainty_equivalent``).

    The order of version 0.1, ``stats(rules, upper_first, at_least)``, is still read (a
    card is never ``True`` or ``False``), with a ``DeprecationWarning``.
    """
    if isinstance(card, bool):
        _old_order("stats", "stats(rules, card, dice, ..., upper_first=...)")
        upper_first, card = card, None
        if dice is not None:
            old_at_least: Any = dice
            at_least, dice = old_at_least, None
    table = _table_of(rules, upper_first)
    position = card is not None or dice is not None or yahtzee_bonus != 0
    pmf, report = _native.stats(
        table,
        [_threshold(t) for t in at_least],
        _entries(table, table.upper_first, card) if position else None,
        _integer(yahtzee_bonus),
        None if dice is None else _dice(dice),
        None if rolls_left is None else _integer(rolls_left),
        None if target is None else _integer(target),
        events=bool(events),
        theta=None if theta is None else _number(theta, "theta"),
        joint=_box_names(joint),
    )
    summary, timing = _figures(report)
    return Stats(pmf=_frozen(pmf), summary=summary, timing=timing)


def _box_names(joint: Union[str, Sequence[str], None]) -> Optional[List[str]]:
    if joint is None:
        return None
    names = [joint] if isinstance(joint, str) else list(joint)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"joint takes box names (str), not {type(name).__name__}")
    return names


def visit_probabilities(rules: RulesLike = "yahtzee", upper_first: Optional[bool] = None) -> np.ndarray:
    """The exact chance that a game played optimally (for the expected score) reaches each
    turn-start state: a read-only float64 array aligned with the rows of ``Table.values()``
    (and of ``yahtzee export --all-states``, its ``visit_probability`` column). The chances of
    the states with the same ``turns_played`` add up to 1, so any per-state figure weighted by
    them is counted in games, not in states. Give the rules or a table, as for :func:`stats`;
    the pass is that of :func:`stats` of a new game, made once per table and kept.
    """
    table = _table_of(rules, upper_first)
    return _frozen(_native.visit_probabilities(table))


class Frontier:
    """The exact figures of risk-sensitive and target policies (``stats --frontier``): each
    policy's mean, standard deviation and percentiles (``policies``, a list of dicts as the
    command's JSON has them), and for each percentile the θ of the grid that scores it highest
    (``best_theta``); ``summary`` is the whole report."""

    def __init__(self, summary: Dict[str, Any]) -> None:
        self.summary = summary

    @property
    def policies(self) -> List[Dict[str, Any]]:
        return list(self.summary["policies"])

    @property
    def best_theta(self) -> List[Dict[str, Any]]:
        return list(self.summary["best_theta"])

    def to_pandas(self) -> Any:
        """A frame with a row per policy: ``policy``, ``theta``, ``target``, ``mean``,
        ``std_dev`` and a column ``pN`` per percentile."""
        pd = _import("pandas", "Frontier.to_pandas")
        return pd.DataFrame([_frontier_row(self.summary, p) for p in self.policies])

    def __repr__(self) -> str:
        return f"Frontier({len(self.policies)} policies of {self.summary.get('rules')!r})"


def _frontier_row(summary: Mapping[str, Any], p: Mapping[str, Any]) -> Dict[str, Any]:
    row: Dict[str, Any] = {
        "policy": p["policy"],
        "theta": p.get("theta"),
        "target": p.get("target"),
        "mean": p["mean"],
        "std_dev": p["std_dev"],
    }
    for q, v in zip(summary.get("percentiles", [5, 10, 25, 50, 75, 90, 95, 99]), p["percentiles"]):
        row[f"p{q}"] = v
    return row


def frontier(
    rules: RulesLike = "yahtzee",
    thetas: Sequence[float] = (-0.05, -0.02, 0.0, 0.02, 0.05),
    targets: Sequence[int] = (),
    upper_first: Optional[bool] = None,
) -> Frontier:
    """The exact mean, standard deviation and percentiles of the final score under the
    policy of each θ of ``thetas`` (0: the expected score's) and of each target of
    ``targets`` (the target table is built on first use: minutes for the Yahtzee family),
    from a new game, and the θ that maximises each percentile, as ``stats --frontier
    --thetas ... --targets ...``. One θ table (about a second) and one exact pass each."""
    table = _table_of(rules, upper_first)
    report = _native.frontier(
        table,
        [_number(t, "thetas") for t in thetas],
        [_threshold(t) for t in targets],
    )
    return Frontier(json.loads(report))


def _threshold(t: Any) -> int:
    t = _integer(t)
    if isinstance(t, bool) or not isinstance(t, int):
        raise ValueError(f"at_least: the thresholds are whole numbers from 0, not {t!r}")
    return t


@dataclass(frozen=True, eq=False, repr=False)
class Simulation(_Figures):
    """Games played with random dice: ``scores[g]`` is the final score of game ``g`` (a
    read-only uint32 array, in the order the games are dealt), ``pmf`` their shares by final
    score (as :class:`Stats`' ``pmf``), and ``summary`` the report of ``yahtzee simulate
    --json`` without its timings (``timing``): ``policy`` (``own`` for a callable),
    ``games``, ``seed``, ``mean_interval`` (the 95% interval of the mean), ``mean``,
    ``std_dev``, ``percentiles``, P(score >= t), per-box figures, and ``reached`` for a target
    policy. The figures are attributes too, as on :class:`Stats`; two simulations are equal
    when their games and figures are.
    """

    scores: np.ndarray
    summary: Dict[str, Any]
    timing: Dict[str, Any] = field(default_factory=dict)

    @property
    def pmf(self) -> np.ndarray:  # type: ignore[override]
        """The share of the games of each final score, from 0 to the highest."""
        counts = np.bincount(self.scores)
        return counts / len(self.scores)

    games = _figure("games", "The number of games.")

    seed = _figure("seed", "The seed of the dice.")

    policy = _figure("policy", "The policy played (``own`` for a callable).")

    @property
    def mean_interval(self) -> Tuple[float, float]:
        """The 95% confidence interval of the mean."""
        m = self.summary["mean_interval"]
        return (m["low"], m["high"])

    def _key(self) -> Tuple[Any, ...]:
        return (self.scores.tobytes(), _canonical(self.summary))

    def __repr__(self) -> str:
        return (
            f"Simulation(rules={self.rules!r}, upper_first={self.upper_first}, "
            f"policy={self.policy!r}, games={self.games}, seed={self.seed}, "
            f"mean={self.mean:.4f}, sd={self.sd:.4f})"
        )


@dataclass(frozen=True)
class Position:
    """What a policy of one's own sees (see :func:`simulate`): the ``card`` (box name to
    points, the filled boxes), the ``dice`` (ascending), the ``rolls_left`` (2 after the
    first roll, 1, 0 after the last or once the policy stopped) and the ``yahtzee_bonus``
    bonuses earned: the arguments of :func:`advise`, in its order after the table
    (``yahtzee.advise(table, *position)``)."""

    card: Dict[str, int]
    dice: Tuple[int, ...]
    rolls_left: int
    yahtzee_bonus: int

    def __iter__(self) -> Iterator[Any]:
        return iter((self.card, self.dice, self.rolls_left, self.yahtzee_bonus))

    def __hash__(self) -> int:
        card = tuple(sorted(self.card.items()))
        return hash((card, self.dice, self.rolls_left, self.yahtzee_bonus))


Policy = Callable[[Position], Any]


def _choice(answer: Any, at: Position) -> Tuple[str, Any]:
    # What a policy of one's own answered, as ("keep", faces) or ("box", name).
    if isinstance(answer, AdviceOption):
        if answer.kind == "score":
            return ("box", answer.category)
        if answer.stop_and_score is not None:
            return ("box", answer.stop_and_score)
        return ("keep", list(answer.keep or ()))
    if isinstance(answer, str):
        return ("box", answer)
    try:
        faces = [operator.index(f) for f in answer]
    except TypeError:
        raise TypeError(
            "a policy answers a keep (the faces kept, like (3, 3)), a box name (like "
            f"'full-house') or an AdviceOption, not {answer!r}, at {at}"
        ) from None
    return ("keep", faces)


def simulate(
    rules: RulesLike = "yahtzee",
    games: int = 100_000,
    seed: int = 1,
    policy: Union[str, Policy] = "optimal",
    upper_first: Optional[bool] = None,
    at_least: Sequence[int] = DEFAULT_THRESHOLDS,
) -> Simulation:
    """Plays ``games`` games with random dice under ``policy`` (``optimal``, ``greedy``,
    ``most-common`` or ``target:T``, as ``yahtzee simulate --policy``; ``target:T`` plays for
    the best chance of a final score of at least ``T``, with the target table, and its summary
    has ``reached``, the share of games reaching ``T`` with its 95% interval), reproducibly: a
    seed gives the same games as ``yahtzee simulate --seed`` at any thread count. Give the
    rules or a table (the optimal policy plays with the table; the baselines need none; with
    a table, ``upper_first``, if given, must be the table's). Memory: 4 bytes a game.
    A game of saved rolls is played by the optimal policy alone (the whole table of saved
    rolls is read), as ``yahtzee simulate`` plays it.

    ``policy`` may also be a callable of one's own: it gets a :class:`Position` at each
    decision and answers a keep (the faces kept; all five stop rolling, and it is asked again
    with ``rolls_left=0`` for the box), a box name (fills it, stopping with rolls left) or an
    :class:`AdviceOption` (``advise(...).best`` plays the optimal policy). The games are
    played one by one in this thread (about 40 calls a game). Common random numbers: game
    ``g`` of a seed rolls the dice of game ``g`` of every policy, so the same decisions see
    the same dice, and a callable deciding as the optimal policy plays its games exactly. An
    illegal answer raises ``ValueError`` naming the game and the turn; the callable's own
    exceptions go through.
    """
    if callable(policy):
        decide = policy
        if isinstance(rules, Table):
            _table_of(rules, upper_first)

        def ask(
            card: List[Tuple[str, int]], bonus: int, dice: List[int], rolls_left: int
        ) -> Tuple[str, Any]:
            at = Position(dict(card), tuple(dice), rolls_left, bonus)
            return _choice(decide(at), at)

        scores, report = _native.simulate_own(
            _rules(rules), bool(upper_first), _integer(games), _integer(seed), ask,
            [_threshold(t) for t in at_least],
        )
        summary, timing = _figures(report)
        return Simulation(scores=_frozen(scores), summary=summary, timing=timing)
    if isinstance(rules, Table):
        table: Optional[Table] = _table_of(rules, upper_first)
        name, upper = rules.rules, rules.upper_first
    else:
        name, upper = str(rules), bool(upper_first)
        needs_table = policy in ("optimal", "ev") or str(policy).startswith("target")
        table = solve(name, upper) if needs_table else None
    scores, report = _native.simulate(
        (name, upper),
        _integer(games),
        _integer(seed),
        policy,
        [_threshold(t) for t in at_least],
        table,
    )
    summary, timing = _figures(report)
    return Simulation(scores=_frozen(scores), summary=summary, timing=timing)


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95% interval (``low``, ``high``) and ``standard_error``; the three
    are None with fewer than two games."""

    mean: float
    low: Optional[float]
    high: Optional[float]
    standard_error: Optional[float]


@dataclass(frozen=True)
class KindLoss:
    """The decisions of one ``kind`` (a keep with 2 or 1 rolls left, a box) or stage of the
    game: how many, how many lost points, their ``total_loss`` and ``mean_loss``."""

    kind: str
    decisions: int
    suboptimal: int
    total_loss: float
    mean_loss: float


@dataclass(frozen=True)
class Habit:
    """The sub-optimal choices of one pattern (``habit``): how many times, and the points
    they cost in all and a time."""

    habit: str
    count: int
    total_loss: float
    mean_loss: float


@dataclass(frozen=True)
class PlayerRating:
    """One player's rating across the records, as ``review --rating --json`` gives it: the
    losses in expected points against optimal play, per decision and per complete game,
    the ``expected_score`` of the play (each an :class:`Estimate`), the class ``rating``
    (None without a complete game), the losses ``by_kind`` and ``by_stage`` and the
    costliest ``habits``."""

    player: str
    kind: str
    games: int
    complete_games: int
    decisions: int
    suboptimal: int
    mean_score: Optional[float]
    loss_per_decision: Estimate
    loss_per_game: Optional[Estimate]
    expected_score: Optional[Estimate]
    rating: Optional[str]
    by_kind: Tuple[KindLoss, ...]
    by_stage: Tuple[KindLoss, ...]
    habits: Tuple[Habit, ...]

    @classmethod
    def _of(cls, p: Mapping[str, Any]) -> "PlayerRating":
        p = dict(p)
        for key in ("loss_per_decision", "loss_per_game", "expected_score"):
            if p[key] is not None:
                p[key] = Estimate(**p[key])
        p["by_kind"] = tuple(KindLoss(**k) for k in p["by_kind"])
        p["by_stage"] = tuple(KindLoss(**k) for k in p["by_stage"])
        p["habits"] = tuple(Habit(**h) for h in p["habits"])
        return cls(**p)


@dataclass(frozen=True)
class Rating:
    """The rating of the players of some records (``review --rating --json``): the
    ``rules``, the ``optimal_score`` the losses are measured against, the number of
    ``records`` and each player's :class:`PlayerRating`, in the order first seen; the
    program's ``version`` and the ``table_checksum`` of the table read, as every JSON result of
    the command line states them (not compared: where the rating came from)."""

    rules: str
    upper_first: bool
    optimal_score: float
    records: int
    players: Tuple[PlayerRating, ...]
    version: Optional[str] = field(default=None, repr=False, compare=False)
    commit: Optional[str] = field(default=None, repr=False, compare=False)
    dice_generator: Optional[int] = field(default=None, repr=False, compare=False)
    table_checksum: Optional[str] = field(default=None, repr=False, compare=False)


def _record_texts(records: Any) -> List[str]:
    """The texts of ``records``: a path (a file, or a folder of ``.jsonl`` files read by
    name), a record's text (it holds a newline or starts with ``{``), or an iterable of
    them."""
    import pathlib

    if isinstance(records, (str, PathLike)):
        records = [records]
    texts: List[str] = []
    for r in records:
        if isinstance(r, str) and (r.lstrip().startswith("{") or "\n" in r):
            texts.append(r)
            continue
        path = pathlib.Path(r)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix == ".jsonl")
            if not files:
                raise ValueError(
                    f"{path}: the folder holds no game record (a .jsonl file written by `yahtzee play`)"
                )
            texts.extend(f.read_text() for f in files)
        else:
            texts.append(path.read_text())
    return texts


def rate(table: Table, records: Any) -> Rating:
    """Rates each player across ``records`` (games of the table's rules), as ``yahtzee
    review --rating`` does: ``records`` is a path (a record file, or a folder of them), a
    record's text (one game, or several one after the other), or a list of them. Every
    decision is priced in expected points against optimal play. A malformed record, or
    records of other rules, is a ``ValueError``."""
    r = json.loads(_native.rate(table, _record_texts(records)))
    r["players"] = tuple(PlayerRating._of(p) for p in r["players"])
    return Rating(**r)
