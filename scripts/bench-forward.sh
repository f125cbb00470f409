#!/usr/bin/env bash
# Times the forward work (the exact distribution of `stats`, the simulation of `simulate`) of
# two builds side by side, as whole processes, and checks that they give the same answers.
# Writes a dated Markdown record to results/forward-work-YYYY-MM-DD.md.
#
#   scripts/bench-forward.sh OLD_BIN [NEW_BIN]   # NEW_BIN: default target/release/yahtzee
#
# OLD_BIN is a `yahtzee` binary of an older commit (for example built in a worktree). Both
# builds read the same tables from $YAHTZEE_TABLE_DIR (or the cache folder), built first by the
# new build so that no timed run builds one.
#
# What it does: RUNS interleaved rounds, each running, with the old build then the new,
# `stats --rules yahtzee`, `stats --rules yatzy` and `simulate --rules yatzy --games GAMES
# --seed 1`; wall time and CPU time (user + system) of each process (/usr/bin/time); medians
# and the median of the per-round ratios new/old. The `--json` outputs of both builds are
# compared once, timings left out: they must be equal to the last digit.
#
# Environment:
#   RUNS=5            interleaved rounds
#   GAMES=1000000     games of the simulation
#   SAME_GAMES=1      also compare the simulations' answers (0 when the builds' dice streams
#                     differ on purpose, as a change of how dice are drawn makes them)
#   OUT=...           where to write the record (default results/forward-work-<date>.md)
#
# Needs: python3 (stdlib only), /usr/bin/time. Takes about 5 minutes on two cores.

set -euo pipefail

OLD=$(realpath "${1:?usage: scripts/bench-forward.sh OLD_BIN [NEW_BIN]}")
ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
NEW=$(realpath "${2:-$ROOT/target/release/yahtzee}")
RUNS=${RUNS:-5}
GAMES=${GAMES:-1000000}
SAME_GAMES=${SAME_GAMES:-1}
OUT=${OUT:-$ROOT/results/forward-work-$(date +%F).md}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

for rules in yahtzee yatzy; do
    "$NEW" solve --rules "$rules" >/dev/null 2>&1 || "$NEW" advise --rules "$rules" --dice 1,2,3,4,5 >/dev/null
done

# The same answers: every field of the JSON but the timings.
strip() { python3 -c '
import json, sys
d = json.load(sys.stdin)
for k in ("seconds", "games_per_second", "threads"):
    d.pop(k, None)
print(json.dumps(d, sort_keys=True))'; }
same=yes
compared=("stats --rules yahtzee" "stats --rules yatzy")
if [[ $SAME_GAMES == 1 ]]; then
    compared+=("simulate --rules yatzy --games 100000 --seed 7")
else
    same="$same (the simulations not compared: SAME_GAMES=0, the dice streams differ)"
fi
for cmd in "${compared[@]}"; do
    # shellcheck disable=SC2086
    a=$("$OLD" $cmd --json | strip)
    # shellcheck disable=SC2086
    b=$("$NEW" $cmd --json | strip)
    if [[ "$a" != "$b" ]]; then same="NO: $cmd differs"; fi
done

echo "name,build,round,wall,cpu" >"$WORK/times.csv"
for round in $(seq 1 "$RUNS"); do
    for name in "stats --rules yahtzee" "stats --rules yatzy" "simulate --rules yatzy --games $GAMES --seed 1"; do
        for build in old new; do
            bin=$OLD
            [[ $build == new ]] && bin=$NEW
            # shellcheck disable=SC2086
            /usr/bin/time -f "%e %U %S" -o "$WORK/t" "$bin" $name >/dev/null 2>"$WORK/err"
            read -r wall user sys <"$WORK/t"
            cpu=$(python3 -c "print($user + $sys)")
            echo "\"$name\",$build,$round,$wall,$cpu" >>"$WORK/times.csv"
            echo "round $round $build $name: $wall s wall, $cpu s CPU" >&2
        done
    done
done

python3 - "$WORK/times.csv" "$OLD" "$NEW" "$RUNS" "$same" >"$WORK/record.md" <<'EOF'
import csv, statistics, sys, subprocess, os
path, old, new, runs, same = sys.argv[1:]
rows = list(csv.DictReader(open(path)))
names = list(dict.fromkeys(r["name"] for r in rows))
load = open("/proc/loadavg").read().split()[:3]
print(f"# Forward work, old build against new ({subprocess.run(['date', '+%F'], capture_output=True, text=True).stdout.strip()})\n")
print(f"- Old: `{old}`; new: `{new}` (commit {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()}).")
print(f"- Machine: {os.cpu_count()} cores; load average at the end {' '.join(load)}; {runs} interleaved rounds, tables present.")
print(f"- Same answers (`--json` of both builds, timings left out): {same}.\n")
print("| command | old wall (median) | new wall (median) | new/old wall | old CPU | new CPU | new/old CPU |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for n in names:
    by = {(r["build"], r["round"]): r for r in rows if r["name"] == n}
    rounds = sorted({r for (_, r) in by})
    med = lambda b, k: statistics.median(float(by[(b, r)][k]) for r in rounds)
    ratio = lambda k: statistics.median(float(by[("new", r)][k]) / float(by[("old", r)][k]) for r in rounds)
    print(f"| `{n}` | {med('old', 'wall'):.2f} s | {med('new', 'wall'):.2f} s | {ratio('wall'):.3f} | "
          f"{med('old', 'cpu'):.2f} s | {med('new', 'cpu'):.2f} s | {ratio('cpu'):.3f} |")
EOF
mkdir -p "$(dirname "$OUT")"
cp "$WORK/record.md" "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
cat "$OUT"
