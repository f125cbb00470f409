#!/usr/bin/env bash
# Times our simulation of a million optimal games against that of dlangk/yatzy (an open-source
# Scandinavian Yatzy solver with a fast simulator), as whole processes, and writes a dated
# Markdown record to results/simulate-peers-YYYY-MM-DD.md.
#
#   scripts/bench-simulate.sh         # from the repository root or anywhere inside it
#
# What it does:
#   1. `cargo build --release` of our binary; builds our Yatzy and Yahtzee strategy tables
#      once into a temporary $YAHTZEE_TABLE_DIR, so that the timed runs only load them.
#   2. Clones dlangk/yatzy (PEER_SRC) into a temporary folder OUTSIDE the repository and builds
#      its `solver/` crate as shipped (package `yatzy`: fat LTO, codegen-units = 1, and
#      target-cpu=native from its solver/.cargo/config.toml): `yatzy-precompute` and
#      `yatzy-simulate`. Runs `yatzy-precompute` (writes data/strategy_tables/all_states.bin
#      under its YATZY_BASE_PATH, removed first so that it is computed, not loaded) and, with
#      ORACLE=1, `yatzy-precompute --oracle` (data/strategy_tables/oracle.bin, every decision
#      precomputed, about 3 GB), each once, timed.
#   3. One untimed warm-up run of each tool, then RUNS interleaved rounds of GAMES games each:
#      ours on Yatzy, the peer's lockstep engine (`--lockstep`), the peer's oracle engine
#      (`--oracle`), ours on Yahtzee; round i plays seed i*2^32 in every tool (the peer seeds game
#      g with seed + g, so nearby seeds would replay nearly the same games). All on THREADS
#      threads (RAYON_NUM_THREADS; both tools read it).
#   4. Each run: wall time of the whole process (date +%s.%N), peak RSS (/usr/bin/time -f %M),
#      and what the tool itself prints: its simulation time and games/s (both tools time the
#      simulation alone, without start-up and table loading) and the mean score, checked
#      against the tool's own expected score (|z| < 4).
#   5. Medians; the ratio ours/peer of games per second computed within each round, and the
#      median of those ratios (on a noisy shared machine two runs of the same round are the
#      fair comparison); the sizes of the tables on disk; the acceptance checks.
#
# Environment:
#   RUNS=5            interleaved rounds
#   GAMES=1000000     games per run
#   THREADS=$(nproc)  threads of every run (RAYON_NUM_THREADS)
#   ORACLE=1          also build and time the peer's oracle mode (ORACLE=0 skips it)
#   ORACLE_TIMEOUT=600  seconds allowed to build the oracle before giving up on it
#   PEER_SRC=...      path or URL of the peer's git repository to clone (default: the local
#                     mirror /work/.mirror/dlangk+yatzy/repo if present, else
#                     https://github.com/dlangk/yatzy)
#   PEER_REV=...      commit of the peer to check out (default: the clone's HEAD)
#   PEER_DIR=...      reuse this folder for the peer's clone, build and data (default: a fresh
#                     temp folder, removed at the end; a reused one keeps the ~3 GB oracle);
#                     it must be outside the repository
#   OUT=...           where to write the record (default results/simulate-peers-<date>.md)
#
# Needs: cargo, git, python3 (stdlib only), lscpu; /usr/bin/time for peak RSS (else "n/a");
# ORACLE=1 needs about 3.5 GB free on the disk of PEER_DIR/TMPDIR and 4 GB of free memory.
# Takes about 4 minutes on a two-core machine with the defaults: 1-2 minutes of builds, the
# oracle's ~20 s, then ~15 s a round (the peer's lockstep run is the longest).

set -euo pipefail

RUNS=${RUNS:-5}
GAMES=${GAMES:-1000000}
THREADS=${THREADS:-$(nproc)}
ORACLE=${ORACLE:-1}
ORACLE_TIMEOUT=${ORACLE_TIMEOUT:-600}
MIRROR=/work/.mirror/dlangk+yatzy/repo
if [[ -z "${PEER_SRC:-}" ]]; then
    if [[ -d $MIRROR ]]; then PEER_SRC=$MIRROR; else PEER_SRC=https://github.com/dlangk/yatzy; fi
fi
PEER_REV=${PEER_REV:-}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-results/simulate-peers-$DATE.md}
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-simulate.XXXXXX")
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
TIMES=$WORK/times.tsv # label<TAB>round<TAB>wall seconds<TAB>peak_kb<TAB>stdout file
SETUP=$WORK/setup.tsv # the same, for the one-off steps (builds, solves, precomputes)
: >"$TIMES"
: >"$SETUP"
mkdir -p "$WORK/out"

