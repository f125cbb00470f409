#!/usr/bin/env python3
"""The Markdown of scripts/match-results.sh, on stdout.

Usage: match_summary.py RAW WORK GAMES_EXACT

RAW holds each run's JSON report (`NAME.json`, from `yahtzee simulate --match ... --json`)
and how it ran (`NAME.meta`), WORK each run's games (`NAME.csv`, from `--games-csv`). Runs
are named `RULES-LINEUP` with the policies joined by `-` (`yacht-win-ev`, `yacht-ev-ev`).

The gain of a bot over `ev` is given two ways:
- from the report: the bot's win rate less 1/n (n players), with the report's 95% interval;
- game by game: the bot's share of each game's win (1/k for a tie of k players) less the
  share of the seat in its place in the control run (`ev` in every seat, same seed, so the
  other seats play the very same games in both), averaged, with mean +- 1.96 standard
  errors. The control's expected share is exactly 1/n by symmetry, so both estimate the same
  gain; the second has the smaller interval because the two runs share their dice.
"""

import csv
import json
import math
import sys
from pathlib import Path


def shares(row, seat):
    """The share of the win of `seat` in a game with these final scores."""
    best = max(row)
    return 1.0 / row.count(best) if row[seat] == best else 0.0


def games(work, name, limit=None):
    """The final scores of each game of a run, in game order."""
    with open(work / f"{name}.csv") as f:
        rows = list(csv.reader(f))[1:]
    rows = rows[:limit] if limit else rows
    return [[int(x) for x in r[2:]] for r in rows]


def starts(work, name):
    """Per game: the seat that started it (1 for the first seat)."""
    with open(work / f"{name}.csv") as f:
        return [int(r[1]) for r in list(csv.reader(f))[1:]]


def share_by_start(work, name):
    """Seat 1's share of the win in the games it started and in those it did not."""
    first, later = [], []
    for start, row in zip(starts(work, name), games(work, name)):
        (first if start == 1 else later).append(shares(row, 0))
    return mean_interval(first), mean_interval(later)


def mean_interval(values):
    n = len(values)
    m = sum(values) / n
    var = sum((v - m) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n)
    return m, m - half, m + half


def paired(work, bot, control, limit=None):
    """Per game: seat 1's share in `bot` less seat 1's share in `control`."""
    a, b = games(work, bot, limit), games(work, control, limit)
    assert len(a) == len(b), (bot, control)
    return [shares(x, 0) - shares(y, 0) for x, y in zip(a, b)]


def pp(x):
    return f"{100 * x:+.2f}"


def meta(raw, name):
    out = {}
    for line in (raw / f"{name}.meta").read_text().splitlines():
        key, _, value = line.partition(": ")
        out[key] = value
    return out


