#!/usr/bin/env bash
# Compares this checkout with an older commit, side by side on this machine: the same answers
# (every table file byte for byte, `advise --batch` answers for random positions, targets and
# opponents) and the same speed (the expected-score solve as a process, the advice and target
# queries by criterion, interleaved, medians). Writes a dated Markdown record to
# results/compare-builds-YYYY-MM-DD.md.
#
#   scripts/compare-builds.sh OLD_COMMIT      # from the repository root or anywhere inside it
#
# What it does:
#   1. Checks out OLD_COMMIT into a temporary worktree and builds both trees in release
#      (`cargo build --release`, and the criterion benches `solver` and `target`).
#   2. Tables: `yahtzee solve` of every rule set in both fill orders (expected score), the
#      target and distribution tables of yacht (both orders) and yahtzee, and the early-plies
#      table of the game of two of Yacht (upper-first): one file per build, `cmp`.
#   3. Answers: QUERIES random batch queries per rule set (scripts/random_positions.py: a
#      random card, dice, rolls left, and no objective, a target, or opponents), answered by
#      each build's `advise --batch` with its own tables, compared by
#      scripts/compare_answers.py (values to 1e-12, errors to the letter).
#   4. Speed: RUNS rounds, each timing `solve --rules yahtzee` with the old build then the new
#      (wall time, /usr/bin/time), and one criterion run of `advise/yahtzee/rolls_left_2`
#      (bench solver) and `target/advise/yahtzee/rolls_left_2` (bench target) per build;
#      medians of the rounds, and the new/old ratio of each round.
#
# Environment:
#   RUNS=5        rounds of the speed comparison
#   QUERIES=300   random queries per rule set
#   SKIP_TABLES=1 leave out step 2 (the table files: about 25 minutes of the run)
#   SKIP_ANSWERS=1 leave out step 3 (the answers: with yahtzee's target table to build, long)
#   OLD_TREE=DIR  an existing checkout of OLD_COMMIT to build in (kept, so that a second run
#                 does not build the old tree again); default: a worktree, removed at the end
#   OUT=...       where to write the record (default results/compare-builds-<date>.md)
#
# Needs: cargo, git, python3 (stdlib only), /usr/bin/time. Takes 15 to 30 minutes.

set -euo pipefail

