#!/usr/bin/env bash
# Abuses `yahtzee serve` on loopback as a careless or hostile client would, and writes a
# dated Markdown record to results/abuse-serve-YYYY-MM-DD.md.
#
#   scripts/abuse-serve.sh           # from the repository root or anywhere inside it
#
# What it does (the server's limits of issue 23, part two), against `yahtzee serve` on a
# free port of 127.0.0.1 with the tables of a temporary YAHTZEE_TABLE_DIR (the Yahtzee
# expected-score table, solved first), each phase bounded in count and time:
#
# 1. slow clients: SLOW connections sending a request head a byte every 2 s, IDLE connections
#    sending nothing, one request whose body stops half-way, one announcing a body of
#    99999999999999 bytes: when the server closes each, and what it answers;
# 2. abandoned advice: ABANDONED requests for advice against an opponent from an empty
#    Yahtzee card (about half a minute of a core each), all closed after LONG_HOLD seconds
#    (two run, in the middle of their solve by then; the others wait);
# 3. a crowd: CROWD such requests at once, held HOLD seconds, then all closed;
# 4. cross-origin requests (another page's Origin, `null`) and POST bodies of text/plain,
#    a form, or no type.
#
# Checks: no answer is a 5xx but the documented 503 (with Retry-After) of a long request
# over the bound; each slow connection is closed within the head timeout (5 s) and a bit;
# the half body is answered 408 and the huge one 413 at once; cross-origin requests get 403
# and non-JSON bodies 415; after the clients of phases 2 and 3 leave, the server's CPU time
# (utime + stime of /proc/PID/stat) stops growing within 2 s (a window of 1 s with less
# than 0.05 s of CPU); its resident memory (VmRSS, sampled every 0.1 s) stays under
# RSS_LIMIT_MB; at the end the server answers and has not panicked.
#
# Environment:
#   SLOW=20 IDLE=50 ABANDONED=4 CROWD=30 HOLD=3 LONG_HOLD=12 RSS_LIMIT_MB=1024
#   OUT=...       where to write the record (default results/abuse-serve-<date>.md)
#
# Needs: cargo, python3 (standard library only), Linux (/proc), lscpu.

set -euo pipefail

export SLOW=${SLOW:-20} IDLE=${IDLE:-50} ABANDONED=${ABANDONED:-4} CROWD=${CROWD:-30}
export HOLD=${HOLD:-3} LONG_HOLD=${LONG_HOLD:-12} RSS_LIMIT_MB=${RSS_LIMIT_MB:-1024}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
DATE=$(date -u +%Y-%m-%d)
export OUT=${OUT:-results/abuse-serve-$DATE.md}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-abuse-serve.XXXXXX")
SERVER=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
log() { echo "[abuse-serve] $*" >&2; }

log "building our binary (cargo build --release)"
cargo build --release --quiet
BIN=$REPO/target/release/yahtzee
export YAHTZEE_TABLE_DIR=$WORK/tables
log "the yahtzee table in $YAHTZEE_TABLE_DIR"
"$BIN" solve --rules yahtzee >/dev/null

"$BIN" serve --port 0 >"$WORK/out" 2>"$WORK/err" &
SERVER=$!
for _ in $(seq 500); do grep -q 'listening on' "$WORK/out" 2>/dev/null && break; sleep 0.01; done
PORT=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$WORK/out")
if [ -z "$PORT" ]; then
  echo "abuse-serve: the server did not start: $(cat "$WORK/err")" >&2
  exit 1
fi
export PORT SERVER_PID=$SERVER SERVER_ERR=$WORK/err
export COMMIT=$(git rev-parse --short HEAD)
export CPU_MODEL=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
export CORES=$(nproc)
log "server $SERVER on port $PORT; abusing it (about a minute)"

set +e
python3 - <<'PY'
import json, os, socket, sys, threading, time

PORT = int(os.environ["PORT"])
PID = int(os.environ["SERVER_PID"])
SLOW, IDLE = int(os.environ["SLOW"]), int(os.environ["IDLE"])
ABANDONED, CROWD = int(os.environ["ABANDONED"]), int(os.environ["CROWD"])
HOLD, LONG_HOLD = float(os.environ["HOLD"]), float(os.environ["LONG_HOLD"])
RSS_LIMIT_MB = int(os.environ["RSS_LIMIT_MB"])
TICK = os.sysconf("SC_CLK_TCK")
EXPENSIVE = '{"dice": [1, 3, 3, 5, 6], "opponents": [{"final": 250}]}'


