#!/usr/bin/env bash
# Regenerates results/target/: for every rule set, the best chance of reaching each final
# score from an empty card (the target table, `solve --objective target --curve`), beside the
# chance of the expected-score strategy (its exact distribution, `stats --pmf`), as a table
# (results/target/README.md, the README's table) and, for yahtzee, a plot of both curves
# (results/target/yahtzee.svg). Run from the repository root; builds the binary. Takes about
# five minutes on two cores (each Yahtzee target table most of a minute).
set -euo pipefail
cargo build --release --quiet
bin=target/release/yahtzee
out=results/target
mkdir -p "$out" results/stats
work=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-target.XXXXXX")
trap 'rm -rf "$work"' EXIT
for rules in yahtzee yahtzee-free-joker yahtzee-plain yacht yatzy; do
    echo "[target-results] $rules" >&2
    $bin solve --rules "$rules" --objective target --out "$work/$rules.target" \
        --curve "$out/$rules-reach.csv" --json > "$out/$rules-solve.json"
    # The expected-score strategy's exact distribution, kept with the other statistics.
    if [[ ! -s results/stats/$rules.csv ]]; then
        $bin stats --rules "$rules" --pmf "results/stats/$rules.csv" \
            --plot "results/stats/$rules.svg" > "results/stats/$rules.txt"
    fi
done
python3 scripts/target_summary.py "$out" results/stats
