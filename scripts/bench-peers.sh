#!/usr/bin/env bash
# Times our solver against the two Rust solvers on crates.io, as whole processes, and writes a
# dated Markdown record to results/bench-peers-YYYY-MM-DD.md.
#
#   scripts/bench-peers.sh            # from the repository root or anywhere inside it
#
# What it does:
#   1. `cargo build --release` of our binary.
#   2. Builds yatzy-solver 1.0.0 and yahtzee-engine 0.1.0 in a throwaway cargo project each,
#      in a temporary folder OUTSIDE the repository (never dependencies of this project). Each
#      has a tiny main.rs that runs one full solve of standard Yahtzee (forced Joker) and
#      prints the expected score and the seconds.
#   3. Times whole processes in interleaved rounds (ours on two threads, peer 1, peer 2, ours
#      on one thread; then the next round): RUNS rounds for ours, the peers in the first
#      PEER_RUNS of them. Then our Yacht solve, `yahtzee advise` as a process with the table
#      present, and `advise --batch` throughput on one thread.
#   4. Peak RSS of each solve from /usr/bin/time -f %M (when /usr/bin/time exists).
#
# Environment:
#   RUNS=5            runs of each of our timed processes
#   PEER_RUNS=3       runs of each peer (a peer's solve takes 10-25 s on a busy machine)
#   BATCH_QUERIES=20000  lines fed to `advise --batch`, BATCH_RUNS=3 times
#   PEER_DIR=...      reuse this folder for the peers' projects (default: a fresh temp folder,
#                     removed at the end); it must be outside the repository.
#   OUT=...           where to write the record (default results/bench-peers-<date>.md)
#
# Needs: cargo, python3 (stdlib only), lscpu; /usr/bin/time for peak RSS (else "n/a").
# Takes about 5 minutes on a busy two-core machine: a third compiling, most of the rest in
# the peers' solves.

set -euo pipefail

RUNS=${RUNS:-5}
PEER_RUNS=${PEER_RUNS:-3}
BATCH_RUNS=${BATCH_RUNS:-3}
BATCH_QUERIES=${BATCH_QUERIES:-20000}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-results/bench-peers-$DATE.md}
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-bench.XXXXXX")
if [[ -n "${PEER_DIR:-}" ]]; then
    mkdir -p "$PEER_DIR"
    PEERS=$(cd "$PEER_DIR" && pwd)
else
    PEERS=$WORK/peers
