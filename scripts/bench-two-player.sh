#!/usr/bin/env bash
# Times the exact two-player solve of Yacht (`yahtzee solve --rules yacht --two-player`) as a
# whole process, with its peak memory and the size of the table of the first turns it
# saves, then `yahtzee advise --two-player` as whole processes at positions of every stage
# of a game (the first turns read that table, the later ones solve the rest of their game),
# and writes a dated Markdown record to results/two-player-YYYY-MM-DD.md.
#
#   scripts/bench-two-player.sh        # from the repository root or anywhere inside it
#
# Run it only on a quiet machine: the solve takes both cores for several minutes.
#
# Environment:
#   RUNS=3          runs of each advice process
#   COMPARE=1       also solve the three other pairings of optimal and ev players
#   TIES=1          also solve with the tie chance carried (--ties: P(win), P(tie) apart)
#   MATCH_GAMES=N   also play matches of N games each (default 0: none)
#   MATCHES="two-player,ev two-player,win"   the matches played when MATCH_GAMES is set
#   TABLE_DIR=...   keep the tables there (default: a temporary folder, removed at the end)
#   OUT=...         where to write the record (default results/two-player-<date>.md)
#
# Needs: cargo, /usr/bin/time, lscpu.

set -euo pipefail

RUNS=${RUNS:-3}
COMPARE=${COMPARE:-0}
TIES=${TIES:-0}
MATCH_GAMES=${MATCH_GAMES:-0}
MATCHES=${MATCHES:-two-player,ev two-player,win}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-results/two-player-$DATE.md}
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-bench-two-player.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ROWS=$WORK/rows.md
: >"$ROWS"

log() { echo "[bench-two-player] $*" >&2; }

log "building our binary (cargo build --release)"
cargo build --release --quiet
BIN=$REPO/target/release/yahtzee
export YAHTZEE_TABLE_DIR=${TABLE_DIR:-$WORK/tables}
mkdir -p "$YAHTZEE_TABLE_DIR"
"$BIN" solve --rules yacht >/dev/null
if [[ "$MATCH_GAMES" != 0 ]]; then
    # The win seat's target table, built before the timed runs.
    "$BIN" solve --rules yacht --objective target >/dev/null
fi

# run LABEL ARGS...: one timed process, a row of the record; its stdout stays in $WORK/out.
run() {
    local label=$1
    shift
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$BIN" "$@" >"$WORK/out" 2>"$WORK/err" || {
        cat "$WORK/err" >&2
        exit 1
    }
    read -r wall user sys peak <"$WORK/time"
    printf '| %s | %s | %s | %s | %.0f |\n' "$label" "$wall" "$user" "$sys" "$((peak / 1024))" >>"$ROWS"
    log "$label: ${wall}s wall, ${user}s user, $((peak / 1024)) MiB peak"
}

TABLE=$YAHTZEE_TABLE_DIR/yacht.two-player.v4.table
run "solve --two-player (optimal, optimal)" solve --rules yacht --two-player --json
SOLVE_JSON=$(cat "$WORK/out")
TABLE_BYTES=$(stat -c %s "$TABLE")
COMPARISONS=""
if [[ "$COMPARE" == 1 ]]; then
    for pair in "ev optimal" "optimal ev" "ev ev"; do
        set -- $pair
        run "solve --two-player --first $1 --second $2" solve --rules yacht --two-player --first "$1" --second "$2" --json
        COMPARISONS+=$(cat "$WORK/out")$'\n'
    done
fi

TIES_JSON=""
if [[ "$TIES" == 1 ]]; then
    run "solve --two-player --ties (optimal, optimal)" solve --rules yacht --two-player --ties --json --out "$WORK/ties.table"
    TIES_JSON=$(cat "$WORK/out")
fi

# Positions of every stage: (label, your card, the opponent's card); the first player to
# move has as many boxes filled as the opponent.
advise() {
    local label=$1 card=$2 opponent=$3
    for _ in $(seq "$RUNS"); do
        run "advise --two-player, $label" advise --rules yacht --two-player --card "$card" --opponent "$opponent" --dice 11256 --rolls-left 2
    done
}
advise "new game (ply 0, the table)" "" ""
advise "ply 6 (the table)" "ones=2,twos=4,threes=9" "sixes=18,choice=22,yacht=0"
advise "ply 8 (the table)" "ones=2,twos=4,threes=9,fours=12" "sixes=18,choice=22,yacht=0,fives=15"
advise "ply 9 (solved on demand, the worst case)" "ones=2,twos=4,threes=9,fours=12" "sixes=18,choice=22,yacht=0,fives=15,ones=3"
advise "ply 10 (solved on demand)" "ones=2,twos=4,threes=9,fours=12,fives=10" "sixes=18,choice=22,yacht=0,fives=15,ones=3"
advise "ply 12 (solved on demand)" "ones=2,twos=4,threes=9,fours=12,fives=15,sixes=24" "sixes=18,choice=22,yacht=0,fives=15,ones=3,twos=6"

MATCH_JSON=""
if [[ "$MATCH_GAMES" != 0 ]]; then
    for match in $MATCHES; do
        run "simulate --match $match, $MATCH_GAMES games" simulate --rules yacht --match "$match" --games "$MATCH_GAMES" --seed 1 --json
        MATCH_JSON+=$(cat "$WORK/out")$'\n'
    done
fi

LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
MATCHES_NOTE=""
if [[ "$MATCH_GAMES" != 0 ]]; then MATCHES_NOTE=", MATCHES=\"$MATCHES\""; fi
{
    echo "# Two-player Yacht, solved exactly ($DATE)"
    echo
    echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load average $LOAD_START at the start, $LOAD_END at the end."
    echo "Commit: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with uncommitted changes)')."
    echo
    echo "| process | wall s | user s | sys s | peak MiB |"
    echo "| --- | --- | --- | --- | --- |"
    cat "$ROWS"
    echo
    echo "Table of the first turns: $TABLE_BYTES bytes."
    echo
    echo "The solve's report:"
    echo
    echo '```json'
    echo "$SOLVE_JSON"
    if [[ -n "$COMPARISONS" ]]; then
        echo "$COMPARISONS"
    fi
    if [[ -n "$TIES_JSON" ]]; then
        echo "$TIES_JSON"
    fi
    echo '```'
    if [[ -n "$MATCH_JSON" ]]; then
        echo
        echo "The matches ($MATCHES):"
        echo
        echo '```json'
        printf '%s' "$MATCH_JSON"
        echo '```'
    fi
    echo
    echo "Made by \`scripts/bench-two-player.sh\` (RUNS=$RUNS, COMPARE=$COMPARE, TIES=$TIES, MATCH_GAMES=$MATCH_GAMES$MATCHES_NOTE)."
} >"$OUT"
log "wrote $OUT"