log() { echo "[bench-simulate] $*" >&2; }
if [[ -x /usr/bin/time ]]; then HAVE_TIME=1; else HAVE_TIME=0; fi

# run_timed FILE LABEL ROUND CMD...: runs CMD once with its stdout to $WORK/out/LABEL.ROUND,
# appends LABEL, ROUND, wall seconds and peak RSS (KB) to FILE. Stops the script, showing the
# end of its stderr, if CMD fails (with ALLOW_FAIL=1 set: returns CMD's status instead).
run_timed() {
    local file=$1 label=$2 round=$3
    shift 3
    local out=$WORK/out/$label.$round start end peak=n/a status=0
    start=$(date +%s.%N)
    if ((HAVE_TIME)); then
        /usr/bin/time -f %M -o "$WORK/rss" "$@" >"$out" 2>"$WORK/stderr" || status=$?
        peak=$(tail -n1 "$WORK/rss")
    else
        "$@" >"$out" 2>"$WORK/stderr" || status=$?
    fi
    end=$(date +%s.%N)
    if ((status != 0)); then
        log "$label (round $round) failed with status $status: $*"
        tail -n 20 "$WORK/stderr" >&2
        if [[ -n ${ALLOW_FAIL:-} ]]; then return "$status"; fi
        exit 1
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$round" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }')" \
        "$peak" "$out" >>"$file"
}
timed() { run_timed "$TIMES" "$@"; }
setup() { run_timed "$SETUP" "$1" 0 "${@:2}"; }
size_of() { stat -c %s "$1" 2>/dev/null || echo 0; }

# --- 1. Our binary and its tables ----------------------------------------------------------
log "building our binary (cargo build --release)"
setup build-ours cargo build --release --quiet
# The commit and the state of the work tree the binary was built from, and a copy of the binary:
# someone else's `cargo build` in this repository may replace target/release/yahtzee mid-run.
COMMIT=$(git rev-parse --short HEAD)
CHANGED=$(git status --porcelain --untracked-files=no | wc -l)
OURS=$WORK/yahtzee
cp "$REPO/target/release/yahtzee" "$OURS"
TABLES=$WORK/tables
mkdir -p "$TABLES"
log "our tables into $TABLES (yahtzee solve --rules yatzy / yahtzee)"
setup solve-ours-yatzy env RAYON_NUM_THREADS="$THREADS" YAHTZEE_TABLE_DIR="$TABLES" "$OURS" solve --rules yatzy
setup solve-ours-yahtzee env RAYON_NUM_THREADS="$THREADS" YAHTZEE_TABLE_DIR="$TABLES" "$OURS" solve --rules yahtzee
OURS_YATZY_TABLE=$TABLES/yatzy.v4.table
OURS_YAHTZEE_TABLE=$TABLES/yahtzee.v4.table
for t in "$OURS_YATZY_TABLE" "$OURS_YAHTZEE_TABLE"; do
    [[ -f $t ]] || { log "expected our table at $t; found: $(ls "$TABLES")"; exit 1; }
done

# --- 2. The peer ---------------------------------------------------------------------------
PEER_REPO=$PEERS/yatzy
if [[ -d $PEER_REPO/.git ]]; then
    log "reusing the peer's clone in $PEER_REPO"
else
    log "cloning $PEER_SRC into $PEER_REPO"
    git clone --quiet "$PEER_SRC" "$PEER_REPO"
fi
if [[ -n $PEER_REV ]]; then
    git -C "$PEER_REPO" checkout --quiet --detach "$PEER_REV"
fi
PEER_COMMIT=$(git -C "$PEER_REPO" rev-parse --short HEAD)
PEER_COMMIT_LINE=$(git -C "$PEER_REPO" log -1 --format='%h, %cd: %s' --date=short)
log "building the peer at $PEER_COMMIT (solver/, cargo build --release --locked)"
# Its own solver/.cargo/config.toml (target-cpu=native) applies: the build runs in solver/.
setup build-peer bash -c 'cd "$1/solver" && CARGO_TARGET_DIR="$2" cargo build --release --locked --quiet --bin yatzy-precompute --bin yatzy-simulate' \
    _ "$PEER_REPO" "$PEERS/target"
