#!/usr/bin/env bash
# Regenerates results/stats/: the exact distribution of every rule set (summary, JSON, CSV,
# SVG) and simulations of yahtzee under each policy. Run from the repository root after
# `cargo build --release` ($YAHTZEE_BIN names another binary). Tables are built into
# $YAHTZEE_TABLE_DIR (default: the cache folder) when missing.
set -euo pipefail
bin=${YAHTZEE_BIN:-target/release/yahtzee}
out=results/stats
mkdir -p "$out"
for flags in "--rules yahtzee" "--rules yahtzee-free-joker" "--rules yahtzee-plain" \
             "--rules yacht" "--rules yatzy" "--rules yahtzee --upper-first"; do
    name=$(echo "$flags" | sed 's/--rules //; s/ --upper-first/-upper-first/')
    # The time and peak memory of each run (GNU time), beside its output.
    # shellcheck disable=SC2086
    /usr/bin/time -v -o "$out/$name.time.txt" \
        $bin stats $flags --pmf "$out/$name.csv" --plot "$out/$name.svg" > "$out/$name.txt"
    # shellcheck disable=SC2086
    $bin stats $flags --json > "$out/$name.json"
done
for policy in optimal greedy most-common; do
    $bin simulate --rules yahtzee --games 1000000 --seed 1 --policy "$policy" \
        --pmf "$out/simulate-yahtzee-$policy.csv" > "$out/simulate-yahtzee-$policy.txt"
done