fi
case "$PEERS/" in
"$REPO"/*) echo "PEER_DIR must be outside the repository ($REPO)" >&2; exit 2 ;;
esac
trap 'rm -rf "$WORK"' EXIT
TIMES=$WORK/times.tsv # kind<TAB>label<TAB>seconds<TAB>peak_kb<TAB>reported
: >"$TIMES"

log() { echo "[bench-peers] $*" >&2; }

# --- 1. Our binary -------------------------------------------------------------------------
log "building our binary (cargo build --release)"
cargo build --release --quiet
OURS=$REPO/target/release/yahtzee

# --- 2. The peers, each in its own throwaway project ---------------------------------------
# yatzy-solver 1.0.0: `Variant::american_with(Some(JokerRule::Forced))` is the official
# forced Joker; `Variant::american()` is Verhoeff's free Joker (254.5896). Solver::build solves
# on the rayon pool (feature `parallel`, on by default).
mkdir -p "$PEERS/yatzy-solver/src" "$PEERS/yahtzee-engine/src"
cat >"$PEERS/yatzy-solver/Cargo.toml" <<'EOF'
[package]
name = "peer-yatzy-solver"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
yatzy-solver = "=1.0.0"

[workspace]
EOF
cat >"$PEERS/yatzy-solver/src/main.rs" <<'EOF'
//! One full solve of American rules with yatzy-solver 1.0.0. Argument: `forced` (default, the
//! official forced Joker) or `free` (Verhoeff's free Joker).
use std::time::Instant;
use yatzy_solver::{JokerRule, Solver, State, Variant};

fn main() {
    let joker = match std::env::args().nth(1).as_deref() {
        None | Some("forced") => JokerRule::Forced,
        Some("free") => JokerRule::Free,
        Some(other) => panic!("unknown joker rule {other}: use forced or free"),
    };
    let start = Instant::now();
    let variant = Variant::american_with(Some(joker));
    let solver = Solver::build(&variant);
    let value = solver.state_value(&State::new());
    let secs = start.elapsed().as_secs_f64();
    println!("{} expected {value:.10} seconds {secs:.3}", variant.id());
}
EOF
# yahtzee-engine 0.1.0: official forced-Joker rules only; feature `parallel` solves each tier
# on the rayon pool (off by default, so we turn it on for a fair comparison).
cat >"$PEERS/yahtzee-engine/Cargo.toml" <<'EOF'
[package]
name = "peer-yahtzee-engine"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
yahtzee-engine = { version = "=0.1.0", default-features = false, features = ["parallel"] }

[workspace]
EOF
cat >"$PEERS/yahtzee-engine/src/main.rs" <<'EOF'
//! One full solve of official Yahtzee (forced Joker) with yahtzee-engine 0.1.0.
use std::time::Instant;
use yahtzee_engine::{Solver, State};

fn main() {
    let start = Instant::now();
    let mut solver = Solver::new();
    solver.solve();
    let value = solver.value(State::START);
    let secs = start.elapsed().as_secs_f64();
    println!("forced-joker expected {value:.10} seconds {secs:.3}");
}
EOF
for peer in yatzy-solver yahtzee-engine; do
    log "building peer $peer in $PEERS/$peer"
    # One target folder for both, so their shared dependencies (rayon) compile once.
    (cd "$PEERS/$peer" && CARGO_TARGET_DIR="$PEERS/target" cargo build --release --quiet)
done
PEER1=$PEERS/target/release/peer-yatzy-solver
PEER2=$PEERS/target/release/peer-yahtzee-engine
# The versions cargo resolved for each peer and its rayon (the peers' lock files are not used).
versions() { (cd "$PEERS/$1" && cargo tree --prefix none -e normal 2>/dev/null | grep -E "^($1|rayon) v" | sort -u | paste -sd, | sed 's/,/, /g'); }
PEER1_VERSIONS=$(versions yatzy-solver)
PEER2_VERSIONS=$(versions yahtzee-engine)

# --- 3. Timing -----------------------------------------------------------------------------
if [[ -x /usr/bin/time ]]; then HAVE_TIME=1; else HAVE_TIME=0; fi

# timed KIND LABEL CMD...: runs CMD once, appends wall seconds, peak RSS (KB) and the first
# line of its stdout (cut to 110 characters) to $TIMES.
timed() {
    local kind=$1 label=$2
    shift 2
    local start end peak=n/a
    start=$(date +%s.%N)
    if ((HAVE_TIME)); then
        /usr/bin/time -f %M -o "$WORK/rss" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
        peak=$(tail -n1 "$WORK/rss")
    else
        "$@" >"$WORK/stdout" 2>"$WORK/stderr"
    fi
    end=$(date +%s.%N)
    printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$label" "$(python3 -c "print(f'{$end - $start:.4f}')")" \
        "$peak" "$(head -n1 "$WORK/stdout" | cut -c1-110)" >>"$TIMES"
}

TABLE=$WORK/yahtzee.table
YACHT_TABLE=$WORK/yacht.table
CMD_OURS2="RAYON_NUM_THREADS=2 target/release/yahtzee solve --rules yahtzee --out $TABLE"
CMD_OURS1="target/release/yahtzee solve --rules yahtzee --threads 1 --out $TABLE"
CMD_PEER1="RAYON_NUM_THREADS=2 $PEER1 forced"
CMD_PEER2="RAYON_NUM_THREADS=2 $PEER2"

# One untimed run of ours first (it also writes the table the advice timings read). The peers
# get no warm-up: a warm-up would cost 40 s here and their binaries are small.
log "warm-up: one run of ours"
RAYON_NUM_THREADS=2 "$OURS" solve --rules yahtzee --out "$TABLE" >/dev/null

log "interleaved solves, $RUNS rounds: ours (2 threads), yatzy-solver, yahtzee-engine (first $PEER_RUNS rounds), ours (1 thread)"
for ((i = 1; i <= RUNS; i++)); do
    log "round $i/$RUNS"
    RAYON_NUM_THREADS=2 timed solve ours-2t "$OURS" solve --rules yahtzee --out "$TABLE"
    if ((i <= PEER_RUNS)); then
        RAYON_NUM_THREADS=2 timed solve yatzy-solver "$PEER1" forced
        RAYON_NUM_THREADS=2 timed solve yahtzee-engine "$PEER2"
    fi
    timed solve ours-1t "$OURS" solve --rules yahtzee --threads 1 --out "$TABLE"
done

log "our yacht solve, $RUNS runs (2 threads)"
for ((i = 1; i <= RUNS; i++)); do
    RAYON_NUM_THREADS=2 timed solve ours-yacht "$OURS" solve --rules yacht --out "$YACHT_TABLE"
done

# The table of the last solve is at $TABLE: advise reads it and never builds one.
ADVISE_ARGS=(advise --rules yahtzee --table "$TABLE" --card "ones=3,twos=6,threes=9,full-house=25,small-straight=30,chance=22" --dice 24456 --rolls-left 2)
log "advise as a process, $((RUNS * 4)) runs"
for ((i = 1; i <= RUNS * 4; i++)); do
    timed advise advise-process "$OURS" "${ADVISE_ARGS[@]}"
done

# Queries: random cards of 0-12 filled boxes with points each box can score, random dice and
# rolls left; a fixed seed, so every run feeds the same lines.
python3 - "$BATCH_QUERIES" >"$WORK/queries.jsonl" <<'EOF'
import json, random, sys
rng = random.Random(20260101)
faces = ["ones", "twos", "threes", "fours", "fives", "sixes"]
lower = {"three-of-a-kind": lambda: rng.choice([0, rng.randint(5, 30)]),
         "four-of-a-kind": lambda: rng.choice([0, rng.randint(5, 30)]),
         "full-house": lambda: rng.choice([0, 25]),
         "small-straight": lambda: rng.choice([0, 30]),
         "large-straight": lambda: rng.choice([0, 40]),
         "yahtzee": lambda: rng.choice([0, 50]),
         "chance": lambda: rng.randint(5, 30)}
boxes = faces + list(lower)
for _ in range(int(sys.argv[1])):
    filled = rng.sample(boxes, rng.randint(0, 12))
    card = {}
    for b in filled:
        card[b] = (faces.index(b) + 1) * rng.randint(0, 5) if b in faces else lower[b]()
    q = {"card": card, "dice": [rng.randint(1, 6) for _ in range(5)], "rolls_left": rng.randint(0, 2)}
    print(json.dumps(q))
EOF
log "advise --batch, $BATCH_QUERIES queries on one thread, $BATCH_RUNS runs"
for ((i = 1; i <= BATCH_RUNS; i++)); do
    RAYON_NUM_THREADS=1 timed batch advise-batch "$OURS" advise --rules yahtzee --table "$TABLE" --batch <"$WORK/queries.jsonl"
done
BATCH_ERRORS=$(RAYON_NUM_THREADS=1 "$OURS" advise --rules yahtzee --table "$TABLE" --batch <"$WORK/queries.jsonl" | grep -c '"error"' || true)
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- 4. The record -------------------------------------------------------------------------
CPU_MODEL=$(lscpu | sed -n 's/^Model name: *//p' | head -n1)
CPUS=$(nproc)
CORES=$(lscpu | sed -n 's/^Core(s) per socket: *//p' | head -n1)
FLAGS=$(grep -m1 '^flags' /proc/cpuinfo || true)
has() { [[ " $FLAGS " == *" $1 "* ]] && echo yes || echo no; }
COMMIT=$(git rev-parse HEAD)
DIRTY=$(git status --porcelain --untracked-files=no | grep -q . && echo " (with uncommitted changes)" || true)
RUSTC=$(rustc --version)