PEER_PRECOMPUTE=$PEERS/target/release/yatzy-precompute
PEER_SIM=$PEERS/target/release/yatzy-simulate
# Its binaries chdir to $YATZY_BASE_PATH and read and write data/strategy_tables/ there.
PEER_BASE=$PEERS/run
PEER_TABLE=$PEER_BASE/data/strategy_tables/all_states.bin
PEER_ORACLE=$PEER_BASE/data/strategy_tables/oracle.bin
mkdir -p "$PEER_BASE"
# Without a table file it solves and writes one (with one, it would load it instead: hence the
# rm, rather than its --force, which older commits lack).
log "peer precompute (yatzy-precompute)"
rm -f "$PEER_TABLE"
setup precompute-peer env YATZY_BASE_PATH="$PEER_BASE" RAYON_NUM_THREADS="$THREADS" "$PEER_PRECOMPUTE"
[[ -f $PEER_TABLE ]] || { log "the peer's precompute wrote no $PEER_TABLE"; exit 1; }

ORACLE_NOTE=""
if [[ $ORACLE == 1 ]]; then
    rm -f "$PEER_ORACLE"
    FREE_DISK=$(df -B1 --output=avail "$PEER_BASE" | tail -n1 | tr -d ' ')
    FREE_MEM=$(($(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo) * 1024))
    if ((FREE_DISK < 3500 * 1024 * 1024)); then
        ORACLE_NOTE="not built: $((FREE_DISK / 1024 / 1024)) MB free on the disk of $PEER_BASE, the oracle needs about 3.2 GB"
    elif ((FREE_MEM < 4096 * 1024 * 1024)); then
        ORACLE_NOTE="not built: $((FREE_MEM / 1024 / 1024)) MB of memory available, the oracle build needs about 4 GB to be safe"
    else
        log "peer oracle (yatzy-precompute --oracle, at most $ORACLE_TIMEOUT s)"
        status=0
        # Without --force, but --oracle always reruns the whole induction (it records every
        # argmax); it writes only oracle.bin, the state table stays the one of the step above.
        ALLOW_FAIL=1 setup build-oracle env YATZY_BASE_PATH="$PEER_BASE" RAYON_NUM_THREADS="$THREADS" \
            timeout "$ORACLE_TIMEOUT" "$PEER_PRECOMPUTE" --oracle || status=$?
        if ((status != 0)); then
            ORACLE_NOTE="not built: \`yatzy-precompute --oracle\` failed (status $status; 124 is the timeout of $ORACLE_TIMEOUT s)"
            rm -f "$PEER_ORACLE"
        elif [[ ! -s $PEER_ORACLE ]]; then
            ORACLE_NOTE="not built: \`yatzy-precompute --oracle\` exited 0 but wrote no $PEER_ORACLE"
        fi
    fi
else
    ORACLE_NOTE="skipped (ORACLE=0)"
fi
if [[ -z $ORACLE_NOTE ]]; then HAVE_ORACLE=1; else HAVE_ORACLE=0; log "oracle $ORACLE_NOTE"; fi

# --- 3. Timing -----------------------------------------------------------------------------
OURS_SIM=(env RAYON_NUM_THREADS="$THREADS" YAHTZEE_TABLE_DIR="$TABLES" "$OURS" simulate)
PEER_RUN=(env YATZY_BASE_PATH="$PEER_BASE" RAYON_NUM_THREADS="$THREADS" "$PEER_SIM")
CMD_OURS_YATZY="RAYON_NUM_THREADS=$THREADS YAHTZEE_TABLE_DIR=\$TABLES target/release/yahtzee simulate --rules yatzy --games $GAMES --seed \$((i << 32))"
CMD_PEER_LOCKSTEP="YATZY_BASE_PATH=\$PEER_BASE RAYON_NUM_THREADS=$THREADS yatzy-simulate --games $GAMES --seed \$((i << 32)) --lockstep"
CMD_PEER_ORACLE="YATZY_BASE_PATH=\$PEER_BASE RAYON_NUM_THREADS=$THREADS yatzy-simulate --games $GAMES --seed \$((i << 32)) --oracle"
CMD_OURS_YAHTZEE="RAYON_NUM_THREADS=$THREADS YAHTZEE_TABLE_DIR=\$TABLES target/release/yahtzee simulate --rules yahtzee --games $GAMES --seed \$((i << 32))"

# The warm-up brings binaries and tables into the page cache for every tool alike.
WARM=$((GAMES < 10000 ? GAMES : 10000))
log "warm-up: one run of each tool, $WARM games"
run_timed "$WORK/warm.tsv" ours-yatzy 0 "${OURS_SIM[@]}" --rules yatzy --games "$WARM" --seed 0
run_timed "$WORK/warm.tsv" peer-lockstep 0 "${PEER_RUN[@]}" --games "$WARM" --seed 0 --lockstep
if ((HAVE_ORACLE)); then run_timed "$WORK/warm.tsv" peer-oracle 0 "${PEER_RUN[@]}" --games "$WARM" --seed 0 --oracle; fi
run_timed "$WORK/warm.tsv" ours-yahtzee 0 "${OURS_SIM[@]}" --rules yahtzee --games "$WARM" --seed 0

