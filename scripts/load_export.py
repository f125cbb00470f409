#!/usr/bin/env python3
"""Load a `yahtzee export` file (CSV or JSON lines) with the standard library only.

Usage:
    python3 scripts/load_export.py FILE [--rules yahtzee|yacht]

Prints how many rows the file holds and, for decision exports (`--card`, `--policy`), the
five decisions with the largest gap between the best option and the runner-up; for state
values (`--all-states`), the value of a new game. The functions `load`, `filled_boxes` and
`parse_action` are meant to be copied into your own analysis. The schema is in data/README.md.
"""

import csv
import json
import sys

# Box order on the card: bit i of the `filled` column is box i.
BOXES = {
    "yahtzee": [
        "ones", "twos", "threes", "fours", "fives", "sixes", "three-of-a-kind",
        "four-of-a-kind", "full-house", "small-straight", "large-straight", "yahtzee", "chance",
    ],
    "yacht": [
        "ones", "twos", "threes", "fours", "fives", "sixes", "full-house", "four-of-a-kind",
        "little-straight", "big-straight", "choice", "yacht",
    ],
}

INTEGER = {"filled", "upper", "rolls_left", "turns_played", "needed", "saved"}
FLOAT = {"expected", "gap", "expected_remaining", "gap_2", "gap_1", "p_reach",
         "visit_probability", "faced_probability"}
BOOLEAN = {"yahtzee_50"}
TEXT = {"dice", "best", "runner_up", "pattern", "best_2", "runner_up_2", "best_1", "runner_up_1"}


def _typed(row):
    """Turns CSV strings into numbers, booleans and None (empty cells)."""
    out = {}
    for key, value in row.items():
        if value == "" or value is None:
            out[key] = None
        elif key in INTEGER:
            out[key] = int(value)
        elif key in FLOAT:
            out[key] = float(value)
        elif key in BOOLEAN:
            out[key] = value in (True, "true")
        else:
            out[key] = str(value)  # dice "13356" stay text: they are faces, not a number
    return out


def load(path):
    """All rows of an export as a list of dicts, typed the same from CSV and JSON lines."""
    with open(path, newline="", encoding="utf-8") as f:
        first = f.readline()
        f.seek(0)
        if first.lstrip().startswith("{"):
            # The first line of JSON lines is the metadata (title, notes, rules, version).
            rows = (json.loads(line) for line in f if line.strip())
            return [row for row in rows if "metadata" not in row]
        return [_typed(row) for row in csv.DictReader(f)]


def filled_boxes(mask, rules="yahtzee"):
    """The names of the filled boxes of a `filled` bit mask."""
    family = "yacht" if rules == "yacht" else "yahtzee"
    return [name for i, name in enumerate(BOXES[family]) if mask >> i & 1]


def parse_action(text):
    """('keep', [faces]) for a keep (`-` keeps nothing), ('score', box) for a box, or None.

    Under saved rolls a box is written with the re-rolls it saves, `chance (saves 3)`: the
    box alone is returned (what it saves is the row's rolls left)."""
    if text is None:
        return None
    if text == "-":
        return ("keep", [])
    if text.isdigit():
        return ("keep", [int(c) for c in text])
    return ("score", text.split(" (saves ")[0])


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path = argv[1]
    rules = argv[argv.index("--rules") + 1] if "--rules" in argv else "yahtzee"
    rows = load(path)
    print(f"{path}: {len(rows)} rows")
    if rows and "best" in rows[0]:
        ranked = sorted((r for r in rows if r["gap"] is not None), key=lambda r: -r["gap"])
        for r in ranked[:5]:
            kind, what = parse_action(r["best"])
            print(
                f"  dice {r['dice']}, {r['rolls_left']} rolls left, filled "
                f"{filled_boxes(r['filled'], rules) or 'nothing'}: {kind} {what} "
                f"(expected {r['expected']:.4f}), runner-up {r['runner_up']}, gap {r['gap']:.4f}"
            )
    elif rows and "expected_remaining" in rows[0]:
        start = next(r for r in rows if r["filled"] == 0 and not r["yahtzee_50"])
        print(f"  a new game is worth {start['expected_remaining']:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
