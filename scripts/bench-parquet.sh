#!/usr/bin/env bash
# The Parquet export against CSV: the full `yahtzee` policy (405,457,920 rows) written as CSV
# and as Parquet, each timed as a whole process (wall, CPU, peak memory) with its file size;
# and what the parquet crate (and zstd) add to a clean release build (time and binary size,
# against the commit before them). Writes a dated Markdown record to
# results/parquet-YYYY-MM-DD.md.
#
#   scripts/bench-parquet.sh          # from the repository root or anywhere inside it
#
# Environment:
#   SCOPE="--all-states --policy"   the export measured (e.g. "--rules yacht --all-states
#                                    --policy" for a quick run)
#   BUILDS=1                         also the two clean builds (0: skip them)
#   BASE=<commit>                    the build without Parquet (default: the parent of the
#                                    commit that added src/export/parquet.rs)
#   OUT=...                          the record (default results/parquet-<date>.md)
#
# Needs: cargo, git, /usr/bin/time, lscpu, and free disk for the CSV (21.1 GB for the full
# policy; the files are deleted afterwards). Takes about an hour on two busy cores.

set -euo pipefail

REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-results/parquet-$DATE.md}
SCOPE=${SCOPE:---all-states --policy}
BUILDS=${BUILDS:-1}
BASE=${BASE:-$(git log --diff-filter=A --format=%H -- src/export/parquet.rs | tail -1)~1}
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-bench-parquet.XXXXXX")
cleanup() {
    git worktree remove --force "$WORK/base" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
TIMES=$WORK/times.tsv # label<TAB>wall<TAB>user<TAB>sys<TAB>peak_kb<TAB>bytes<TAB>rows
: >"$TIMES"

log() { echo "[bench-parquet] $*" >&2; }

log "building (cargo build --release)"
cargo build --release --features full --quiet
BIN=$REPO/target/release/yahtzee
export YAHTZEE_TABLE_DIR=$WORK/tables
"$BIN" solve >/dev/null

# timed LABEL FILE COMMAND...: one timed process; FILE is what it writes ("-" for none).
timed() {
    local label=$1 file=$2
    shift 2
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$@" >"$WORK/out" 2>"$WORK/err" || {
        cat "$WORK/err" >&2
        exit 1
    }
    local bytes=0 rows=""
    [[ "$file" != "-" ]] && bytes=$(stat -c %s "$file")
    rows=$(grep -o 'wrote [0-9]* rows' "$WORK/err" | grep -o '[0-9]*' || true)
    read -r wall user sys peak <"$WORK/time"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$wall" "$user" "$sys" "$peak" "$bytes" "$rows" >>"$TIMES"
    log "$label: ${wall}s wall, ${user}s user, ${sys}s sys, ${peak} KB peak, $bytes bytes"
}

FREE=$(df -B1 --output=avail "$WORK" | tail -1)
log "free disk in $WORK: $((FREE / 1000000000)) GB"
# shellcheck disable=SC2086
for format in csv parquet; do
    timed "export $format" "$WORK/policy.$format" "$BIN" export $SCOPE --format $format --out "$WORK/policy.$format"
    rm -f "$WORK/policy.$format"
done

if [[ "$BUILDS" == 1 ]]; then
    git worktree add --detach --quiet "$WORK/base" "$BASE"
    for which in base head; do
        src=$REPO
        [[ $which == base ]] && src=$WORK/base
        log "clean release build of $which"
        timed "clean build $which" - env CARGO_TARGET_DIR="$WORK/target-$which" \
            cargo build --release --quiet --manifest-path "$src/Cargo.toml"
        cp "$WORK/target-$which/release/yahtzee" "$WORK/yahtzee-$which"
        stat -c %s "$WORK/yahtzee-$which" >"$WORK/size-$which"
        rm -rf "$WORK/target-$which"
    done
fi

field() { awk -F'\t' -v l="$1" -v c="$2" '$1 == l { print $c }' "$TIMES"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
{
    echo "# Parquet export against CSV, $DATE"
    echo
    echo "Made by \`scripts/bench-parquet.sh\` (SCOPE=\`$SCOPE\`, BUILDS=$BUILDS)."
    echo
    echo "- commit: $(git rev-parse --short HEAD) ($(git log -1 --format=%s | cut -c1-80))"
    echo "- machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, shared with other work"
    echo "- load average at the start: $LOAD_START; at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- each figure is one whole process timed by GNU time"
    echo
    echo "## \`yahtzee export $SCOPE\`"
    echo
    echo "| format | rows | bytes | bytes a row | wall (s) | user (s) | sys (s) | peak memory (MB) |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for format in csv parquet; do
        l="export $format"
        rows=$(field "$l" 7)
        bytes=$(field "$l" 6)
        echo "| $format | $rows | $bytes | $(ratio "$bytes" "$rows") | $(field "$l" 2) | $(field "$l" 3) | $(field "$l" 4) | $(( $(field "$l" 5) / 1024 )) |"
    done
    echo
    csv_cpu=$(awk -v u="$(field 'export csv' 3)" -v s="$(field 'export csv' 4)" 'BEGIN { print u + s }')
    pq_cpu=$(awk -v u="$(field 'export parquet' 3)" -v s="$(field 'export parquet' 4)" 'BEGIN { print u + s }')
    echo "- Parquet size / CSV size: $(ratio "$(field 'export parquet' 6)" "$(field 'export csv' 6)") (goal: at most 0.10); CSV is $(ratio "$(field 'export csv' 6)" "$(field 'export parquet' 6)") times as large."
    echo "- Parquet time / CSV time: wall $(ratio "$(field 'export parquet' 2)" "$(field 'export csv' 2)"), CPU $(ratio "$pq_cpu" "$csv_cpu") (goal: no slower)."
    if [[ "$BUILDS" == 1 ]]; then
        echo
        echo "## Clean release build (\`cargo build --release\`, empty target folder)"
        echo
        echo "| tree | wall (s) | user (s) | binary (bytes) |"
        echo "| --- | ---: | ---: | ---: |"
        echo "| without Parquet ($(git rev-parse --short "$BASE")) | $(field 'clean build base' 2) | $(field 'clean build base' 3) | $(cat "$WORK/size-base") |"
        echo "| with Parquet ($(git rev-parse --short HEAD)) | $(field 'clean build head' 2) | $(field 'clean build head' 3) | $(cat "$WORK/size-head") |"
        echo
        echo "The head takes $(ratio "$(field 'clean build head' 2)" "$(field 'clean build base' 2)") times the base's build wall time and $(( ($(cat "$WORK/size-head") - $(cat "$WORK/size-base")) / 1024 )) KiB more of binary: everything added"
        echo "between the two commits (other crates, such as the server's, included), not the Parquet crates alone."
    fi
    echo
    echo "## Every run"
    echo
    echo '```text'
    cat "$TIMES"
    echo '```'
} >"$OUT"
log "wrote $OUT"