log "interleaved rounds, $RUNS of $GAMES games: ours yatzy, peer lockstep$( ((HAVE_ORACLE)) && echo ", peer oracle"), ours yahtzee"
for ((i = 1; i <= RUNS; i++)); do
    log "round $i/$RUNS (load $(cut -d' ' -f1 /proc/loadavg))"
    seed=$((i << 32))
    timed ours-yatzy "$i" "${OURS_SIM[@]}" --rules yatzy --games "$GAMES" --seed "$seed"
    timed peer-lockstep "$i" "${PEER_RUN[@]}" --games "$GAMES" --seed "$seed" --lockstep
    if ((HAVE_ORACLE)); then timed peer-oracle "$i" "${PEER_RUN[@]}" --games "$GAMES" --seed "$seed" --oracle; fi
    timed ours-yahtzee "$i" "${OURS_SIM[@]}" --rules yahtzee --games "$GAMES" --seed "$seed"
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- 4. The record -------------------------------------------------------------------------
CPU_MODEL=$(lscpu | sed -n 's/^Model name: *//p' | head -n1)
CPUS=$(nproc)
CORES=$(lscpu | sed -n 's/^Core(s) per socket: *//p' | head -n1)
MEM=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
if ((CHANGED > 0)); then
    DIRTY=" (dirty: $CHANGED tracked file(s) with uncommitted changes right after the build; the binary was built from the work tree as it was then)"
else
    DIRTY=" (clean work tree right after the build)"
fi
RUSTC=$(rustc --version)
PEER_RUSTFLAGS=$(grep -h '^rustflags' "$PEER_REPO/solver/.cargo/config.toml" 2>/dev/null || echo "none")
PEER_PROFILE=$(sed -n '/^\[profile.release\]/,/^\[/p' "$PEER_REPO/solver/Cargo.toml" | grep -v '^\[' | grep . | paste -sd, | sed 's/,/, /g')

export GAMES RUNS THREADS HAVE_ORACLE
export SIZE_OURS_YATZY=$(size_of "$OURS_YATZY_TABLE") SIZE_OURS_YAHTZEE=$(size_of "$OURS_YAHTZEE_TABLE")
export SIZE_PEER_TABLE=$(size_of "$PEER_TABLE") SIZE_PEER_ORACLE=$(size_of "$PEER_ORACLE")
mkdir -p "$(dirname "$OUT")"
python3 - "$TIMES" "$SETUP" >"$WORK/figures.md" 2>"$WORK/verdicts.txt" <<'EOF'
import os, re, statistics, sys

games = int(os.environ["GAMES"])
have_oracle = os.environ["HAVE_ORACLE"] == "1"

def parse(label, path):
    """What a run printed: its own simulation seconds, games/s, mean, and expected score."""
    text = open(path).read()
    d = {}
    if label.startswith("ours"):
        m = re.search(r"\(([\d.]+) s, ([\d.]+) games/s on (\d+) threads\)", text)
        if m:
            d["gps"] = float(m.group(2))
            d["sim_s"] = games / d["gps"]
            d["threads"] = int(m.group(3))
        m = re.search(r"^mean ([\d.]+), standard deviation ([\d.]+)", text, re.M)
        if m:
            d["mean"], d["sd"] = float(m.group(1)), float(m.group(2))
        m = re.search(r"standard error ([\d.]+)", text)
        if m:
            d["se"] = float(m.group(1))
    else:
        m = re.search(r"Elapsed:\s+([\d.]+) ms", text)
        if m:
            d["sim_s"] = float(m.group(1)) / 1000
            d["gps"] = games / d["sim_s"]
        m = re.search(r"Mean score:\s+([\d.]+) \((?:expected EV|θ=0 EV): ([\d.]+)", text)
        if m:
            d["mean"], d["expected"] = float(m.group(1)), float(m.group(2))
        m = re.search(r"Std dev:\s+([\d.]+)", text)
        if m:
            d["sd"] = float(m.group(1))
            d["se"] = d["sd"] / games ** 0.5
        m = re.search(r"Rayon threads: (\d+)", text)
        if m:
            d["threads"] = int(m.group(1))
    return d

