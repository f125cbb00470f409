"""The figures and numbers of docs/paper/README.md, from the Python package, exactly.

    python docs/paper/figures.py OUT_DIR

writes to OUT_DIR: ``numbers.json`` (every number the paper quotes), and the figures
``distribution.png``, ``events.png`` (the correlation matrix of the boxes), ``frontier.png``
and ``visits.png`` (a heatmap of where optimal games go). Nothing is sampled: every figure is
the exact result of a pass through every state. About half a minute on two cores, the tables
built on first use (about a second each). Needs ``pip install ./python`` and matplotlib.
"""

import json
import sys
import time
from pathlib import Path

import numpy as np

import yahtzee

RULES = "yahtzee"
#: The grid of the risk-sensitive policies (θ = 0 is the expected score's policy).
THETAS = (-0.04, -0.02, -0.01, 0.0, 0.005, 0.01)


def numbers() -> dict:
    """Every number the paper quotes, computed once."""
    table = yahtzee.solve(RULES)
    s = yahtzee.stats(table, events=True)
    visits = yahtzee.visit_probabilities(table)
    front = yahtzee.frontier(table, thetas=THETAS)
    cov = s.covariance
    rows = list(cov.index)
    matrix = cov.to_numpy()
    sd = np.sqrt(np.diag(matrix))
    corr = matrix / np.outer(np.where(sd > 0, sd, 1), np.where(sd > 0, sd, 1))
    # Where optimal games stand at the start of each turn: turns played x upper total.
    v = table.values()
    heat = np.zeros((int(v["turns_played"].max()) + 1, int(v["upper"].max()) + 1))
    np.add.at(heat, (v["turns_played"], v["upper"]), visits)
    return {
        "rules": RULES,
        "expected_score": table.expected_score,
        "mean": s.mean,
        "sd": s.sd,
        "percentiles": {**{f"{k:g}": v for k, v in s.percentiles.items()},
                        "50": s.summary["median"]},
        "events": s.events,
        "bonus_by_five_of_a_kind": s.bonus_by_five_of_a_kind,
        "covariance_rows": rows,
        "covariance_sum": float(matrix.sum()),
        "variance": s.sd**2,
        "correlation": corr.tolist(),
        "pmf": s.pmf.tolist(),
        "frontier": front.policies,
        "best_theta": front.best_theta,
        "visits": heat.tolist(),
    }


def draw(n: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pmf = np.array(n["pmf"])
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.bar(np.arange(len(pmf)), pmf, width=1.0, color="#3b6fb6")
    ax.set_xlim(0, 600)
    ax.set_xlabel("final score")
    ax.set_ylabel("probability")
    ax.set_title(f"{n['rules']}: mean {n['mean']:.4f}, SD {n['sd']:.4f}")
    fig.tight_layout()
    fig.savefig(out / "distribution.png", dpi=120)
    plt.close(fig)

    rows = n["covariance_rows"]
    fig, ax = plt.subplots(figsize=(6.4, 5.6))
    im = ax.imshow(np.array(n["correlation"]), cmap="RdBu_r", vmin=-0.5, vmax=0.5)
    ax.set_xticks(range(len(rows)), rows, rotation=90, fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    ax.set_title("correlation of the boxes' final points")
    fig.colorbar(im, ax=ax, shrink=0.8)
    fig.tight_layout()
    fig.savefig(out / "events.png", dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 4))
    pts = n["frontier"]
    ax.plot([p["std_dev"] for p in pts], [p["mean"] for p in pts], "o-", color="#3b6fb6")
    for p in pts:
        ax.annotate(f"θ={p.get('theta', 0):g}", (p["std_dev"], p["mean"]), fontsize=8,
                    xytext=(4, 4), textcoords="offset points")
    ax.set_xlabel("standard deviation")
    ax.set_ylabel("mean")
    ax.set_title("exponential-utility policies: mean against spread")
    fig.tight_layout()
    fig.savefig(out / "frontier.png", dpi=120)
    plt.close(fig)

    from matplotlib.colors import LogNorm

    heat = np.array(n["visits"])
    fig, ax = plt.subplots(figsize=(7, 3.6))
    shown = np.ma.masked_less(heat.T, 1e-5)
    im = ax.imshow(shown, origin="lower", aspect="auto", cmap="viridis",
                   norm=LogNorm(vmin=1e-5, vmax=1))
    ax.set_xlabel("turns played")
    ax.set_ylabel("upper total (capped at 63)")
    ax.set_title("where optimal games stand at the start of a turn")
    fig.colorbar(im, ax=ax, label="probability")
    fig.tight_layout()
    fig.savefig(out / "visits.png", dpi=120)
    plt.close(fig)


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    clock = time.monotonic()
    n = numbers()
    draw(n, out)
    n["seconds"] = time.monotonic() - clock
    (out / "numbers.json").write_text(json.dumps(n))
    print(f"figures and numbers in {out} ({n['seconds']:.1f} s)")


if __name__ == "__main__":
    main()
