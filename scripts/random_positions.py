#!/usr/bin/env python3
"""Random batch queries for `yahtzee advise --batch`, for comparing two builds' answers.

    scripts/random_positions.py BINARY RULES COUNT SEED > queries.jsonl

Each line is one query of the batch protocol: a random card of RULES (a random set of boxes,
each holding a random value the rules allow, as `yahtzee rules --json` lists them), random dice,
random rolls left, and one objective: none (expected score), a target, or one or two opponents
(each a random card, or a final score). Cards that cannot occur together (too many Yahtzee
bonuses, say) are answered with an error line by both builds alike, which is compared too.
"""

import json
import random
import subprocess
import sys


def possible(text):
    """The values of a box's `possible` text: `0, 7 to 9, 11 to 24` -> [0, 7, 8, 9, 11, ...]."""
    values = []
    for part in text.split(","):
        part = part.strip()
        if " to " in part:
            lo, hi = part.split(" to ")
            values.extend(range(int(lo), int(hi) + 1))
        else:
            values.append(int(part))
    return values


def card(rng, boxes, filled):
    chosen = rng.sample(boxes, filled)
    return {b["name"]: rng.choice(possible(b["possible"])) for b in chosen}


def main():
    binary, rules, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    described = json.loads(
        subprocess.run(
            [binary, "rules", "--rules", rules, "--json"], check=True, capture_output=True
        ).stdout
    )
    boxes = described["boxes"]
    rng = random.Random(seed)
    for _ in range(count):
        n = len(boxes)
        query = {
            "card": card(rng, boxes, rng.randrange(0, n)),
            "dice": [rng.randint(1, 6) for _ in range(5)],
            "rolls_left": rng.randint(0, 2),
        }
        kind = rng.random()
        if kind < 0.25:
            query["target"] = rng.randint(100, 350)
        elif kind < 0.4:
            opponents = []
            for _ in range(rng.randint(1, 2)):
                if rng.random() < 0.3:
                    opponents.append({"final": rng.randint(100, 320)})
                else:
                    # Opponents with most of their card filled: their distributions are quick.
                    opponents.append({"card": card(rng, boxes, rng.randrange(n - 4, n))})
            query["opponents"] = opponents
            # Win advice solves a best response: keep the player's card well filled too.
            query["card"] = card(rng, boxes, rng.randrange(n - 5, n))
        print(json.dumps(query))


if __name__ == "__main__":
    main()