def rows(path):
    out = []
    for line in open(path):
        if line.strip():
            label, rnd, secs, peak, stdout = line.rstrip("\n").split("\t")
            out.append(dict(label=label, round=int(rnd), wall=float(secs), peak=peak,
                            stdout=stdout, **parse(label, stdout)))
    return out

runs = rows(sys.argv[1])
setup = {r["label"]: r for r in rows(sys.argv[2])}

# Each tool's own expected score: ours from its solve, the peer's from its simulation output.
def solve_line(label):
    return open(setup[label]["stdout"]).read().splitlines()[0] if label in setup else ""
def expected_of(label):
    m = re.search(r"expected score ([\d.]+)", solve_line(label))
    return float(m.group(1)) if m else None
expected = {"ours-yatzy": expected_of("solve-ours-yatzy"), "ours-yahtzee": expected_of("solve-ours-yahtzee")}
for r in runs:
    if r["label"].startswith("peer") and "expected" in r:
        expected[r["label"]] = r["expected"]

labels = ["ours-yatzy", "peer-lockstep"] + (["peer-oracle"] if have_oracle else []) + ["ours-yahtzee"]
names = {"ours-yatzy": "ours, Yatzy", "peer-lockstep": "dlangk/yatzy, lockstep",
         "peer-oracle": "dlangk/yatzy, oracle", "ours-yahtzee": "ours, Yahtzee"}
by = {l: sorted((r for r in runs if r["label"] == l), key=lambda r: r["round"]) for l in labels}
rounds = sorted({r["round"] for r in runs})
get = {(r["label"], r["round"]): r for r in runs}

def med(xs): return statistics.median(xs) if xs else float("nan")
def span(xs, fmt): return f"{fmt(min(xs))}-{fmt(max(xs))}" if xs else "n/a"
def peak(l):
    ks = [int(r["peak"]) for r in by[l] if r["peak"].isdigit()]
    return f"{max(ks) / 1024:,.0f} MB" if ks else "n/a"
def gps_rep(l): return [r["gps"] for r in by[l] if "gps" in r]
def gps_wall(l): return [games / r["wall"] for r in by[l]]
def f0(x): return f"{x:,.0f}"
def f3(x): return f"{x:.3f}"
def f2(x): return f"{x:.2f}"

