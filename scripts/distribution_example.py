#!/usr/bin/env python3
"""The exact distribution of the final score under optimal play, from the Python package, as a
histogram: a notebook-style example in plain Python.

    pip install ./python matplotlib
    python3 scripts/distribution_example.py yahtzee.png [--rules yahtzee] [--upper-first]

Loads (or builds once) the strategy table, computes the exact distribution (nothing sampled:
`yahtzee.stats`), prints its summary and draws P(score = s) against s with the mean and the
10th and 90th percentiles marked, to the PNG file given.
"""

import argparse

import matplotlib

matplotlib.use("Agg")  # no window: write the file only
import matplotlib.pyplot as plt  # noqa: E402

import yahtzee  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("png", help="the PNG file to write")
    parser.add_argument("--rules", default="yahtzee", choices=yahtzee.RULE_SETS)
    parser.add_argument("--upper-first", action="store_true")
    args = parser.parse_args()

    # The distribution: pmf[s] is the probability of a final score of exactly s.
    dist = yahtzee.stats(args.rules, upper_first=args.upper_first)
    summary = dist.summary
    percentile = {p["percent"]: p["score"] for p in summary["percentiles"]}
    print(f"{args.rules}: mean {dist.mean:.4f}, standard deviation {dist.std_dev:.4f}, "
          f"median {summary['median']}, lowest {summary['min']}, highest {summary['max']}")
    print(f"P(sum) = {dist.pmf.sum():.12f}")

    # Most of the mass is below 600 for the Yahtzee rule sets; the long tail of Yahtzee
    # bonuses (up to 1,575) would flatten the plot, so it stops at the 99.99th percentile.
    cumulative = dist.pmf.cumsum()
    top = int((cumulative < 0.9999).sum()) + 1

    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.bar(dist.support[:top], dist.pmf[:top], width=1.0, color="#4477aa")
    ax.axvline(dist.mean, color="#cc3311", label=f"mean {dist.mean:.1f}")
    for p in (10, 90):
        ax.axvline(percentile[p], color="#999999", linestyle="--", label=f"{p}th percentile {percentile[p]}")
    label = args.rules + (" (upper section first)" if args.upper_first else "")
    ax.set_title(f"Final score under optimal play: {label} (exact)")
    ax.set_xlabel("final score")
    ax.set_ylabel("probability")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.png, dpi=100)
    print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
