#!/usr/bin/env bash
# Times what a new user waits for, from a clean clone: the README's first command (advice for
# a roll, the build and the table's solve included), `pip install ./python`, and the README's
# test command (what `.ci/run` runs). Writes a dated Markdown record to
# results/build-YYYY-MM-DD.md.
#
#   scripts/bench-build.sh            # from the repository root or anywhere inside it
#
# What it does:
#   1. Clones this checkout's HEAD into a temporary folder (no build artefact: a clean clone;
#      the crates come from cargo's download cache when they are in it, as the record says).
#   2. `cargo run --release -- advise --dice 1,3,3,5,6` with an empty table folder: wall and
#      CPU time (/usr/bin/time), and the advice's first line. With DOWNLOAD=1, again in a
#      second clone with an empty cargo home, so that every crate is downloaded too.
#   3. A fresh virtual environment, `pip install ./python` in the first clone (after the
#      advice: it reuses the kernel and the core) and in a clone of its own (everything
#      compiled): wall and CPU time; then `cargo tree` of the Python crate, checked for the
#      front ends' crates (clap, tokio, axum, arrow, parquet, plotters, indicatif): none may
#      be there.
#   4. Another clean clone, `CI=true cargo test --release --all-features`: wall and CPU time,
#      and the test counts (skipped with TESTS=0).
#
# Environment:
#   TESTS=1       also time the test command (about ten minutes)
#   DOWNLOAD=1    also time the first command with every crate downloaded (needs crates.io)
#   OUT=...       where to write the record (default results/build-<date>.md)
#
# Needs: cargo, git, python3 with venv, /usr/bin/time; PyPI reachable (maturin).

set -euo pipefail

TESTS=${TESTS:-1}
DOWNLOAD=${DOWNLOAD:-1}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-results/build-$DATE.md}
REV=$(git rev-parse --short HEAD)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-bench-build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
log() { echo "[bench-build] $*" >&2; }
timed() { # label command... : runs it with /usr/bin/time, keeps "wall user sys"
    local label=$1 status=0
    shift
    /usr/bin/time -f "%e %U %S" -o "$WORK/time-$label" "$@" || status=$?
    # A failed command adds a line "Command exited with non-zero status N": the times only.
    sed -i '/^Command /d' "$WORK/time-$label"
    read -r wall user sys <"$WORK/time-$label"
    log "$label: ${wall}s wall, $(python3 -c "print(round($user + $sys, 1))")s CPU"
    return "$status"
}
wall() { cut -d' ' -f1 "$WORK/time-$1"; }
cpu() { python3 -c "import sys; w,u,s = open(sys.argv[1]).read().split(); print(round(float(u) + float(s), 1))" "$WORK/time-$1"; }

git clone --quiet "$REPO" "$WORK/clone"
log "first command in a clean clone"
(cd "$WORK/clone" && YAHTZEE_TABLE_DIR=$WORK/tables timed advise \
    cargo run --release -- advise --dice 1,3,3,5,6 >"$WORK/advice" 2>"$WORK/advice-err")
ADVICE=$(sed -n 3p "$WORK/advice")

if [[ $DOWNLOAD == 1 ]]; then
    log "first command in a clean clone, every crate downloaded (an empty cargo home)"
    git clone --quiet "$REPO" "$WORK/clone-dl"
    (cd "$WORK/clone-dl" && CARGO_HOME=$WORK/cargo-home YAHTZEE_TABLE_DIR=$WORK/tables-dl \
        timed download cargo run --release -- advise --dice 1,3,3,5,6 >/dev/null 2>"$WORK/download-err")
    rm -rf "$WORK/clone-dl" "$WORK/cargo-home"
fi

log "pip install ./python in a fresh venv, in the clone the advice built"
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --upgrade pip >/dev/null
(cd "$WORK/clone" && timed pip "$WORK/venv/bin/pip" install --quiet ./python >/dev/null 2>"$WORK/pip-err")
PY_CHECK=$("$WORK/venv/bin/python" -c "import yahtzee; print(yahtzee.solve('yacht').expected_score)")
log "pip install ./python in a fresh venv, in a clean clone of its own"
git clone --quiet "$REPO" "$WORK/clone-pip"
python3 -m venv "$WORK/venv2"
"$WORK/venv2/bin/pip" install --quiet --upgrade pip >/dev/null
(cd "$WORK/clone-pip" && timed pip-clean "$WORK/venv2/bin/pip" install --quiet ./python >/dev/null 2>"$WORK/pip2-err")
rm -rf "$WORK/clone-pip"
TREE=$(cd "$WORK/clone/python" && cargo tree -e normal --prefix none | awk '{print $1}' | sort -u)
HEAVY=$(echo "$TREE" | grep -E '^(clap|clap_builder|tokio|axum|hyper|arrow.*|parquet|plotters|indicatif)$' || true)
CRATES=$(echo "$TREE" | wc -l)

if [[ $TESTS == 1 ]]; then
    log "the test command in a second clean clone"
    git clone --quiet "$REPO" "$WORK/clone2"
    (cd "$WORK/clone2" && CI=true timed tests cargo test --release --all-features >"$WORK/tests" 2>&1) || {
        tail -40 "$WORK/tests" >&2
        exit 1
    }
    RESULTS=$(grep '^test result' "$WORK/tests" | sed 's/; finished in.*//' | sort | uniq -c | sed 's/^ *//')
fi

LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
{
    echo "# Clean-clone build and test times ($DATE)"
    echo
    echo "- Commit \`$REV\`; machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/Mem:/ {print $2}') GiB; load average $LOAD_START at the start, $LOAD_END at the end."
    echo "- Each step starts from a fresh \`git clone\` (no \`target/\`); the crates come from cargo's download cache (\`~/.cargo/registry\`) and maturin from pip's, as on a machine that has fetched them once."
    echo "- Command: \`TESTS=$TESTS DOWNLOAD=$DOWNLOAD scripts/bench-build.sh\`."
    echo
    echo "| step | wall (s) | CPU (s) | goal |"
    echo "| --- | ---: | ---: | --- |"
    echo "| \`cargo run --release -- advise --dice 1,3,3,5,6\` (build, table solve, advice) | $(wall advise) | $(cpu advise) | 120 s |"
    [[ $DOWNLOAD == 1 ]] && echo "| the same, every crate downloaded (empty cargo home) | $(wall download) | $(cpu download) | 150 s |"
    echo "| \`pip install ./python\` (fresh venv, in the clone the advice built) | $(wall pip) | $(cpu pip) | 180 s |"
    echo "| \`pip install ./python\` (fresh venv, a clean clone of its own) | $(wall pip-clean) | $(cpu pip-clean) | 180 s |"
    [[ $TESTS == 1 ]] && echo "| \`CI=true cargo test --release --all-features\` (every tier) | $(wall tests) | $(cpu tests) | 600 s |"
    echo
    echo "- The advice's first option: \`$ADVICE\`."
    echo "- The Python package: \`yahtzee.solve('yacht').expected_score\` = $PY_CHECK."
    echo "- \`cargo tree\` of the Python crate: $CRATES crates; front-end crates among them (clap, tokio, axum, hyper, arrow, parquet, plotters, indicatif): ${HEAVY:-none}."
    if [[ $TESTS == 1 ]]; then
        echo "- Test results (count of binaries with each result line):"
        echo
        echo '```text'
        echo "$RESULTS"
        echo '```'
    fi
} >"$OUT"
log "wrote $OUT"