print("### Medians")
print()
print(f"Whole process: wall time from outside, start-up and table loading included; games/s = {games:,} / wall.")
print("Reported: the tool's own timing of the simulation alone (ours: the first line's games/s;")
print("the peer: `Elapsed:`), after its tables are loaded.")
print()
print("| tool | runs | wall s (median) | wall s (min-max) | games/s, whole process | sim s, reported | games/s, reported (median) | games/s, reported (min-max) | peak RSS |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for l in labels:
    walls = [r["wall"] for r in by[l]]
    sims = [r["sim_s"] for r in by[l] if "sim_s" in r]
    print(f"| {names[l]} | {len(walls)} | {med(walls):.3f} | {span(walls, f3)} | {f0(med(gps_wall(l)))} | "
          f"{med(sims):.3f} | {f0(med(gps_rep(l)))} | {span(gps_rep(l), f0)} | {peak(l)} |")
print()

# Per-round ratios: the fair comparison on a shared machine.
def ratios(a, b, key):
    out = []
    for i in rounds:
        ra, rb = get.get((a, i)), get.get((b, i))
        if ra and rb:
            va = ra.get("gps") if key == "rep" else games / ra["wall"]
            vb = rb.get("gps") if key == "rep" else games / rb["wall"]
            if va and vb:
                out.append(va / vb)
    return out

print("### Per round")
print()
head = "| round | ours Yatzy games/s (wall s) | lockstep games/s (wall s) |"
sep = "| ---: | ---: | ---: |"
if have_oracle:
    head += " oracle games/s (wall s) |"; sep += " ---: |"
head += " ours Yahtzee games/s (wall s) | ours / lockstep |"; sep += " ---: | ---: |"
if have_oracle:
    head += " ours / oracle |"; sep += " ---: |"
print("Games/s as reported by each tool; ratios of the reported games/s of the same round.")
print()
print(head)
print(sep)
for i in rounds:
    cells = [str(i)]
    for l in labels:
        r = get.get((l, i))
        cells.append(f"{f0(r['gps'])} ({r['wall']:.2f})" if r and "gps" in r else "n/a")
    for peer in ["peer-lockstep"] + (["peer-oracle"] if have_oracle else []):
        rs = [x for x in [get.get(("ours-yatzy", i)), get.get((peer, i))]]
        cells.append(f"{rs[0]['gps'] / rs[1]['gps']:.2f}" if all(x and "gps" in x for x in rs) else "n/a")
    print("| " + " | ".join(cells) + " |")
print()

print("### Ratios (ours Yatzy / peer, games per second)")
print()
print("| ratio | median of the per-round ratios | min-max | ratio of the medians |")
print("| --- | ---: | ---: | ---: |")
verdict = {}
for peer in ["peer-lockstep"] + (["peer-oracle"] if have_oracle else []):
    for key, what in [("rep", "reported (simulation only)"), ("wall", "whole process")]:
        rs = ratios("ours-yatzy", peer, key)
        gets = gps_rep if key == "rep" else gps_wall
        rom = med(gets("ours-yatzy")) / med(gets(peer)) if gets(peer) else float("nan")
        print(f"| ours / {names[peer].split(', ')[1]}, {what} | {med(rs):.2f} | {span(rs, f2)} | {rom:.2f} |")
        verdict[(peer, key)] = med(rs)
print()

print("### Mean scores")
print()
print("Each run's mean checked against the tool's own expected score: z = (mean - expected) / standard error;")
print("a sane run has |z| < 4. Round i plays seed i*2^32 in every tool, but the tools' dice differ, so their")
print("means differ by chance. (The peer seeds game g with SplitMix64(seed + g): seeds 1, 2, 3, ... would")
print("replay all but one of the same games, hence seeds 2^32 apart.)")
print()
print("| tool | expected score | means, round by round | z, round by round | sane |")
print("| --- | ---: | --- | --- | --- |")
all_sane = True
for l in labels:
    e = expected.get(l)
    ms, zs, ok = [], [], True
    for r in by[l]:
        if "mean" not in r or e is None or "se" not in r:
            ok = False
            ms.append("n/a")
            continue
        z = (r["mean"] - e) / r["se"]
        ms.append(f"{r['mean']:.3f}")
        zs.append(f"{z:+.2f}")
        ok = ok and abs(z) < 4
    all_sane = all_sane and ok
    e_txt = "n/a" if e is None else f"{e:.10f}" if l.startswith("ours") else f"{e:.4f}"
    print(f"| {names[l]} | {e_txt} | {', '.join(ms)} | {', '.join(zs)} | {'yes' if ok else 'NO'} |")
pe = expected.get("peer-lockstep")
oe = expected.get("ours-yatzy")
print()
if pe is not None and oe is not None:
    print(f"Same game: the peer's expected score of Yatzy is {pe:.4f}, ours {oe:.10f} (difference {abs(pe - oe):.4f};")
    print("the peer prints 4 decimals).")
print()

sizes = {k: int(os.environ[k]) for k in ["SIZE_OURS_YATZY", "SIZE_OURS_YAHTZEE", "SIZE_PEER_TABLE", "SIZE_PEER_ORACLE"]}
def mb(n): return f"{n / 1e6:,.1f} MB ({n:,} bytes)"
print("### Tables on disk")
print()
print("| table | size |")
print("| --- | ---: |")
print(f"| ours, Yatzy (`yatzy.v4.table`) | {mb(sizes['SIZE_OURS_YATZY'])} |")
print(f"| ours, Yahtzee (`yahtzee.v4.table`) | {mb(sizes['SIZE_OURS_YAHTZEE'])} |")
print(f"| dlangk/yatzy state values (`all_states.bin`), used by lockstep and oracle | {mb(sizes['SIZE_PEER_TABLE'])} |")
oracle_size = sizes["SIZE_PEER_ORACLE"]
oracle_cell = f"{mb(oracle_size)} = {oracle_size / 2**30:.2f} GiB" if oracle_size else "not built"
print(f"| dlangk/yatzy oracle (`oracle.bin`) | {oracle_cell} |")
print()

print("### One-off steps")
print()
print("| step | wall s | peak RSS | prints |")
print("| --- | ---: | ---: | --- |")
step_names = {"build-ours": "`cargo build --release` (ours, incremental)",
              "solve-ours-yatzy": "ours: `yahtzee solve --rules yatzy`",
              "solve-ours-yahtzee": "ours: `yahtzee solve --rules yahtzee`",
              "build-peer": "peer: `cargo build --release --locked` (2 binaries, from scratch unless PEER_DIR is reused)",
              "precompute-peer": "peer: `yatzy-precompute` (no table yet: solves)",
              "build-oracle": "peer: `yatzy-precompute --oracle`"}
for k, name in step_names.items():
    if k not in setup:
        continue
    r = setup[k]
    text = open(r["stdout"]).read()
    if k.startswith("solve"):
        said = text.splitlines()[0] if text else ""
    elif k == "precompute-peer":
        m = re.search(r"Total computation time: .*", text)
        said = m.group(0) if m else ""
    elif k == "build-oracle":
        said = "; ".join(re.findall(r"Total computation time: .*|Saved oracle .*", text))
    else:
        said = ""
    pk = f"{int(r['peak']) / 1024:,.0f} MB" if r["peak"].isdigit() else "n/a"
    print(f"| {name} | {r['wall']:.1f} | {pk} | {'`' + said + '`' if said else ''} |")
print()

# Acceptance.
print("### Acceptance")
print()
print("| check | goal | measured | verdict |")
print("| --- | --- | --- | --- |")
def yes(b): return "**pass**" if b else "**FAIL**"
lr, lw = verdict[("peer-lockstep", "rep")], verdict[("peer-lockstep", "wall")]
print(f"| ours Yatzy / peer lockstep, games/s, {games:,} games | at least 4x | {lr:.2f}x reported, {lw:.2f}x whole process (medians of per-round ratios) | {yes(lr >= 4 and lw >= 4)} |")
if have_oracle:
    orr, ow = verdict[("peer-oracle", "rep")], verdict[("peer-oracle", "wall")]
    print(f"| ours Yatzy / peer oracle | at least 1x (no slower) | {orr:.2f}x reported, {ow:.2f}x whole process | {yes(orr >= 1 and ow >= 1)} |")
else:
    print("| ours Yatzy / peer oracle | at least 1x (no slower) | oracle not timed | n/a |")
yr, yw = med(gps_rep("ours-yahtzee")), med(gps_wall("ours-yahtzee"))
print(f"| ours Yahtzee, games/s, {games:,} games | at least 400,000 | {f0(yr)} reported, {f0(yw)} whole process (medians) | {yes(yr >= 400000)} on the reported figure; whole process: {yes(yw >= 400000)} |")
print(f"| our Yatzy table on disk | under 100 MB | {sizes['SIZE_OURS_YATZY'] / 1e6:.1f} MB | {yes(sizes['SIZE_OURS_YATZY'] < 100e6)} |")
print(f"| mean scores sane (\\|z\\| < 4 against each tool's expected score) | every run | see above | {yes(all_sane)} |")
print(f"acceptance lockstep {lr:.2f}x; oracle {verdict.get(('peer-oracle', 'rep'), float('nan')):.2f}x; yahtzee {yr:,.0f} games/s; table {sizes['SIZE_OURS_YATZY'] / 1e6:.1f} MB; means sane {all_sane}", file=sys.stderr)
EOF

{
    echo "# Simulation of $(python3 -c "print(f'{$GAMES:,}')") games against dlangk/yatzy, $DATE"
    echo
    echo "Written by \`scripts/bench-simulate.sh\` (RUNS=$RUNS, GAMES=$GAMES, THREADS=$THREADS, ORACLE=$ORACLE),"
    echo "in $SECONDS s including the builds."
    echo
    echo "## Machine and versions"
    echo
    echo "- CPU: $CPU_MODEL; $CPUS logical CPUs, ${CORES:-?} core(s) per socket; $MEM of memory"
    echo "- Load average (1, 5, 15 min) at start: $LOAD_START; at the end of the timings: $LOAD_END"
    echo "  (the machine is shared: figures under load are noisier and slower than on an idle machine;"
    echo "  the per-round ratios are the fairer comparison)"
    if python3 -c "import sys; sys.exit(0 if max(map(float, '$LOAD_START $LOAD_END'.split()[::3])) > $CPUS else 1)"; then
        echo "- The 1-minute load was above the $CPUS CPUs at the start or the end: the runs shared the cores"
        echo "  with other work."
    fi
    echo "- Our commit: \`$COMMIT\`$DIRTY"
    echo "- dlangk/yatzy: \`$PEER_COMMIT\` ($PEER_COMMIT_LINE), cloned from \`$PEER_SRC\`"
    echo "- $RUSTC for both. Ours: the release profile of Cargo.toml. The peer's solver/Cargo.toml"
    echo "  release profile: $PEER_PROFILE; its solver/.cargo/config.toml: \`$PEER_RUSTFLAGS\`."
    echo "- Every run on $THREADS threads (RAYON_NUM_THREADS=$THREADS, which both tools read)."
    echo
    echo "## Figures"
    echo
    cat "$WORK/figures.md"
    echo
    echo "## The peer"
    echo
    echo "dlangk/yatzy solves Scandinavian Yatzy (15 boxes, 50-point bonus at 63) by backward induction"
    echo "and simulates games with the optimal expected-score policy. Its \`yatzy-simulate\`"
    echo "(solver/src/bin/simulate.rs) has three engines; without \`--output\` it picks:"
    echo
    echo "- \`--lockstep\`: every game of the batch plays turn t before any plays t+1, grouped by state"
    echo "  (radix sort), each state's decisions computed once from the state values"
    echo "  (solver/src/simulation/lockstep.rs). Timed here."
    echo "- \`--oracle\`: the same lockstep loop with every decision (box; keep with 1 and with 2 rolls"
    echo "  left, for each state and each dice) read from \`data/strategy_tables/oracle.bin\`, mmapped."
    echo "  $(if ((HAVE_ORACLE)); then echo "Timed here."; else echo "Not timed: the oracle was $ORACLE_NOTE."; fi)"
    echo "- neither: the per-game (vertical) engine, much slower; not timed."
    echo
    echo "It prints \`Elapsed:\` (the simulation alone, after loading), \`Throughput: N games/sec\`,"
    echo "\`Mean score: M (expected EV: E, ...)\` and the standard deviation; those are the figures read"
    echo "here. Its binaries chdir to \$YATZY_BASE_PATH and use \`data/strategy_tables/\` there:"
    echo "\`yatzy-precompute\` writes \`all_states.bin\` (the state values, read by every engine) when it is absent;"
    echo "\`yatzy-precompute --oracle\` (\`just precompute-oracle\` in its justfile) reruns the whole"
    echo "induction recording every argmax and writes only \`oracle.bin\`."
    echo
    echo "## Commands"
    echo
    echo "Once: \`cargo build --release\`; \`yahtzee solve --rules yatzy\` and \`--rules yahtzee\` with"
    echo "\$YAHTZEE_TABLE_DIR=\$TABLES (a temp folder); in the peer's clone"
    echo "\`cd solver && cargo build --release --locked --bin yatzy-precompute --bin yatzy-simulate\`;"
    echo "\`YATZY_BASE_PATH=\$PEER_BASE yatzy-precompute\`$( ((HAVE_ORACLE)) && echo "; \`YATZY_BASE_PATH=\$PEER_BASE yatzy-precompute --oracle\`")."
    echo "Then one untimed warm-up run of each tool ($WARM games, seed 0), and $RUNS round(s), i = 1..$RUNS,"
    echo "interleaved in this order:"
    echo
    echo '```sh'
    echo "$CMD_OURS_YATZY"
    echo "$CMD_PEER_LOCKSTEP"
    if ((HAVE_ORACLE)); then echo "$CMD_PEER_ORACLE"; fi
    echo "$CMD_OURS_YAHTZEE"
    echo '```'
    echo
    echo "\`target/release/yahtzee\` stands for a copy of it taken right after the build (a build by someone"
    echo "else in the repository cannot replace it mid-run)."
    echo "Each wrapped in \`/usr/bin/time -f %M\` for the peak RSS (KB, reported here in MB; for the"
    echo "oracle it counts the pages of the mmapped oracle file it touched), wall time from \`date +%s.%N\`."
    echo "Temporary paths (\$TABLES, the peer's clone and \$PEER_BASE) were under \`$WORK\`$([[ -n "${PEER_DIR:-}" ]] && echo " and \`$PEERS\`")."
    echo
    echo "## Notes"
    echo
    echo "- A figure reported elsewhere gave the peer's lockstep engine at about 87,000 games/s (11.45 s"
    echo "  for 1,000,000 games) on this kind of machine. The figures above are what commit $PEER_COMMIT"
    echo "  of the peer does here, built as it ships. Its lockstep engine was reworked for speed in its"
    echo "  commits of 2026-07-05 (hoisted buffers, per-group decision tables, persisted per-keep EVs,"
    echo "  parallel serial phases; \`git log -- solver/src/simulation/lockstep.rs\`); an older commit,"
    echo "  e.g. \`PEER_REV=7d884d8\` (2026-03-01, the last before them), is timed with the same script."
    if ((!HAVE_ORACLE)); then
        echo "- Oracle: $ORACLE_NOTE."
    fi
    echo
    echo "## Raw times"
    echo
    echo '```'
    echo -e "label\tround\twall_s\tpeak_kb"
    cut -f1-4 "$SETUP"
    cut -f1-4 "$TIMES"
    echo '```'
} >"$OUT"
log "wrote $OUT"
cat "$WORK/verdicts.txt" >&2
