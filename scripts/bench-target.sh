#!/usr/bin/env bash
# Times the target tables (`yahtzee solve --objective target`) of every rule set and the
# distribution table of yahtzee (`--objective distribution`) as whole processes, with their
# peak memory and file size, and `yahtzee advise --target` and `advise --opponent` as
# processes with the tables on disk, and writes a dated Markdown record to
# results/bench-target-YYYY-MM-DD.md.
#
#   scripts/bench-target.sh           # from the repository root or anywhere inside it
#
# What it does:
#   1. `cargo build --release`.
#   2. For every rule set, one target solve into a temporary folder (yahtzee: RUNS of them,
#      interleaved with the expected-score solve of the same rules, so that the ratio of the
#      two, measured in the same rounds, says how the machine's load moved the figures).
#   3. `advise --target 300` as a process, RUNS times, the tables on disk (the first query of
#      a process reads the target table's index and the cards it needs).
#   4. Wall time, CPU time and peak RSS from /usr/bin/time; file sizes from stat.
#   5. The target query from a loaded table (criterion, `cargo bench -p yahtzee-benches --bench target --
#      advise`), RUNS times, each run measuring the target query and the expected-score
#      query of the same position one after the other: medians of the runs' medians, and the
#      ratio of the two in each run.
#
# Environment:
#   RUNS=3        runs of the yahtzee target solve and of the advice process
#   OUT=...       where to write the record (default results/bench-target-<date>.md)
#
# Needs: cargo, python3 (stdlib only), /usr/bin/time, lscpu. Takes a few minutes.

set -euo pipefail

RUNS=${RUNS:-3}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-results/bench-target-$DATE.md}
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-bench-target.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
TIMES=$WORK/times.tsv # label<TAB>wall<TAB>user<TAB>sys<TAB>peak_kb<TAB>bytes
: >"$TIMES"

log() { echo "[bench-target] $*" >&2; }

log "building our binary (cargo build --release)"
cargo build --release --quiet
BIN=$REPO/target/release/yahtzee
export YAHTZEE_TABLE_DIR=$WORK/tables

# run LABEL FILE ARGS...: one timed process; FILE is the table it writes ("-" for none).
run() {
    local label=$1 file=$2
    shift 2
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$BIN" "$@" >"$WORK/out" 2>"$WORK/err" || {
        cat "$WORK/err" >&2
        exit 1
    }
    local bytes=0
    [[ "$file" != "-" ]] && bytes=$(stat -c %s "$file")
    read -r wall user sys peak <"$WORK/time"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$wall" "$user" "$sys" "$peak" "$bytes" >>"$TIMES"
    log "$label: ${wall}s wall, ${user}s user, ${peak} KB peak"
}

for rules in yacht yahtzee-plain yatzy yahtzee-free-joker; do
    run "target $rules" "$WORK/$rules.target" solve --rules "$rules" --objective target --out "$WORK/$rules.target"
done
mkdir -p "$YAHTZEE_TABLE_DIR"
for i in $(seq 1 "$RUNS"); do
    run "expected-score yahtzee" "$WORK/yahtzee.table" solve --rules yahtzee --out "$WORK/yahtzee.table"
    cp "$WORK/yahtzee.table" "$YAHTZEE_TABLE_DIR/yahtzee.v4.table"
    run "target yahtzee" "$WORK/yahtzee.target" solve --rules yahtzee --objective target --out "$WORK/yahtzee.target"
    run "distribution yahtzee" "$WORK/yahtzee.distribution" solve --rules yahtzee --objective distribution --out "$WORK/yahtzee.distribution"
done
cp "$WORK/yahtzee.target" "$YAHTZEE_TABLE_DIR/yahtzee.target.v4.table"
cp "$WORK/yahtzee.distribution" "$YAHTZEE_TABLE_DIR/yahtzee.distribution.v4.table"
# Win advice: an opponent with 7 boxes open against a player with 7 open (the budget: 1 s a
# query as a process), and both cards empty (the slowest case: the best response solved for
# every card that can follow).
SEVEN=ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18
for i in $(seq 1 "$RUNS"); do
    run "advise --target 300 (process)" - advise --dice 13356 --target 300
    run "advise --opponent, 7 boxes open each (process)" - advise --card "$SEVEN" --dice 13356 --opponent "$SEVEN"
    run "advise --opponent, empty cards (process)" - advise --dice 13356 --opponent ''
