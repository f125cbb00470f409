#!/usr/bin/env bash
# Builds the target and distribution tables with two binaries, the one before a change and
# this tree's, interleaved (before, after, before, after, ...), and writes a dated Markdown
# record of each build's wall time, CPU time, peak memory and file size, and of the first
# advice of a process reading each binary's own tables, to results/vector-tables-YYYY-MM-DD.md.
# It then checks that both binaries give the same answers: random positions
# (`scripts/random_positions.py`: expected-score, target and opponent queries) answered by
# `advise --batch` with each binary's tables, compared by `scripts/compare_answers.py` with a
# tolerance of 0.
#
#   BEFORE=/path/to/main/yahtzee scripts/bench-vector-tables.sh
#
# Environment:
#   BEFORE=...     the binary to compare against (required: copy main's build aside first)
#   RUNS=3         builds of yahtzee's target table per binary
#   OTHER_RUNS=1   builds of the other tables (yahtzee's distribution, yatzy's and yacht's
#                  target) per binary
#   QUERIES=200    random positions answered by both
#   OUT=...        the record (default results/vector-tables-<date>.md)
#
# Needs: cargo, python3 (stdlib only), /usr/bin/time. On 2 cores, 20 to 60 minutes.

set -euo pipefail

: "${BEFORE:?set BEFORE to the binary to compare against}"
RUNS=${RUNS:-3}
OTHER_RUNS=${OTHER_RUNS:-1}
QUERIES=${QUERIES:-200}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-results/vector-tables-$DATE.md}
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-vector-tables.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
TIMES=$WORK/times.tsv # binary<TAB>label<TAB>wall<TAB>cpu<TAB>peak_kb<TAB>bytes
: >"$TIMES"

log() { echo "[bench-vector-tables] $*" >&2; }

log "building this tree (cargo build --release)"
cargo build --release --quiet
AFTER=$REPO/target/release/yahtzee
cp "$BEFORE" "$WORK/before"
cp "$AFTER" "$WORK/after"
mkdir -p "$WORK/tables-before" "$WORK/tables-after"

# run WHICH LABEL FILE ARGS...: one timed process of binary WHICH (before, after) with its own
# table folder, its input from the file IN (default none); FILE is the table it writes ("-"
# for none).
run() {
    local which=$1 label=$2 file=$3
    shift 3
    YAHTZEE_TABLE_DIR=$WORK/tables-$which /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" \
        "$WORK/$which" "$@" <"${IN:-/dev/null}" >"$WORK/out" 2>"$WORK/err" || {
        cat "$WORK/err" >&2
        exit 1
    }
    local bytes=0
    [[ "$file" != "-" ]] && bytes=$(stat -c %s "$file")
    read -r wall user sys peak <"$WORK/time"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$which" "$label" "$wall" \
        "$(python3 -c "print($user + $sys)")" "$peak" "$bytes" >>"$TIMES"
    log "$which, $label: ${wall}s wall, ${user}s user, ${peak} KB peak, $bytes bytes"
}

# build RULES OBJECTIVE RUNS: the table built RUNS times by each binary, interleaved; the
# last build of each kept in its table folder under its default name.
build() {
    local rules=$1 objective=$2 runs=$3
    for i in $(seq 1 "$runs"); do
        for which in before after; do
            local file=$WORK/$which.$rules.$objective
            run "$which" "$objective $rules" "$file" solve --rules "$rules" --objective "$objective" --out "$file"
        done
    done
    for which in before after; do
        mv "$WORK/$which.$rules.$objective" "$WORK/tables-$which/$rules.$objective.v4.table"
    done
}

for which in before after; do
    YAHTZEE_TABLE_DIR=$WORK/tables-$which "$WORK/$which" solve --rules yahtzee >/dev/null 2>&1
done
build yacht target "$RUNS"
build yahtzee target "$RUNS"
build yahtzee distribution "$OTHER_RUNS"
build yatzy target "$OTHER_RUNS"

# The first advice of a process: the target table's index and the cards the turn reads (for
# the new files, the cards left out solved again).
SIX=ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18
for i in $(seq 1 "$RUNS"); do
    for which in before after; do
        run "$which" "advise --target 300, empty card" - advise --dice 13356 --target 300
        run "$which" "advise --target 120, 6 boxes filled" - advise --card "$SIX" --dice 13356 --target 120
        run "$which" "advise --target 60, 7 boxes filled" - advise --card "$SIX,chance=20" --dice 13356 --target 60
    done
done

log "answering $QUERIES random positions with each binary"
python3 scripts/random_positions.py "$WORK/after" yahtzee "$QUERIES" 24 >"$WORK/queries.jsonl"
for which in before after; do
    IN=$WORK/queries.jsonl run "$which" "advise --batch, $QUERIES random positions" - advise --batch
    cp "$WORK/out" "$WORK/answers-$which.jsonl"
done
COMPARED=$(python3 scripts/compare_answers.py "$WORK/answers-before.jsonl" "$WORK/answers-after.jsonl" 0)
log "$COMPARED"

COMMIT=$(git rev-parse --short HEAD)
DIRTY=$(git status --porcelain --untracked-files=no | grep -q . && echo " (with uncommitted changes)" || true)
CPU=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$(dirname "$OUT")"
python3 - "$TIMES" "$OUT" "$COMPARED" <<EOF
import statistics, sys
by = {}
for line in open(sys.argv[1]):
    which, label, wall, cpu, peak, size = line.rstrip("\n").split("\t")
    by.setdefault(label, {}).setdefault(which, []).append((float(wall), float(cpu), int(peak), int(size)))
med = statistics.median
out = []
out.append("# Target and distribution tables before and after ($DATE)")
out.append("")
out.append("Written by \`scripts/bench-vector-tables.sh\` (RUNS=$RUNS, OTHER_RUNS=$OTHER_RUNS) at commit $COMMIT$DIRTY: \`before\` is the binary given as BEFORE, \`after\` this tree's build, run in turns (before, after, before, ...).")
out.append("")
out.append("- Machine: $CPU, $(nproc) cores, shared with other work; load average $LOAD_START at the start, $LOAD_END at the end. Wall times move with the load; CPU time (user + system) much less.")
out.append("- Every figure is a whole process timed by /usr/bin/time; medians over the runs (min-max in brackets).")
out.append("")
out.append("| process | binary | runs | wall | CPU | peak memory | file |")
out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for label, whiches in by.items():
    for which in ("before", "after"):
        xs = whiches.get(which, [])
        if not xs:
            continue
        walls = [x[0] for x in xs]
        cpus = [x[1] for x in xs]
        size = f"{med([x[3] for x in xs]) / 1e6:.1f} MB" if xs[0][3] else "-"
        out.append(f"| \`{label}\` | {which} | {len(xs)} | {med(walls):.2f} s ({min(walls):.2f}-{max(walls):.2f}) | {med(cpus):.2f} s ({min(cpus):.2f}-{max(cpus):.2f}) | {med([x[2] for x in xs]) / 1024:.0f} MiB | {size} |")
out.append("")
out.append("The same answers: " + sys.argv[3])
open(sys.argv[2], "w").write("\n".join(out) + "\n")
EOF
log "wrote $OUT"
