#!/usr/bin/env bash
# Times our solve against easy-yahtzee, the SIMD f32 solver of the performance issue, in the
# same interleaved rounds, and writes results/bench-easy-yahtzee-YYYY-MM-DD.md.
#
# easy-yahtzee is not published on crates.io, so unlike scripts/bench-peers.sh this script
# cannot fetch it: give it a checkout of its core crate (github.com/jonstites/easy-yahtzee,
# folder crates/core, with its .cargo/config.toml), built here with the author's own example:
#
#   scripts/bench-easy-yahtzee.sh /path/to/easy-yahtzee-core
#
# easy-yahtzee solves Verhoeff's free-Joker rules only (254.5896), so ours is timed on the
# same rules (`--rules yahtzee-free-joker`, 254.5896094820). Both are whole processes timed
# from outside on 2 threads; ours also writes its table file, easy-yahtzee keeps its table in
# memory. Knobs (environment): RUNS=7 rounds.
set -euo pipefail

PEER=${1:?usage: scripts/bench-easy-yahtzee.sh PATH-TO-EASY-YAHTZEE-CORE}
RUNS=${RUNS:-7}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATE=$(date +%F)
OUT="$ROOT/results/bench-easy-yahtzee-$DATE.md"
WORK=$(mktemp -d /tmp/yahtzee-bench-easy.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
log() { echo "[bench-easy-yahtzee] $*" >&2; }

log "building ours (cargo build --release)"
(cd "$ROOT" && cargo build --release --quiet)
OURS="$ROOT/target/release/yahtzee"
log "building easy-yahtzee in $PEER (its own .cargo/config.toml applies)"
(cd "$PEER" && cargo build --release --quiet --features simd --example time_build)
THEIRS="$PEER/target/release/examples/time_build"

# One timed run: label, then the command; appends "label<TAB>seconds<TAB>first line of stdout".
timed() {
    local label=$1
    shift
    /usr/bin/time -f %e -o "$WORK/time" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
    printf '%s\t%s\t%s\n' "$label" "$(tail -n1 "$WORK/time")" "$(head -n1 "$WORK/stdout")" >>"$WORK/times"
}

log "warm-up: one run of each"
"$OURS" solve --rules yahtzee-free-joker --threads 2 --out "$WORK/t.table" >/dev/null
RAYON_NUM_THREADS=2 YAHTZEE_BACKEND=simd_batch "$THEIRS" >/dev/null
for round in $(seq "$RUNS"); do
    log "round $round/$RUNS"
    timed ours "$OURS" solve --rules yahtzee-free-joker --threads 2 --out "$WORK/t.table"
    RAYON_NUM_THREADS=2 YAHTZEE_BACKEND=simd_batch timed easy-yahtzee "$THEIRS"
done

python3 - "$WORK/times" "$OUT" "$RUNS" "$(git -C "$ROOT" rev-parse HEAD)" "$(git -C "$ROOT" status --porcelain | wc -l)" <<'EOF'
import statistics, subprocess, sys
times, out, runs, commit, dirty = sys.argv[1:]
by = {}
for line in open(times):
    label, secs, first = line.rstrip("\n").split("\t")
    by.setdefault(label, []).append((float(secs), first))
med = {k: statistics.median(s for s, _ in v) for k, v in by.items()}
cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], capture_output=True, text=True).stdout.strip()
flags = open("/proc/cpuinfo").read()
load = open("/proc/loadavg").read().split()[:3]
with open(out, "w") as f:
    f.write(f"# Our solve against easy-yahtzee, {__import__('datetime').date.today()}\n\n")
    f.write("Written by `scripts/bench-easy-yahtzee.sh` with RUNS=" + runs + ". Whole processes timed from\n"
            "outside (GNU time, wall clock), 2 threads, interleaved rounds after one warm-up run of each.\n\n")
    f.write(f"- CPU: {cpu}; AVX2: {'yes' if ' avx2' in flags else 'no'}; AVX-512F: {'yes' if ' avx512f' in flags else 'no'}\n")
    f.write(f"- Load average at the end: {' '.join(load)}\n")
    f.write(f"- Our commit: `{commit}`" + (" (with uncommitted changes)" if dirty != "0" else "") + "\n\n")
    f.write("| solver (whole process, 2 threads) | runs | median s | min-max s | prints |\n| --- | ---: | ---: | ---: | --- |\n")
    for label in ("ours", "easy-yahtzee"):
        xs = [s for s, _ in by[label]]
        f.write(f"| {label} | {len(xs)} | {med[label]:.3f} | {min(xs):.3f}-{max(xs):.3f} | `{by[label][-1][1][:110]}` |\n")
    f.write(f"\nRatio of medians, easy-yahtzee / ours: **{med['easy-yahtzee'] / med['ours']:.2f}**\n\n")
    f.write("What differs: easy-yahtzee computes in f32 (we use f64), is built with its own\n"
            "`target-cpu=native` (.cargo/config.toml; ours is a portable build with runtime dispatch),\n"
            "solves the free-Joker rules only (so ours is timed on `--rules yahtzee-free-joker`), and\n"
            "keeps its table in memory where ours writes a 4.3 MB table file (checksum, fsync, rename).\n")
print(out)
EOF
