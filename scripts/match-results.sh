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
#   review   how much of the exact best response the fast `win` policy keeps, priced
#            decision by decision: $REVIEW_GAMES seeded Yacht games of `bot:win,bot2`
#            (`yahtzee play`), each reviewed with `review --win` (every decision of both
#            seats priced by the exact best response in chance of winning); the mean chance
#            of a win given away per game by the fast win bot and by the optimal bot.
#            Written to results/match-YYYY-MM-DD/review-win.tsv and review-win.md.
#
# Every match of a part is played on the same seed as its control (ev in every seat): the
# `ev` seats then play the very same games in both (each seat rolls its own dice stream), so
# the gain is also measured game by game against the control, which narrows its interval.
#
# Runs one match at a time (the machine is shared); a run whose report is already there
# (same games and seed) is not played again, so an interrupted script picks up where it
# stopped. Environment: GAMES (110000), GAMES_YAHTZEE and GAMES_YATZY ($GAMES), GAMES_EXACT
# (1000), REVIEW_GAMES (32), SEED (1), THREADS (default: every core), BIN (a copy of the binary to play with,
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
REVIEW_GAMES=${REVIEW_GAMES:-32}
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

# review_win: $REVIEW_GAMES games of bot:win against bot2 at Yacht, each reviewed with the
# exact best response; a row per game (seed, each seat's total loss in chance of winning).
review_win() {
    local tsv=$raw/review-win.tsv started load_before
    started=$(date +%s)
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    printf 'seed\twin_bot_loss\toptimal_bot_loss\twin_bot_score\toptimal_bot_score\n' > "$tsv.tmp"
    for s in $(seq "$SEED" $((SEED + REVIEW_GAMES - 1))); do
        local record=$work/review-win-$s.jsonl
        rm -f "$record"
        $bin play --rules yacht --players bot:win,bot2 --seed "$s" --record "$record" < /dev/null > /dev/null
        $bin review "$record" --win --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
p = {q["player"]: q for q in r["players"]}
print(sys.argv[1], p["bot"]["total_loss"], p["bot2"]["total_loss"], p["bot"]["score"], p["bot2"]["score"], sep="\t")
' "$s" >> "$tsv.tmp"
        echo "[match-results] review of game $s: $(tail -1 "$tsv.tmp")" >&2
    done
    mv "$tsv.tmp" "$tsv"
    python3 - "$tsv" "$REVIEW_GAMES" "$SEED" "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" \
        "$(( $(date +%s) - started ))" "${BIN_COMMIT:-$(git rev-parse --short HEAD)}" > "$raw/review-win.md" <<'PY'
import math, statistics, sys
path, games, seed, before, after, seconds, commit = sys.argv[1:8]
rows = [l.rstrip("\n").split("\t") for l in open(path)][1:]
win = [float(r[1]) for r in rows]
opt = [float(r[2]) for r in rows]
def ci(xs):
    m = statistics.mean(xs)
    h = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return m, h
(mw, hw), (mo, ho) = ci(win), ci(opt)
print(f"# The fast win policy against the exact best response, decision by decision (Yacht)\n")
print(f"{games} seeded games (seeds {seed} to {int(seed) + int(games) - 1}) of "
      f"`yahtzee play --rules yacht --players bot:win,bot2 --seed S`, each priced by "
      f"`yahtzee review GAME --win --json`: every decision of both seats against the exact "
      f"best response to the other's card as it stands (the model of `advise --opponent`). "
      f"Commit {commit}; {seconds} s; load average {before} before, {after} after.\n")
print("| seat | chance of a win given away per game, mean [95%] | games at zero loss |")
print("| --- | --- | ---: |")
print(f"| `bot:win` (the fast win policy) | {mw:.4f} [{mw - hw:.4f}, {mw + hw:.4f}] | {sum(1 for x in win if x == 0)} |")
print(f"| `bot2` (the optimal, expected-score bot) | {mo:.4f} [{mo - ho:.4f}, {mo + ho:.4f}] | {sum(1 for x in opt if x == 0)} |")
if mo > 0:
    print(f"\nAgainst the expected-score bot's loss, the fast win policy keeps "
          f"{100 * (1 - mw / mo):.0f}% of what the exact best response gains over it "
          f"(1 - {mw:.4f} / {mo:.4f}), in the model's own terms.")
PY
    echo "[match-results] wrote $raw/review-win.md" >&2
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
        review)
            review_win
            continue
            ;;
        *)
            echo "unknown part $part: the parts are yacht, yahtzee, yatzy, yacht3, exact and review" >&2
            exit 2
            ;;
    esac
    summarise
done