mkdir -p "$(dirname "$OUT")"
python3 - "$TIMES" "$BATCH_QUERIES" >"$WORK/figures.md" <<'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
queries = int(sys.argv[2])
by = {}
for kind, label, secs, peak, reported in rows:
    by.setdefault(label, []).append((float(secs), peak, reported))
def med(label): return statistics.median(s for s, _, _ in by[label])
def span(label):
    xs = [s for s, _, _ in by[label]]
    return f"{min(xs):.3f}-{max(xs):.3f}"
def peak(label):
    ks = [int(p) for _, p, _ in by[label] if p.isdigit()]
    return f"{max(ks) / 1024:.0f} MB" if ks else "n/a"
def reported(label): return by[label][-1][2].split(", table ")[0]
names = {"ours-2t": "ours, 2 threads", "ours-1t": "ours, 1 thread",
         "yatzy-solver": "yatzy-solver 1.0.0, 2 threads",
         "yahtzee-engine": "yahtzee-engine 0.1.0, 2 threads",
         "ours-yacht": "ours, Yacht, 2 threads"}
print("| solve (whole process) | runs | median s | min-max s | peak RSS | prints |")
print("| --- | ---: | ---: | ---: | ---: | --- |")
for label in ["ours-2t", "ours-1t", "yatzy-solver", "yahtzee-engine", "ours-yacht"]:
    print(f"| {names[label]} | {len(by[label])} | {med(label):.3f} | {span(label)} | {peak(label)} | `{reported(label)}` |")