def cpu_seconds():
    with open(f"/proc/{PID}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb():
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


peak = {"rss": 0.0}
sampling = True


def sample():
    while sampling:
        try:
            peak["rss"] = max(peak["rss"], rss_mb())
        except OSError:
            return
        time.sleep(0.1)


threading.Thread(target=sample, daemon=True).start()
statuses = []  # every status answered, with what was asked
lock = threading.Lock()


def note(what, status):
    with lock:
        statuses.append((what, status))


def connect():
    s = socket.create_connection(("127.0.0.1", PORT), timeout=60)
    return s


def request(method, path, body="", headers=None):
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\n"
    for k, v in (headers or {}).items():
        head += f"{k}: {v}\r\n"
    head += f"Content-Length: {len(body.encode())}\r\nConnection: close\r\n\r\n"
    return (head + body).encode()


def read_all(s, limit=30):
    s.settimeout(limit)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    return out.decode("utf-8", "replace")


def status_of(answer):
    parts = answer.split(" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[0].startswith("HTTP/") else None


def ask(what, raw):
    s = connect()
    start = time.monotonic()
    s.sendall(raw)
    answer = read_all(s)
    s.close()
    status = status_of(answer)
    note(what, status)
    return status, answer, time.monotonic() - start


def idle_after(left):
    """Seconds from `left` until a 1 s window with under 0.05 s of CPU starts (30 s at most),
    from the CPU time sampled every 0.1 s."""
    samples = []
    while time.monotonic() - left < 31:
        samples.append((time.monotonic() - left, cpu_seconds()))
        # The earliest sample followed, 1 s later, by less than 0.05 s more.
        for t, c in samples:
            later = [c2 for t2, c2 in samples if t2 >= t + 1.0]
            if later and later[0] - c < 0.05:
                return t
        time.sleep(0.1)
    return None


results = {}
verdicts = []


def verdict(name, ok, detail):
    verdicts.append((name, ok, detail))


# -- 1. slow clients, idle sockets, half a body, a huge body -----------------------------
def slow_client(i, out):
    s = connect()
    start = time.monotonic()
    head = b"GET /api/status HTTP/1.1\r\nHost: localhost\r\n\r\n"
    closed = None
    for b in head:
        try:
            s.sendall(bytes([b]))
        except OSError:
            break
        s.settimeout(2.0)
        try:
            if s.recv(65536) == b"":
                closed = time.monotonic() - start
                break
        except socket.timeout:
            pass
        except OSError:
            closed = time.monotonic() - start
            break
        if time.monotonic() - start > 30:
            break
    out[i] = closed
    s.close()


def idle_client(i, out):
    s = connect()
    start = time.monotonic()
    answer = read_all(s, 30)
    out[i] = (time.monotonic() - start, status_of(answer))
    s.close()


slow, idle = [None] * SLOW, [None] * IDLE
threads = [threading.Thread(target=slow_client, args=(i, slow)) for i in range(SLOW)]
threads += [threading.Thread(target=idle_client, args=(i, idle)) for i in range(IDLE)]
half = {}


def half_body():
    s = connect()
    start = time.monotonic()
    s.sendall(b"POST /api/advise HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"di")
    answer = read_all(s)
    half["seconds"] = time.monotonic() - start
    half["status"] = status_of(answer)
    note("half a body", half["status"])
    s.close()


threads.append(threading.Thread(target=half_body))
for t in threads:
    t.start()
huge = ask(
    "Content-Length: 99999999999999",
    b"POST /api/advise HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 99999999999999\r\n\r\n",
)
for t in threads:
    t.join()
slow_closed = [c for c in slow if c is not None]
idle_closed = [c for c, _ in idle if c < 29]
results["slow"] = {
    "closed": len(slow_closed),
    "max": max(slow_closed, default=None),
    "idle_closed": len(idle_closed),
    "idle_max": max(idle_closed, default=None),
}
verdict(
    f"{SLOW} clients sending a head byte every 2 s are closed within 8 s",
    len(slow_closed) == SLOW and max(slow_closed) <= 8,
    f"{len(slow_closed)} closed, the last after {max(slow_closed, default=0):.1f} s",
)
verdict(
    f"{IDLE} idle connections are closed within 8 s",
    len(idle_closed) == IDLE and max(idle_closed) <= 8,
    f"{len(idle_closed)} closed, the last after {max(idle_closed, default=0):.1f} s",
)
verdict(
    "a body stopped half-way is answered 408 within 8 s",
    half.get("status") == 408 and half["seconds"] <= 8,
    f"{half.get('status')} after {half.get('seconds', 0):.1f} s",
)
verdict(
    "a body announced as 99999999999999 bytes is answered 413 at once",
    huge[0] == 413 and huge[2] < 1,
    f"{huge[0]} after {huge[2] * 1000:.0f} ms",
)


# -- 2. abandoned advice; 3. a crowd -----------------------------------------------------
def abandon(n, name, hold):
    raw = request("POST", "/api/advise", EXPENSIVE, {"Content-Type": "application/json"})
    socks = []
    for _ in range(n):
        s = connect()
        s.sendall(raw)
        socks.append(s)
    cpu0 = cpu_seconds()
    time.sleep(hold)
    # Those answered meanwhile (503 at once past the bound) have their answer waiting.
    answered = {}
    retry_after = set()
    for s in socks:
        s.setblocking(False)
        try:
            data = s.recv(65536).decode("utf-8", "replace")
        except BlockingIOError:
            data = ""
        if data:
            st = status_of(data)
            answered[st] = answered.get(st, 0) + 1
            note(name, st)
            for line in data.split("\r\n"):
                if line.lower().startswith("retry-after:"):
                    retry_after.add(line.split(":", 1)[1].strip())
    cpu_held = cpu_seconds() - cpu0
    for s in socks:
        s.close()
    left = time.monotonic()
    cpu_left = cpu_seconds()
    idle = idle_after(left)
    return {
        "requests": n,
        "hold": hold,
        "answered_while_held": answered,
        "retry_after": sorted(retry_after),
        "cpu_while_held": cpu_held,
        "idle_after": idle,
        "cpu_after_leaving": cpu_seconds() - cpu_left,
    }


time.sleep(1)
results["abandoned"] = a = abandon(ABANDONED, "abandoned advice", LONG_HOLD)
verdict(
    f"{ABANDONED} requests for advice against an opponent abandoned after {LONG_HOLD:.0f} s: CPU idle within 2 s of the clients leaving",
    a["idle_after"] is not None and a["idle_after"] <= 2,
    f"idle after {a['idle_after'] if a['idle_after'] is None else round(a['idle_after'], 1)} s; {a['cpu_after_leaving']:.1f} s of CPU after they left (until idle, plus the idle second); {a['cpu_while_held']:.1f} s while held",
)
results["crowd"] = c = abandon(CROWD, "crowd", HOLD)
busy = c["answered_while_held"].get(503, 0)
verdict(
    f"{CROWD} expensive requests at once: all but 10 answered 503 with Retry-After at once",
    busy == CROWD - 10 and c["retry_after"] == ["10"],
    f"{busy} answered 503 (Retry-After {', '.join(c['retry_after']) or 'none'}), the others held",
)
verdict(
    f"{CROWD} expensive requests at once, all abandoned after {HOLD:.0f} s: CPU idle within 2 s of the clients leaving",
    c["idle_after"] is not None and c["idle_after"] <= 2,
    f"idle after {c['idle_after'] if c['idle_after'] is None else round(c['idle_after'], 1)} s; {c['cpu_after_leaving']:.1f} s of CPU after they left",
)

# -- 4. other origins and other types ----------------------------------------------------
line = '{"dice": [1, 3, 3, 5, 6]}'
json_type = {"Content-Type": "application/json"}
origin_cases = [
    ("Origin: http://evil.example (POST)", "POST", "/api/advise", line, {**json_type, "Origin": "http://evil.example"}, 403),
    ("Origin: null (POST)", "POST", "/api/stats", "", {**json_type, "Origin": "null"}, 403),
    ("Origin: http://evil.example (GET)", "GET", "/api/status", "", {"Origin": "http://evil.example"}, 403),
    ("text/plain", "POST", "/api/advise", line, {"Content-Type": "text/plain"}, 415),
    ("a form", "POST", "/api/advise", line, {"Content-Type": "application/x-www-form-urlencoded"}, 415),
    ("no type", "POST", "/api/advise", line, {}, 415),
    ("text/plain, no body", "POST", "/api/load", "", {"Content-Type": "text/plain"}, 415),
    ("own origin, JSON", "POST", "/api/advise", line, {**json_type, "Origin": f"http://127.0.0.1:{PORT}"}, 200),
]
results["origins"] = []
for what, method, path, body, headers, want in origin_cases:
    got, answer, _ = ask(what, request(method, path, body, headers))
    results["origins"].append((what, method, path, want, got))
verdict(
    "cross-origin requests get 403, non-JSON bodies 415, the page's own 200",
    all(want == got for _, _, _, want, got in results["origins"]),
    ", ".join(f"{w}: {g}" for w, _, _, _, g in results["origins"]),
)

# -- the end -----------------------------------------------------------------------------
sampling = False
final, _, _ = ask("after", request("GET", "/api/status"))
with open(os.environ["SERVER_ERR"]) as f:
    err = f.read()
fives = [(w, s) for w, s in statuses if s is not None and s >= 500 and s != 503]
verdict("no 5xx but 503", not fives, f"{len(statuses)} answers; other 5xx: {fives or 'none'}")
verdict(
    f"resident memory under {RSS_LIMIT_MB} MB",
    peak["rss"] <= RSS_LIMIT_MB,
    f"peak VmRSS {peak['rss']:.0f} MB",
)
verdict(
    "the server answers at the end and never panicked",
    final == 200 and "panicked" not in err,
    f"/api/status {final}; panics on stderr: {err.count('panicked')}",
)

counts = {}
for _, s in statuses:
    counts[s] = counts.get(s, 0) + 1
env = os.environ
md = []
md.append(f"# `yahtzee serve` under abuse, {time.strftime('%Y-%m-%d', time.gmtime())}\n")
md.append(
    f"`scripts/abuse-serve.sh` at commit {env['COMMIT']}, on {env['CORES']} cores ({env['CPU_MODEL']}), "
    f"the server and its clients on the same machine (loopback). The server: `yahtzee serve --port 0` "
    f"(rules yahtzee) with a temporary `YAHTZEE_TABLE_DIR` holding the Yahtzee expected-score table. "
    f"Settings: SLOW={SLOW} IDLE={IDLE} ABANDONED={ABANDONED} CROWD={CROWD} HOLD={HOLD:g} LONG_HOLD={LONG_HOLD:g} RSS_LIMIT_MB={RSS_LIMIT_MB}.\n"
)
md.append("The expensive request (advice against a finished opponent from an empty Yahtzee card, the best response solved over every card; about half a minute of a core):\n")
md.append(f"```sh\ncurl -s -H 'Content-Type: application/json' http://127.0.0.1:PORT/api/advise -d '{EXPENSIVE}'\n```\n")
md.append("## Verdicts\n")
md.append("| check | verdict | figures |\n| --- | --- | --- |")
for name, ok, detail in verdicts:
    md.append(f"| {name} | {'pass' if ok else '**FAIL**'} | {detail} |")
md.append("")
md.append("## Figures\n")
md.append(f"- Slow clients: {results['slow']['closed']} of {SLOW} closed (the last after {results['slow']['max'] or 0:.1f} s); idle connections: {results['slow']['idle_closed']} of {IDLE} closed (the last after {results['slow']['idle_max'] or 0:.1f} s). The head timeout is 5 s.")
md.append(f"- Half a body: {half.get('status')} after {half.get('seconds', 0):.1f} s (the body timeout is 5 s); a body of 99999999999999 bytes announced: {huge[0]} after {huge[2] * 1000:.0f} ms.")
for key, title in [("abandoned", "Abandoned advice"), ("crowd", "The crowd")]:
    r = results[key]
    idle_text = "never (30 s)" if r["idle_after"] is None else f"{r['idle_after']:.1f} s"
    md.append(
        f"- {title}: {r['requests']} requests held {r['hold']:.0f} s (answered meanwhile: {r['answered_while_held'] or 'none'}), "
        f"{r['cpu_while_held']:.1f} s of server CPU while held; after the clients left, idle after {idle_text}, "
        f"{r['cpu_after_leaving']:.1f} s of CPU from their leaving to the end of the idle second."
    )
md.append(f"- Peak resident memory of the server: {peak['rss']:.0f} MB.")
md.append(f"- Answers by status: {', '.join(f'{k}: {v}' for k, v in sorted(counts.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)))} (None: closed without an answer).")
md.append("\n## Other origins and types\n")
md.append("| request | method, path | expected | answered |\n| --- | --- | --- | --- |")
for what, method, path, want, got in results["origins"]:
    md.append(f"| {what} | {method} {path} | {want} | {got} |")
md.append("")
with open(env["OUT"], "w") as f:
    f.write("\n".join(md))
failed = [v for v in verdicts if not v[1]]
for name, ok, detail in verdicts:
    print(f"[abuse-serve] {'pass' if ok else 'FAIL'}: {name}: {detail}", file=sys.stderr)
sys.exit(1 if failed else 0)
PY
status=$?
set -e
log "wrote $OUT"
exit $status