def main():
    raw, work, exact_games = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    reports = {p.stem: json.loads(p.read_text()) for p in sorted(raw.glob("*.json"))}
    day = raw.name.removeprefix("match-")
    commits = sorted({meta(raw, n)["commit"] for n in reports})
    lines = [
        f"# Matches of the win bots against the expected-score policy ({day})",
        "",
        "Written by `scripts/match-results.sh` (figures by `scripts/match_summary.py`).",
        "",
        f"- {(raw / 'machine.txt').read_text().strip().replace(chr(10), chr(10) + '- ')}",
        f"- commit: {', '.join(commits)}",
        "- how a match is played: " + next(iter(reports.values()))["order"] if reports else "",
        "- win rate: the share of the games won, a tie of k players for first counting 1/k, "
        "with its 95% interval (Wilson's, from the report); starting and not starting: the "
        "bot's share in the games where it played first and in the others (for two players, "
        "not starting is playing second), mean +- 1.96 standard errors. Gain: the bot's win rate less 1/n "
        "(n players), in percentage points (pp). Paired gain: game by game against the "
        "control run (`ev` in every seat, same seed: the other seats play the same games), "
        "mean +- 1.96 standard errors.",
        "- ms per turn: the time a seat spent choosing, per turn (its preparation, keeps and "
        "box), measured as wall-clock time on the thread that played it: on a busy machine it "
        "includes waiting for a core. The CPU seconds of each run are in its section.",
        "",
    ]

    def gain_row(rules, players, bot="win"):
        lineup = "-".join([bot] + ["ev"] * (players - 1))
        name, control = f"{rules}-{lineup}", f"{rules}-" + "-".join(["ev"] * players)
        if name not in reports or control not in reports:
            return None
        r = reports[name]
        s = r["seats"][0]
        w = s["win_rate"]
        g, lo, hi = mean_interval(paired(work, name, control))
        others = r["seats"][1:]
        (f, f_lo, f_hi), (l, l_lo, l_hi) = share_by_start(work, name)
        return (
            f"| {rules} | {players} | {r['games']} | {w['share']:.4f} [{w['low']:.4f}, "
            f"{w['high']:.4f}] | {f:.4f} [{f_lo:.4f}, {f_hi:.4f}] | {l:.4f} [{l_lo:.4f}, "
            f"{l_hi:.4f}] | {pp(w['share'] - 1 / players)} | {pp(g)} [{pp(lo)}, {pp(hi)}] "
            f"| {s['mean']:.2f} / {sum(o['mean'] for o in others) / len(others):.2f} "
            f"| {s['ms_per_turn']:.3f} / {others[0]['ms_per_turn']:.3f} "
            f"| {meta(raw, name)['wall user system seconds'].split()[0]} |"
        )

    rows = [
        gain_row(rules, players)
        for rules, players in [("yacht", 2), ("yahtzee", 2), ("yatzy", 2), ("yacht", 3)]
    ]
    rows = [r for r in rows if r]
    if rows:
        lines += [
            "## The gain of `win` over `ev`",
            "",
            "| rules | players | games | win rate of `win` [95%] | starting [95%] "
            "| not starting [95%] | gain (pp) | paired gain (pp) [95%] "
            "| mean score win / ev | ms per turn win / ev | seconds |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
            *rows,
            "",
        ]

    if "yacht-win-exact-ev" in reports and {"yacht-win-ev", "yacht-ev-ev"} <= reports.keys():
        n = reports["yacht-win-exact-ev"]["games"]
        exact = paired(work, "yacht-win-exact-ev", "yacht-ev-ev", n)
        fast = paired(work, "yacht-win-ev", "yacht-ev-ev", n)
        ge, ge_lo, ge_hi = mean_interval(exact)
        gf, gf_lo, gf_hi = mean_interval(fast)
        d, d_lo, d_hi = mean_interval(
            [s - t for s, t in zip(
                [shares(x, 0) for x in games(work, "yacht-win-exact-ev", n)],
                [shares(x, 0) for x in games(work, "yacht-win-ev", n)],
            )]
        )
        e = reports["yacht-win-exact-ev"]["seats"][0]
        f = reports["yacht-win-ev"]["seats"][0]
        lines += [
            "## How much of the exact best response's gain `win` keeps (two-player Yacht)",
            "",
            f"The first {n} games of the seed, played by `win-exact` (the best response to the "
            "opponent's final-score distribution, solved at each of its turns), by `win` and by "
            "`ev` (the control) against the same `ev` opponent, who plays the same games in all "
            "three runs.",
            "",
            "| bot | games | paired gain over ev (pp) [95%] | ms per turn |",
            "| --- | --- | --- | --- |",
            f"| win-exact | {n} | {pp(ge)} [{pp(ge_lo)}, {pp(ge_hi)}] | {e['ms_per_turn']:.1f} |",
            f"| win | {n} | {pp(gf)} [{pp(gf_lo)}, {pp(gf_hi)}] | {f['ms_per_turn']:.3f} |",
            "",
            f"win-exact less win, game by game: {pp(d)} pp [{pp(d_lo)}, {pp(d_hi)}]; "
            + (
                f"win keeps {gf / ge:.0%} of the exact gain on these games."
                if ge > 0
                else "the exact gain is not above 0 on these games."
            ),
            "",
        ]
        if n > exact_games:
            lines += [f"(GAMES_EXACT was {exact_games}; the run found has {n} games.)", ""]

    lines += ["## The runs", ""]
    for name, r in reports.items():
        m = meta(raw, name)
        wall, user, system = m["wall user system seconds"].split()
        lines += [
            f"### {name}",
            "",
            f"- `{m['command']}`",
            f"- commit {m['commit']}, finished {m['finished']}",
            f"- {r['games']} games, seed {r['seed']}, {r['threads']} threads: {wall} s wall, "
            f"{user} s user CPU, {system} s system ({r['games_per_second']:.0f} games/s); load "
            f"average {m['load before']} before, {m['load after']} after",
            "",
            "| seat | policy | win rate | 95% interval | ties | mean | 95% interval | ms per turn "
            "| ms per decision |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for s in r["seats"]:
            w, mi = s["win_rate"], s["mean_interval"]
            policy = s["policy"] + (f":{s['target']}" if "target" in s else "")
            lines.append(
                f"| {s['seat']} | {policy} | {w['share']:.4f} | [{w['low']:.4f}, {w['high']:.4f}] "
                f"| {s['ties']} | {s['mean']:.2f} | [{mi['low']:.2f}, {mi['high']:.2f}] "
                f"| {s['ms_per_turn']:.4f} | {s['ms_per_decision']:.4f} |"
            )
        lines += ["", f"tied games: {r['tied_games']}", ""]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