OLD=${1:?usage: scripts/compare-builds.sh OLD_COMMIT}
RUNS=${RUNS:-5}
QUERIES=${QUERIES:-300}
SKIP_TABLES=${SKIP_TABLES:-0}
SKIP_ANSWERS=${SKIP_ANSWERS:-0}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-results/compare-builds-$DATE.md}
NEW_REV=$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo "+changes")
OLD_REV=$(git rev-parse --short "$OLD")
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-compare.XXXXXX")
OLD_TREE=${OLD_TREE:-$WORK/old}
cleanup() {
    if [[ $OLD_TREE == "$WORK/old" ]]; then git worktree remove --force "$WORK/old" >/dev/null 2>&1 || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

log() { echo "[compare-builds] $*" >&2; }

if [[ $OLD_TREE == "$WORK/old" ]]; then
    log "old tree: $OLD_REV in $WORK/old"
    git worktree add --detach --quiet "$WORK/old" "$OLD"
elif [[ $(git -C "$OLD_TREE" rev-parse --short HEAD) != "$OLD_REV" ]]; then
    echo "OLD_TREE=$OLD_TREE is not a checkout of $OLD_REV" >&2
    exit 2
fi
# The benches' package: a workspace member of its own since 2026-12-03 (`benches/Cargo.toml`);
# before, benches of the root package.
bench_package() { # tree -> the cargo arguments that select the benches' package
    if [[ -f $1/benches/Cargo.toml ]]; then echo "-p yahtzee-benches"; fi
}
for tree in "$OLD_TREE" "$REPO"; do
    log "building $tree"
    # shellcheck disable=SC2046 # the package arguments are one word or none
    (cd "$tree" && cargo build --release --quiet && cargo bench $(bench_package "$tree") --no-run --quiet --bench solver --bench target 2>/dev/null)
done
OLD_BIN=$OLD_TREE/target/release/yahtzee
NEW_BIN=$REPO/target/release/yahtzee

# ---- 2. Tables ----------------------------------------------------------------------------
TABLES=$WORK/tables.md
: >"$TABLES"
same_file() { # label args... : solves with both builds into their own file, cmp
    local label=$1
    shift
    for who in old new; do
        local bin=$OLD_BIN
        [[ $who == new ]] && bin=$NEW_BIN
        # A solve never replaces a file holding another game's or objective's table.
        rm -f "$WORK/$who.table"
        YAHTZEE_TABLE_DIR=$WORK/cache-$who "$bin" "$@" --out "$WORK/$who.table" >/dev/null 2>"$WORK/err" || {
            cat "$WORK/err" >&2
            exit 1
        }
    done
    local bytes
    bytes=$(stat -c %s "$WORK/new.table")
    if cmp -s "$WORK/old.table" "$WORK/new.table"; then
        echo "| $label | $bytes | identical |" >>"$TABLES"
        log "$label: identical ($bytes bytes)"
    else
        echo "| $label | $bytes | **DIFFERENT** |" >>"$TABLES"
        log "$label: DIFFERENT"
    fi
}
if [[ $SKIP_TABLES == 1 ]]; then
    echo "| (not compared in this run: SKIP_TABLES=1) | | |" >>"$TABLES"
else
for rules in yacht yahtzee yahtzee-free-joker yahtzee-plain yatzy yacht-dice; do
    same_file "solve --rules $rules" solve --rules "$rules"
    same_file "solve --rules $rules --upper-first" solve --rules "$rules" --upper-first
done
# Six dice and 20 boxes (a minute or two a build), and the example rules files of data/rules/.
same_file "solve --rules maxi-yatzy" solve --rules maxi-yatzy
for file in data/rules/examples/*.toml; do
    same_file "solve --rules $file" solve --rules "$file"
done
for flags in "--rules yacht" "--rules yacht --upper-first" "--rules yahtzee" "--rules yatzy"; do
    # shellcheck disable=SC2086
    same_file "solve $flags --objective target" solve $flags --objective target
    # shellcheck disable=SC2086
    same_file "solve $flags --objective distribution" solve $flags --objective distribution
done
same_file "solve --rules yacht --upper-first --two-player" solve --rules yacht --upper-first --two-player
fi

# ---- 3. Answers -------------------------------------------------------------------------------
ANSWERS=$WORK/answers.md
: >"$ANSWERS"
ANSWER_RULES="yacht yahtzee yatzy"
[[ $SKIP_ANSWERS == 1 ]] && ANSWER_RULES="" && echo "| (not compared in this run: SKIP_ANSWERS=1) | |" >>"$ANSWERS"
for rules in $ANSWER_RULES; do
    python3 scripts/random_positions.py "$NEW_BIN" "$rules" "$QUERIES" 7 >"$WORK/q-$rules"
    for who in old new; do
        bin=$OLD_BIN
        [[ $who == new ]] && bin=$NEW_BIN
        log "answering $QUERIES $rules queries with the $who build"
        # A table folder per build: each answers from the tables it builds itself (on its
        # first query that needs one), so that builds whose table files differ in format (the
        # target and distribution tables changed with issue 24) are compared all the same.
        YAHTZEE_TABLE_DIR=$WORK/cache-answers-$who "$bin" advise --rules "$rules" --batch \
            <"$WORK/q-$rules" >"$WORK/a-$who-$rules" 2>"$WORK/err"
    done
    verdict=$(python3 scripts/compare_answers.py "$WORK/a-old-$rules" "$WORK/a-new-$rules" 1e-12) || {
        echo "$verdict" >&2
        exit 1
    }
    echo "| $rules | $verdict |" >>"$ANSWERS"
    log "$rules: $verdict"
done

# ---- 4. Speed -----------------------------------------------------------------------------------
SPEED=$WORK/speed.tsv # round<TAB>what<TAB>old<TAB>new
: >"$SPEED"
criterion_median() { # tree bench filter -> median estimate in microseconds
    # shellcheck disable=SC2046
    (cd "$1" && cargo bench $(bench_package "$1") --quiet --bench "$2" -- --noplot "$3" 2>/dev/null) |
        python3 -c '
import re, sys
units = {"ns": 1e-3, "µs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6}
for line in sys.stdin:
    m = re.search(r"time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", line)
    if m:
        print(float(m.group(1)) * units[m.group(2)])
        break
'
}
for round in $(seq 1 "$RUNS"); do
    for who in old new; do
        bin=$OLD_BIN
        [[ $who == new ]] && bin=$NEW_BIN
        /usr/bin/time -f "%e" -o "$WORK/time" "$bin" solve --rules yahtzee --out "$WORK/speed.table" >/dev/null 2>&1
        eval "solve_$who=$(cat "$WORK/time")"
    done
    printf '%s\tsolve yahtzee (s, process)\t%s\t%s\n' "$round" "$solve_old" "$solve_new" >>"$SPEED"
    a_old=$(criterion_median "$OLD_TREE" solver "advise/yahtzee/rolls_left_2")
    a_new=$(criterion_median "$REPO" solver "advise/yahtzee/rolls_left_2")
    printf '%s\tadvice query (µs)\t%s\t%s\n' "$round" "$a_old" "$a_new" >>"$SPEED"
    t_old=$(criterion_median "$OLD_TREE" target "target/advise/yahtzee/rolls_left_2")
    t_new=$(criterion_median "$REPO" target "target/advise/yahtzee/rolls_left_2")
    printf '%s\ttarget query (µs)\t%s\t%s\n' "$round" "$t_old" "$t_new" >>"$SPEED"
    log "round $round: solve $solve_old/$solve_new s, advice $a_old/$a_new µs, target $t_old/$t_new µs"
done

LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
{
    echo "# Old build against new, side by side ($DATE)"
    echo
    echo "- Old: \`$OLD_REV\`; new: \`$NEW_REV\`; both built here with their own release profiles."
    echo "- Machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'); load average $LOAD_START at the start, $LOAD_END at the end."
    echo "- Command: \`RUNS=$RUNS QUERIES=$QUERIES SKIP_TABLES=$SKIP_TABLES SKIP_ANSWERS=$SKIP_ANSWERS scripts/compare-builds.sh $OLD\`."
    echo
    echo "## Table files, byte for byte"
    echo
    echo "| table | bytes | old against new |"
    echo "| --- | ---: | --- |"
    cat "$TABLES"
    echo
    echo "## \`advise --batch\` answers for random positions (values to 1e-12, errors to the letter)"
    echo
    echo "Queries from \`scripts/random_positions.py BIN RULES $QUERIES 7\`: random cards, dice and rolls left; a quarter with a target, a sixth with one or two opponents."
    echo
    echo "| rules | result |"
    echo "| --- | --- |"
    cat "$ANSWERS"
    echo
    echo "## Speed, interleaved rounds (old, new, new/old)"
    echo
    python3 - "$SPEED" <<'EOF'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
whats = []
for r in rows:
    if r[1] not in whats:
        whats.append(r[1])
print("| measure | rounds (old / new) | median old | median new | median of new/old |")
print("| --- | --- | ---: | ---: | ---: |")
for w in whats:
    pairs = [(float(r[2]), float(r[3])) for r in rows if r[1] == w]
    rounds = ", ".join(f"{a:.4g} / {b:.4g}" for a, b in pairs)
    mo = statistics.median(a for a, _ in pairs)
    mn = statistics.median(b for _, b in pairs)
    ratio = statistics.median(b / a for a, b in pairs)
    print(f"| {w} | {rounds} | {mo:.4g} | {mn:.4g} | {ratio:.3f} |")
EOF
} >"$OUT"
log "wrote $OUT"
