#!/usr/bin/env bash
# Loads `yahtzee serve` with advice requests from many concurrent connections on loopback
# and writes a dated Markdown record to results/serve-load-YYYY-MM-DD.md.
#
#   scripts/load-serve.sh            # from the repository root or anywhere inside it
#
# What it measures (the load goal of issue 13): ROUNDS rounds of SECONDS seconds each of
# POST /api/advise from CONNECTIONS kept-alive connections (wrk, THREADS client threads),
# the bodies cycling through positions of every kind (a new game, mid-game cards, one and no
# roll left, a Joker, a target). For each round: the requests answered, the requests per
# second, the latency median and 99th percentile, every error (a status other than 200, a
# socket error or a timeout), and the server's resident memory (VmRSS) after the round.
# Goals: at least 20,000 requests in all with no error, at least 5,000 requests per second
# on 2 cores, p99 at most 20 ms, and no growth in memory from round to round.
#
# The client runs on the same machine as the server and takes some of its CPU: the
# throughput is a lower bound of what the server does alone.
#
# Environment:
#   ROUNDS=5 SECONDS_PER_ROUND=10 CONNECTIONS=64 THREADS=1
#   OUT=...       where to write the record (default results/serve-load-<date>.md)
#
# Needs: cargo, wrk (Debian: apt-get install wrk), lscpu.

set -euo pipefail

ROUNDS=${ROUNDS:-5}
SECONDS_PER_ROUND=${SECONDS_PER_ROUND:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-1}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-results/serve-load-$DATE.md}
if ! command -v wrk >/dev/null; then
  echo "load-serve: wrk is not installed: install it (Debian: apt-get install wrk)" >&2
  exit 2
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-load-serve.XXXXXX")
SERVER=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
log() { echo "[load-serve] $*" >&2; }

log "building our binary (cargo build --release)"
cargo build --release --quiet
BIN=$REPO/target/release/yahtzee
if [ -z "${YAHTZEE_TABLE_DIR:-}" ]; then export YAHTZEE_TABLE_DIR=$WORK/tables; fi
log "the yahtzee tables in $YAHTZEE_TABLE_DIR (solved once if missing)"
"$BIN" solve --rules yahtzee >/dev/null
"$BIN" solve --rules yahtzee --objective target >/dev/null

"$BIN" serve --port 0 >"$WORK/out" 2>"$WORK/err" &
SERVER=$!
until grep -q 'listening on' "$WORK/out" 2>/dev/null; do sleep 0.01; done
PORT=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$WORK/out")
URL=http://127.0.0.1:$PORT/api/advise
until curl -sf "http://127.0.0.1:$PORT/api/status" | grep -q '"ready"'; do sleep 0.05; done
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$SERVER/status"; }

# The bodies, one per request in turn; each answered 200 (checked once here with curl).
cat >"$WORK/bodies.jsonl" <<'EOF'
{"dice": [1, 3, 3, 5, 6]}
{"card": {"ones": 3, "chance": 22, "sixes": 24}, "dice": [5, 5, 2, 5, 1], "rolls_left": 1}
{"card": {"ones": 3, "full-house": 25, "yahtzee": 50}, "yahtzee_bonus": 1, "dice": [4, 4, 4, 4, 4], "rolls_left": 0}
{"card": {"twos": 6, "threes": 9, "fours": 12, "small-straight": 30}, "dice": [2, 3, 4, 4, 6], "rolls_left": 2}
{"card": {"ones": 2, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "three-of-a-kind": 22}, "dice": [6, 6, 6, 2, 1], "rolls_left": 1}
{"card": {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "chance": 21}, "dice": [2, 3, 4, 5, 6], "rolls_left": 0}
{"card": {"threes": 9, "yahtzee": 50, "large-straight": 40}, "dice": [1, 1, 2, 5, 6], "rolls_left": 2, "target": 250}
EOF
while IFS= read -r body; do
  status=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL" -d "$body")
  if [ "$status" != 200 ]; then
    echo "load-serve: the body $body was answered $status, not 200" >&2
    exit 1
  fi
