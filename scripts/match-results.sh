#!/usr/bin/env bash
# Matches of the win bots against the expected-score policy (`simulate --match`): writes
# results/match-YYYY-MM-DD.md (machine, commit, commands, games, seconds, each seat's win
# rate with its 95% interval, the gain of the bot over `ev`, the time per decision) and keeps
# each run's JSON report and record in results/match-YYYY-MM-DD/.
#
# Parts (arguments; default: all, in this order):
#   yacht    win,ev and ev,ev at two-player Yacht ($GAMES games)
#   yahtzee  the same at Yahtzee ($GAMES_YAHTZEE games)
#   yatzy    the same at Scandinavian Yatzy ($GAMES_YATZY games)
#   yacht3   win,ev,ev and ev,ev,ev at three-player Yacht ($GAMES games)
#   exact    win-exact,ev at Yacht ($GAMES_EXACT games), against the first games of the
#            yacht part (same seed, so the same dice for the `ev` seat, game for game)
#
# Every match of a part is played on the same seed as its control (ev in every seat): the
# `ev` seats then play the very same games in both (each seat rolls its own dice stream), so
# the gain is also measured game by game against the control, which narrows its interval.
#
# Runs one match at a time (the machine is shared); a run whose report is already there
# (same games and seed) is not played again, so an interrupted script picks up where it
# stopped. Environment: GAMES (110000), GAMES_YAHTZEE and GAMES_YATZY ($GAMES), GAMES_EXACT
# (1000), SEED (1), THREADS (default: every core), BIN (a copy of the binary to play with,
# so that the checkout can be rebuilt during a long run; BIN_COMMIT then names its commit;
# default: build target/release/yahtzee from the checkout). Tables come from
# $YAHTZEE_TABLE_DIR or the cache folder, built first if missing (outside the timed runs).
set -euo pipefail
if [[ -n ${BIN:-} ]]; then
    bin=$BIN
    : "${BIN_COMMIT:?BIN_COMMIT must name the commit BIN was built from}"
else
    cargo build --release --quiet
    bin=target/release/yahtzee
fi
GAMES=${GAMES:-110000}
GAMES_YAHTZEE=${GAMES_YAHTZEE:-$GAMES}
GAMES_YATZY=${GAMES_YATZY:-$GAMES}
GAMES_EXACT=${GAMES_EXACT:-1000}
SEED=${SEED:-1}
threads=()
if [[ -n ${THREADS:-} ]]; then threads=(--threads "$THREADS"); fi
day=${MATCH_DATE:-$(date +%F)}
raw=results/match-$day
# The game records are large (one line per game): kept out of the repository.
work=target/match-results/$day
mkdir -p "$raw" "$work"
parts=("$@")
if [[ ${#parts[@]} -eq 0 ]]; then parts=(yacht yahtzee yatzy yacht3 exact); fi

{
    echo "machine: $(uname -srm), $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
    echo "memory: $(free -g | awk '/^Mem:/ {print $2}') GB"
} > "$raw/machine.txt"

# run NAME RULES LINEUP GAMES: one match, its report in $raw/NAME.json, its games in
# $work/NAME.csv, how it ran in $raw/NAME.meta.
run() {
    local name=$1 rules=$2 lineup=$3 games=$4
    if [[ -s $raw/$name.json && -s $work/$name.csv ]] &&
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if (r["games"], r["seed"]) == (int(sys.argv[2]), int(sys.argv[3])) else 1)' \
            "$raw/$name.json" "$games" "$SEED"; then
        echo "[match-results] $name: already there" >&2
        return
    fi
    # The tables first, outside the timed run.
    $bin simulate --rules "$rules" --match "$lineup" --games 1 --json > /dev/null
    local cmd=("$bin" simulate --rules "$rules" --match "$lineup" --games "$games"
        --seed "$SEED" "${threads[@]}" --json --games-csv "$work/$name.csv")
    echo "[match-results] $name: ${cmd[*]}" >&2
    local load_before
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    /usr/bin/time -f '%e %U %S' -o "$work/$name.time" "${cmd[@]}" > "$work/$name.json"
    mv "$work/$name.json" "$raw/$name.json"
    {
        echo "command: ${cmd[*]}"
        if [[ -n ${BIN:-} ]]; then
            echo "commit: $BIN_COMMIT (binary $bin)"
        else
            echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD -- src Cargo.toml Cargo.lock || echo ' (with uncommitted changes)')"
        fi
        echo "finished: $(date -Iseconds)"
        echo "load before: $load_before"
        echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "wall user system seconds: $(cat "$work/$name.time")"
    } > "$raw/$name.meta"
}

summarise() {
    python3 scripts/match_summary.py "$raw" "$work" "$GAMES_EXACT" > "$raw/summary.tmp"
    mv "$raw/summary.tmp" "results/match-$day.md"
    echo "[match-results] wrote results/match-$day.md" >&2
}

for part in "${parts[@]}"; do
    case $part in
        yacht | yahtzee | yatzy)
            games=$GAMES
            [[ $part == yahtzee ]] && games=$GAMES_YAHTZEE
            [[ $part == yatzy ]] && games=$GAMES_YATZY
            run "$part-ev-ev" "$part" ev,ev "$games"
            run "$part-win-ev" "$part" win,ev "$games"
            ;;
        yacht3)
            run yacht-ev-ev-ev yacht ev,ev,ev "$GAMES"
            run yacht-win-ev-ev yacht win,ev,ev "$GAMES"
            ;;
        exact)
            run yacht-win-exact-ev yacht win-exact,ev "$GAMES_EXACT"
            ;;
        *)
            echo "unknown part $part: the parts are yacht, yahtzee, yatzy, yacht3 and exact" >&2
            exit 2
            ;;
    esac
    summarise
done