print()
ours = med("ours-2t")
print("| ratio of medians | value |")
print("| --- | ---: |")
print(f"| yatzy-solver / ours (2 threads) | {med('yatzy-solver') / ours:.2f} |")
print(f"| yahtzee-engine / ours (2 threads) | {med('yahtzee-engine') / ours:.2f} |")
print(f"| ours 1 thread / ours 2 threads | {med('ours-1t') / ours:.2f} |")
print()
adv = med("advise-process")
batch = med("advise-batch")
xs = [s for s, _, _ in by["advise-batch"]]
print("| advice | runs | median | min-max | peak RSS |")
print("| --- | ---: | ---: | ---: | ---: |")
print(f"| `yahtzee advise` as a process (table present) | {len(by['advise-process'])} | {adv * 1000:.1f} ms | "
      f"{min(s for s, _, _ in by['advise-process']) * 1000:.1f}-{max(s for s, _, _ in by['advise-process']) * 1000:.1f} ms | {peak('advise-process')} |")
print(f"| `advise --batch`, {queries} queries, 1 thread | {len(xs)} | {queries / batch:,.0f} queries/s ({batch:.3f} s) | "
      f"{queries / max(xs):,.0f}-{queries / min(xs):,.0f} queries/s | {peak('advise-batch')} |")
EOF

