# Type hints of the compiled module (python/src/lib.rs); the documented API is yahtzee/__init__.py.
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

BATCH_EXAMPLE: str
KEEP_COLUMNS: int
VERSION: str
COMMIT: str
DICE_GENERATOR: int

class Table:
    """The strategy table of some rules (see ``yahtzee.solve``)."""

    @property
    def rules(self) -> str: ...
    @property
    def upper_first(self) -> bool: ...
    @property
    def saved_rolls(self) -> bool: ...
    @property
    def expected_score(self) -> float: ...
    @property
    def states(self) -> int: ...
    @property
    def path(self) -> str: ...
    @property
    def target_path(self) -> str: ...
    def values(self) -> Dict[str, np.ndarray]: ...

def solve(
    rules: str,
    upper_first: bool,
    path: Optional[str] = None,
    target_path: Optional[str] = None,
    distribution_path: Optional[str] = None,
) -> Table: ...
def advise_line(table: Table, line: str) -> str: ...
def advise_lines(table: Table, lines: List[str]) -> List[str]: ...
def value(table: Table, card: List[Tuple[str, int]], saved: int) -> float: ...
def card_entries(rules: Union[str, Table], upper_first: bool, text: str) -> List[Tuple[str, int]]: ...
def parse_dice(text: str) -> List[int]: ...
def stats(
    table: Table,
    at_least: List[int],
    card: Optional[List[Tuple[str, int]]] = None,
    yahtzee_bonus: int = 0,
    dice: Optional[List[int]] = None,
    rolls_left: Optional[int] = None,
    target: Optional[int] = None,
    events: bool = False,
    theta: Optional[float] = None,
    joint: Optional[List[str]] = None,
) -> Tuple[np.ndarray, str]: ...
def frontier(table: Table, thetas: List[float], targets: List[int]) -> str: ...
def rate(table: Table, records: List[str]) -> str: ...
def visit_probabilities(table: Table) -> np.ndarray: ...
def simulate(
    rules: Tuple[str, bool],
    games: int,
    seed: int,
    policy: str,
    at_least: List[int],
    table: Optional[Table] = None,
) -> Tuple[np.ndarray, str]: ...
def rule_sets() -> List[str]: ...
def simulate_own(
    rules: Union[str, Table],
    upper_first: bool,
    games: int,
    seed: int,
    decide: Callable[[List[Tuple[str, int]], int, List[int], int], Tuple[str, Any]],
    at_least: List[int],
) -> Tuple[np.ndarray, str]: ...
def option_values(
    table: Table,
    cards: np.ndarray,
    yahtzee_bonus: np.ndarray,
    dice: np.ndarray,
    rolls_left: np.ndarray,
) -> np.ndarray: ...
def target_curve(table: Table, card: List[Tuple[str, int]], yahtzee_bonus: int) -> np.ndarray: ...
def boxes(rules: Union[str, Table], upper_first: bool) -> List[str]: ...
def keep_columns(rules: Union[str, Table], upper_first: bool) -> int: ...
def legal_boxes(
    rules: Union[str, Table],
    upper_first: bool,
    card: List[Tuple[str, int]],
    yahtzee_bonus: int,
    dice: List[int],
) -> List[str]: ...
def score(
    rules: Union[str, Table],
    upper_first: bool,
    card: List[Tuple[str, int]],
    yahtzee_bonus: int,
    dice: List[int],
    name: str,
) -> Tuple[str, int, int]: ...
def keeps(dice: List[int]) -> List[List[int]]: ...