done
ADVICE=$(cat "$WORK/out")
cp "$WORK/out" "$WORK/advice.out"
# The query from a loaded table: criterion, RUNS runs; each run's median of each benchmark.
QUERIES=$WORK/queries.tsv # run<TAB>benchmark<TAB>median ns
: >"$QUERIES"
for i in $(seq 1 "$RUNS"); do
    log "criterion run $i of the target query"
    cargo bench -p yahtzee-benches --quiet --bench target -- advise >"$WORK/bench.out" 2>&1 || {
        cat "$WORK/bench.out" >&2
        exit 1
    }
    for d in target/criterion/target/advise*_yahtzee_rolls_left_*; do
        python3 -c 'import json,sys; print(sys.argv[2], sys.argv[3], json.load(open(sys.argv[1]))["median"]["point_estimate"], sep="\t")' \
            "$d/new/estimates.json" "$i" "$(basename "$d")" >>"$QUERIES"
    done
done

COMMIT=$(git rev-parse --short HEAD)
DIRTY=$(git status --porcelain --untracked-files=no | grep -q . && echo " (with uncommitted changes)" || true)
CPU=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
CORES=$(nproc)
FLAGS=$(grep -o -w 'avx512f\|avx2' /proc/cpuinfo | sort -u | paste -sd' ')
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$(dirname "$OUT")"
python3 - "$TIMES" "$OUT" "$QUERIES" <<EOF
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
by = {}
for label, wall, user, sys_, peak, size in rows:
    by.setdefault(label, []).append((float(wall), float(user) + float(sys_), int(peak), int(size)))
def med(xs): return statistics.median(xs)
lines = []
lines.append("# Target and distribution tables: time, memory and size; target and win advice ($DATE)")
lines.append("")
lines.append("Written by \`scripts/bench-target.sh\` (RUNS=$RUNS) at commit $COMMIT$DIRTY.")
lines.append("")
lines.append("- Machine: $CPU, $CORES cores ($FLAGS); load average $LOAD_START at the start, $LOAD_END at the end.")
lines.append("- Every figure is a whole process timed by /usr/bin/time: wall seconds, CPU seconds (user + system), peak RSS; medians over the runs.")
lines.append("")
lines.append("| process | runs | wall (median) | wall (min-max) | CPU | peak memory | file |")
lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for label, xs in by.items():
    walls = [x[0] for x in xs]
    lines.append(f"| \`{label}\` | {len(xs)} | {med(walls):.2f} s | {min(walls):.2f}-{max(walls):.2f} s | {med([x[1] for x in xs]):.1f} s | {med([x[2] for x in xs]) / 1024:.0f} MiB | " + (f"{med([x[3] for x in xs]) / 2**20:.0f} MiB" if xs[0][3] else "-") + " |")
if "target yahtzee" in by and "expected-score yahtzee" in by:
    ratios = [t[0] / e[0] for t, e in zip(by["target yahtzee"], by["expected-score yahtzee"])]
    lines.append("")
    lines.append(f"Target solve / expected-score solve of yahtzee, same rounds: median {med(ratios):.0f}x (min-max {min(ratios):.0f}-{max(ratios):.0f}).")
lines.append("")
queries = {}
for line in open(sys.argv[3]):
    run, name, ns = line.rstrip("\n").split("\t")
    queries.setdefault(name, {})[run] = float(ns)
if queries:
    lines.append("")
    lines.append("The query from a loaded table (criterion, \`cargo bench -p yahtzee-benches --bench target -- advise\`; a yahtzee card with five boxes open, target 250; median of the runs' medians, and each run's):")
    lines.append("")
    lines.append("| benchmark | median | runs |")
    lines.append("| --- | ---: | --- |")
    for name in sorted(queries):
        xs = list(queries[name].values())
        lines.append(f"| \`{name}\` | {med(xs) / 1000:.2f} µs | " + ", ".join(f"{x / 1000:.2f}" for x in xs) + " |")
    for rl in ("2", "0"):
        t, e = queries.get(f"advise_yahtzee_rolls_left_{rl}"), queries.get(f"advise_ev_yahtzee_rolls_left_{rl}")
        if t and e:
            ratios = [t[r] / e[r] for r in t if r in e]
            lines.append("")
            lines.append(f"Target query / expected-score query, {rl} rolls left, same runs: median {med(ratios):.2f}x (min-max {min(ratios):.2f}-{max(ratios):.2f}).")
lines.append("")
lines.append("The last \`advise --opponent\` (empty cards) answered:")
lines.append("")
lines.append("\`\`\`text")
lines.extend(open("$WORK/advice.out").read().splitlines()[:6])
lines.append("\`\`\`")
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
EOF
log "wrote $OUT"
