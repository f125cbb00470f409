"""Summarises results/target/: the best chance of reaching each final score (the target
table, one strategy per target) beside the chance of the expected-score strategy (its exact
distribution), for every rule set, as a Markdown table, and for yahtzee as an SVG plot of
both curves. Standard library only.

    python3 scripts/target_summary.py results/target results/stats
"""

import csv
import sys
from pathlib import Path

RULES = ["yahtzee", "yahtzee-free-joker", "yahtzee-plain", "yacht", "yatzy"]
TARGETS = [150, 200, 250, 300, 350, 400]


def reach(path):
    """target -> best chance of a final score of at least target."""
    with open(path) as f:
        return {int(r["target"]): float(r["p_reach"]) for r in csv.DictReader(f)}


def ev_reach(path):
    """target -> chance of a final score of at least target under expected-score play."""
    with open(path) as f:
        pmf = sorted((int(r["score"]), float(r["probability"])) for r in csv.DictReader(f))
    top = pmf[-1][0]
    tail, out, i = 0.0, {}, len(pmf) - 1
    for t in range(top + 1, -1, -1):
        while i >= 0 and pmf[i][0] >= t:
            tail += pmf[i][1]
            i -= 1
        out[t] = tail
    return out


def cell(p):
    """A chance as a percentage; below 0.01% with more digits, never 0 for a nonzero value."""
    if p == 0:
        return "0"
    if p < 1e-4:
        return f"{100 * p:.1e}%"
    return f"{100 * p:.2f}%"


def table(target_dir, stats_dir):
    lines = [
        "# The best chance of reaching a final score, and the expected-score strategy's",
        "",
        "For each rule set and final score T: the best chance over all strategies of a final score of at least T "
        "from an empty card (`yahtzee solve --objective target`: a different strategy for each T), and the chance "
        "of the strategy that maximises the mean (its exact distribution, `yahtzee stats`). Written by "
        "`scripts/target-results.sh`.",
        "",
        "| rules | | " + " | ".join(f"T = {t}" for t in TARGETS) + " |",
        "| --- | --- | " + " | ".join("---:" for _ in TARGETS) + " |",
    ]
    for rules in RULES:
        best = reach(target_dir / f"{rules}-reach.csv")
        ev = ev_reach(stats_dir / f"{rules}.csv")
        lines.append(f"| `{rules}` | best | " + " | ".join(cell(best.get(t, 0.0)) for t in TARGETS) + " |")
        lines.append("| | expected-score strategy | " + " | ".join(cell(ev.get(t, 0.0)) for t in TARGETS) + " |")
    return "\n".join(lines) + "\n"


def plot(target_dir, stats_dir, rules, path):
    """Both curves of `rules` as an SVG line chart."""
    best = reach(target_dir / f"{rules}-reach.csv")
    ev = ev_reach(stats_dir / f"{rules}.csv")
    top = 500
    w, h, left, bottom, top_margin, right = 720, 420, 60, 50, 40, 20
    pw, ph = w - left - right, h - bottom - top_margin

    def xy(t, p):
        return left + pw * t / top, top_margin + ph * (1 - p)

    def line(curve, color, dash=""):
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(t, curve.get(t, 0.0)) for t in range(0, top + 1)))
        return f'<polyline fill="none" stroke="{color}" stroke-width="2" {dash} points="{pts}"/>'

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">']
    out.append(f'<rect width="{w}" height="{h}" fill="white"/>')
    out.append(f'<text x="{w / 2}" y="22" text-anchor="middle" font-size="15">{rules}: chance of a final score of at least T</text>')
    for i in range(0, 11):
        p = i / 10
        x0, y = xy(0, p)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{p:.1f}</text>')
    for t in range(0, top + 1, 50):
        x, y0 = xy(t, 0)
        out.append(f'<line x1="{x:.1f}" y1="{top_margin}" x2="{x:.1f}" y2="{top_margin + ph}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{top_margin + ph + 16}" text-anchor="middle">{t}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{h - 10}" text-anchor="middle">final score T</text>')
    out.append(line(best, "#c0392b"))
    out.append(line(ev, "#2c3e80", 'stroke-dasharray="6,4"'))
    lx, ly = left + pw - 300, top_margin + 20
    out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 30}" y2="{ly}" stroke="#c0392b" stroke-width="2"/>')
    out.append(f'<text x="{lx + 36}" y="{ly + 4}">best chance for each T (its own strategy)</text>')
    out.append(f'<line x1="{lx}" y1="{ly + 20}" x2="{lx + 30}" y2="{ly + 20}" stroke="#2c3e80" stroke-width="2" stroke-dasharray="6,4"/>')
    out.append(f'<text x="{lx + 36}" y="{ly + 24}">expected-score strategy</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def main():
    target_dir, stats_dir = Path(sys.argv[1]), Path(sys.argv[2])
    (target_dir / "README.md").write_text(table(target_dir, stats_dir))
    plot(target_dir, stats_dir, "yahtzee", target_dir / "yahtzee.svg")


if __name__ == "__main__":
    main()
