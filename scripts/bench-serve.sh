#!/usr/bin/env bash
# Times `yahtzee serve` as a player meets it, and writes a dated Markdown record to
# results/serve-YYYY-MM-DD.md.
#
#   scripts/bench-serve.sh           # from the repository root or anywhere inside it
#
# What it measures (the goals of issue 13):
#   1. Start: the tables of yahtzee cached, the time from starting `yahtzee serve` to the page
#      answering (GET /) and to the table being ready (GET /api/status): the page is usable
#      then. Goal: within 1 s. STARTS starts, the median and the worst reported.
#   2. Advice: REQUESTS requests to /api/advise (positions of every kind: a new game, mid-game
#      cards, one and no roll left), one after the other on one kept-alive connection, after
#      WARM requests not counted (the server warm). Goal: the median within 5 ms. The time
#      is the client's, from sending the request to reading the whole answer.
#   3. The same for /api/card and /api/rules, for comparison.
#
# Environment:
#   STARTS=5 REQUESTS=2000 WARM=200
#   OUT=...       where to write the record (default results/serve-<date>.md)
#
# Needs: cargo, python3 (stdlib only), lscpu. Takes under a minute once the tables exist.

set -euo pipefail

STARTS=${STARTS:-5}
REQUESTS=${REQUESTS:-2000}
WARM=${WARM:-200}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-results/serve-$DATE.md}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-bench-serve.XXXXXX")
SERVER=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
log() { echo "[bench-serve] $*" >&2; }

log "building our binary (cargo build --release)"
cargo build --release --quiet
BIN=$REPO/target/release/yahtzee
export YAHTZEE_TABLE_DIR=$WORK/tables
log "solving the yahtzee table once into $YAHTZEE_TABLE_DIR"
"$BIN" solve --rules yahtzee >/dev/null

# Starts the server on a free port; sets SERVER (pid), PORT and T0 (the start, in ns).
start_server() {
  T0=$(date +%s%N)
  "$BIN" serve --port 0 >"$WORK/out" 2>"$WORK/err" &
  SERVER=$!
  until grep -q 'listening on' "$WORK/out" 2>/dev/null; do sleep 0.005; done
  PORT=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$WORK/out")
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$WORK/starts.tsv"
for i in $(seq "$STARTS"); do
  start_server
  python3 - "$PORT" "$T0" >>"$WORK/starts.tsv" <<'EOF'
import http.client, json, sys, time
port, t0 = int(sys.argv[1]), int(sys.argv[2])
page = ready = None
while ready is None:
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        if page is None:
            c.request("GET", "/")
            r = c.getresponse(); r.read()
            if r.status == 200:
                page = time.time_ns()
        c.request("GET", "/api/status")
        s = json.loads(c.getresponse().read())
        if any(t["state"] == "ready" for t in s["tables"]):
            ready = time.time_ns()
        c.close()
    except OSError:
        pass
    if ready is None:
        time.sleep(0.002)
print(f"{(page - t0) / 1e6:.1f}\t{(ready - t0) / 1e6:.1f}")
EOF
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=
done

start_server
log "timing $REQUESTS requests per endpoint on port $PORT"
python3 - "$PORT" "$REQUESTS" "$WARM" >"$WORK/requests.tsv" <<'EOF'
import http.client, json, statistics, sys, time
port, n, warm = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
lines = [
    {"dice": [1, 3, 3, 5, 6]},
    {"card": {"ones": 3, "chance": 22, "sixes": 24}, "dice": [5, 5, 2, 5, 1], "rolls_left": 1},
    {"card": {"ones": 3, "full-house": 25, "yahtzee": 50}, "yahtzee_bonus": 1, "dice": [4, 4, 4, 4, 4], "rolls_left": 0},
    {"card": {"twos": 6, "threes": 9, "fours": 12, "small-straight": 30}, "dice": [2, 3, 4, 4, 6], "rolls_left": 2},
    {"card": {"ones": 2, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "three-of-a-kind": 22}, "dice": [6, 6, 6, 2, 1], "rolls_left": 1},
]
def timed(method, path, body, count):
    out = []
    for i in range(count):
        b = body(i)
        t = time.perf_counter_ns()
        c.request(method, path, body=b, headers={"Content-Type": "application/json"} if b else {})
        r = c.getresponse(); r.read()
        out.append((time.perf_counter_ns() - t) / 1e6)
        assert r.status == 200, r.status
    return out
for name, method, path, body in [
    ("/api/advise", "POST", "/api/advise", lambda i: json.dumps(lines[i % len(lines)])),
    ("/api/card", "POST", "/api/card", lambda i: json.dumps({"card": "ones=3,chance=22", "score": {"box": "sixes", "dice": [6, 6, 6, 1, 2]}})),
    ("/api/rules", "GET", "/api/rules?rules=yahtzee", lambda i: None),
]:
    timed(method, path, body, warm)
    ms = sorted(timed(method, path, body, n))
    q = lambda p: ms[min(len(ms) - 1, int(p * len(ms)))]
    print(f"{name}\t{n}\t{statistics.median(ms):.3f}\t{q(0.9):.3f}\t{q(0.99):.3f}\t{ms[-1]:.3f}")
EOF
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

{
  echo "# yahtzee serve: start and request times, $DATE"
  echo
  echo "Made by \`scripts/bench-serve.sh\` (STARTS=$STARTS, REQUESTS=$REQUESTS, WARM=$WARM) at commit"
  echo "\`$(git rev-parse --short HEAD)\`$(git diff --quiet || echo ' (with uncommitted changes)'), on $(lscpu | sed -n 's/^Model name: *//p' | head -1),"
  echo "$(nproc) cores; load average $LOAD_START at the start and $LOAD_END at the end (the machine is shared, so"
  echo "the figures are upper bounds)."
  echo
  echo "## Start, the yahtzee table cached (goal: usable within 1 s)"
  echo
  echo "| start | page answers (ms) | table ready (ms) |"
  echo "| --- | --- | --- |"
  n=0; while IFS=$'\t' read -r page ready; do n=$((n + 1)); echo "| $n | $page | $ready |"; done <"$WORK/starts.tsv"
  python3 - "$WORK/starts.tsv" <<'EOF'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
ready = [r[1] for r in rows]
print(f"\nMedian {statistics.median(ready):.1f} ms to a usable page (table ready), worst {max(ready):.1f} ms.")
EOF
  echo
  echo "## Requests, the server warm (goal: advice median within 5 ms)"
  echo
  echo "One kept-alive connection, one request after the other, the time from sending to the whole answer read."
  echo
  echo "| endpoint | requests | median (ms) | 90% (ms) | 99% (ms) | worst (ms) |"
  echo "| --- | --- | --- | --- | --- | --- |"
  while IFS=$'\t' read -r name n med p90 p99 worst; do echo "| \`$name\` | $n | $med | $p90 | $p99 | $worst |"; done <"$WORK/requests.tsv"
} >"$OUT"
log "wrote $OUT"
cat "$OUT"