done <"$WORK/bodies.jsonl"

# wrk's script: the bodies in turn; at the end one line of figures, for this script to read.
{
  echo 'bodies = {'
  while IFS= read -r body; do
    printf '  "%s",\n' "$(printf '%s' "$body" | sed 's/"/\\"/g')"
  done <"$WORK/bodies.jsonl"
  echo '}'
  cat <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local i = 0
request = function()
  i = i % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[i])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("FIGURES %d %d %.3f %.3f %.3f %.3f %d %d %d %d %d\n",
    summary.requests, summary.duration, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, latency.mean / 1000,
    e.status, e.connect, e.read, e.write, e.timeout))
end
EOF
} >"$WORK/advise.lua"

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
RSS0=$(rss)
log "warming up (2 s), then $ROUNDS rounds of ${SECONDS_PER_ROUND} s from $CONNECTIONS connections on port $PORT"
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -s "$WORK/advise.lua" "$URL" >/dev/null
RSS_WARM=$(rss)
: >"$WORK/rounds.tsv"
for r in $(seq "$ROUNDS"); do
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_PER_ROUND}s" -s "$WORK/advise.lua" "$URL" >"$WORK/wrk-$r.txt"
  read -r _ n us p50 p99 max mean status connect readerr writeerr timeout < <(grep '^FIGURES' "$WORK/wrk-$r.txt")
  echo -e "$r\t$n\t$us\t$p50\t$p99\t$max\t$mean\t$((status + connect + readerr + writeerr + timeout))\t$(rss)" >>"$WORK/rounds.tsv"
  log "round $r: $(tail -1 "$WORK/rounds.tsv")"
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=

{
  echo "# yahtzee serve under load, $DATE"
  echo
  echo "Made by \`scripts/load-serve.sh\` (ROUNDS=$ROUNDS, SECONDS_PER_ROUND=$SECONDS_PER_ROUND, CONNECTIONS=$CONNECTIONS, THREADS=$THREADS) at commit"
  echo "\`$(git rev-parse --short HEAD)\`$(git diff --quiet || echo ' (with uncommitted changes)'), on $(lscpu | sed -n 's/^Model name: *//p' | head -1),"
  echo "$(nproc) cores; load average $LOAD_START at the start and $LOAD_END at the end. $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
  echo "runs on the same cores as the server (its CPU is taken from the server's: the throughput"
  echo "is a lower bound)."
  echo
  echo "POST /api/advise, the bodies in turn:"
  echo
  echo '```json'
  cat "$WORK/bodies.jsonl"
  echo '```'
  echo
  echo "The server's resident memory: $RSS0 kB before any load, $RSS_WARM kB after a 2-s warm-up."
  echo
  echo "| round | requests | requests/s | p50 (ms) | p99 (ms) | worst (ms) | errors | server RSS after (kB) |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  while IFS=$'\t' read -r r n us p50 p99 max mean errors rss_after; do
    echo "| $r | $n | $(python3 -c "print(f'{$n / ($us / 1e6):.0f}')") | $p50 | $p99 | $max | $errors | $rss_after |"
  done <"$WORK/rounds.tsv"
  python3 - "$WORK/rounds.tsv" <<'EOF'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]) if l.strip()]
n = sum(int(r[1]) for r in rows)
rps = statistics.median(int(r[1]) / (int(r[2]) / 1e6) for r in rows)
p99 = statistics.median(float(r[4]) for r in rows)
errors = sum(int(r[7]) for r in rows)
rss = [int(r[8]) for r in rows]
print()
print(f"In all {n:,} requests, {errors} errors; median over the rounds {rps:,.0f} requests per second "
      f"(goal 5,000), p99 {p99:.2f} ms (goal 20 ms); server RSS from {rss[0]:,} kB after round 1 "
      f"to {rss[-1]:,} kB after round {len(rss)} ({rss[-1] - rss[0]:+,} kB).")
EOF
} >"$OUT"
log "wrote $OUT"
cat "$OUT"