{
    echo "# Solver timings against crates.io peers, $DATE"
    echo
    echo "Written by \`scripts/bench-peers.sh\` (RUNS=$RUNS, PEER_RUNS=$PEER_RUNS, BATCH_QUERIES=$BATCH_QUERIES, BATCH_RUNS=$BATCH_RUNS),"
    echo "in $SECONDS s including the builds."
    echo "Every figure is a whole process timed from outside (wall clock), so it includes"
    echo "start-up, the table allocation and, for ours, writing the table file."
    echo
    echo "## Machine"
    echo
    echo "- CPU: $CPU_MODEL; $CPUS logical CPUs, ${CORES:-?} core(s) per socket"
    echo "- AVX2: $(has avx2); AVX-512F: $(has avx512f)"
    echo "- Load average (1, 5, 15 min) at start: $LOAD_START; at the end of the timings: $LOAD_END"
    echo "  (the machine is shared: figures under load are noisier and slower than on an idle machine)"
    if python3 -c "import sys; sys.exit(0 if float('${LOAD_START%% *}') > $CPUS else 1)"; then
        echo "- The load at start was above the $CPUS CPUs: a second thread rarely finds a free core,"
        echo "  so the 2-thread figures understate what two idle cores give."
    fi
    echo "- Our commit: \`$COMMIT\`$DIRTY"
    echo "- $RUSTC; release profiles as shipped (ours: codegen-units = 1, thin LTO; peers: cargo defaults)"
    echo
    echo "## Figures"
    echo
    cat "$WORK/figures.md"
    echo
    echo "Advice queries: $BATCH_QUERIES generated lines (random cards with 0-12 boxes filled, random"
    echo "dice, rolls left 0-2, fixed seed); $BATCH_ERRORS of them were rejected as impossible cards"
    echo "and answered with an error line (still one line out per line in)."
    echo
    echo "## Peers"
    echo
    echo "- **yatzy-solver 1.0.0** (precisit/yatzy-solver): offers American rules with the free"
    echo "  Joker (\`Variant::american()\`, Verhoeff's 254.5896), the forced Joker"
    echo "  (\`Variant::american_with(Some(JokerRule::Forced))\`), no Joker and no bonus. Timed: the"
    echo "  forced Joker, \`Solver::build\` (rayon, feature \`parallel\`, default). It reports"
    echo "  \`$(grep -P '\tyatzy-solver\t' "$TIMES" | tail -n1 | cut -f5)\`. Its free-Joker variant reproduces"
    echo "  254.5896 by its own documentation; not run here (it would add another 15 s solve)."
    echo "- **yahtzee-engine 0.1.0** (jdh8/yahtzee-engine): official forced-Joker rules only."
    echo "  Timed: \`Solver::new()\` + \`solve()\` with feature \`parallel\` (off by default, turned on"
    echo "  here). It reports \`$(grep -P '\tyahtzee-engine\t' "$TIMES" | tail -n1 | cut -f5)\`."
    echo "- **easy-yahtzee**, the third solver named in the issue, is not published on crates.io,"
    echo "  so this script cannot fetch it; \`scripts/bench-easy-yahtzee.sh PATH\` times it from a local"
    echo "  checkout beside our solve of the same (free-Joker) rules."
    echo
    echo "Both peers are built in throwaway cargo projects outside the repository, each with a"
    echo "main.rs of a dozen lines (written out by the script) that runs one full solve and prints"
    echo "the expected score and its own seconds; they are never dependencies of this project."
    echo "Resolved: $PEER1_VERSIONS; $PEER2_VERSIONS."
    echo
    echo "## Commands"
    echo
    echo "Run $RUNS rounds, interleaved in this order (the peers in the first $PEER_RUNS rounds only),"
    echo "after one untimed warm-up run of ours:"
    echo
    echo '```sh'
    echo "$CMD_OURS2"
    echo "$CMD_PEER1"
    echo "$CMD_PEER2"
    echo "$CMD_OURS1"
    echo '```'
    echo
    echo "Then:"
    echo
    echo '```sh'
    echo "RAYON_NUM_THREADS=2 target/release/yahtzee solve --rules yacht --out $YACHT_TABLE   # x $RUNS"
    echo "target/release/yahtzee ${ADVISE_ARGS[*]}   # x $((RUNS * 4))"
    echo "RAYON_NUM_THREADS=1 target/release/yahtzee advise --rules yahtzee --table $TABLE --batch < queries.jsonl   # x $BATCH_RUNS"
    echo '```'
    echo
    echo "Each wrapped in \`/usr/bin/time -f %M\` for the peak RSS (KB, reported here in MB)."
    echo "Temporary paths are under \`$WORK\`, removed afterwards."
    echo
    echo "## Raw times"
    echo
    echo '```'
    echo -e "kind\tlabel\tseconds\tpeak_kb\tprints"
    cat "$TIMES"
    echo '```'
} >"$OUT"
log "wrote $OUT"
cat "$WORK/figures.md"
