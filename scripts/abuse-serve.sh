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
#    a form, or no type;
# 5. requests that do not name their one host as RFC 9112 asks (issue 45): two `Host`
#    headers (either order), HTTP/1.1 without `Host`, a target in absolute form naming
#    another host, a `Host` with user information; HTTP/1.0 without `Host`, and an absolute
#    target naming the server itself;
# 6. a flood of connections (issue 45): the cap of connections held (MAX_CONNECTIONS of
#    crates/serve/src/limits.rs) and CONN_EXTRA more, all idle, then one request on each of
#    the extra ones;
# 7. the token file of `serve --lan` (issue 45), each in a fresh YAHTZEE_TABLE_DIR: a file of
#    mode 644 and of mode 666 holding 48 zeros, a link to such a file, each refused (exit 2
#    within 10 s, the link's target untouched); `--new-token` then replaces each with a file
#    of mode 600, the link itself and never its target.
#
# Checks: no answer is a 5xx but the documented 503 (with Retry-After) of a long request
# over the bound; each slow connection is closed within the head timeout (5 s) and a bit;
# the half body is answered 408 and the huge one 413 at once; cross-origin requests get 403
# and non-JSON bodies 415; the requests of phase 5 get 400 (the last two 200); with the cap
# of connections held, the server's open files grow by at most the cap and a few, the extra
# connections get no answer while the others are held and a 200 each within 2 s of their
# closing; the token files of phase 7 are refused and replaced as said; after the clients of
# phases 2 and 3 leave, the server's CPU time
# (utime + stime of /proc/PID/stat) stops growing within 2 s (a window of 1 s with less
# than 0.05 s of CPU); its resident memory (VmRSS, sampled every 0.1 s) stays under
# RSS_LIMIT_MB; at the end the server answers and has not panicked.
#
# Environment:
#   SLOW=20 IDLE=50 ABANDONED=4 CROWD=30 HOLD=3 LONG_HOLD=12 RSS_LIMIT_MB=1024 CONN_EXTRA=20
#   OUT=...       where to write the record (default results/abuse-serve-<date>.md)
#
# Needs: cargo, python3 (standard library only), Linux (/proc), lscpu.

set -euo pipefail

export SLOW=${SLOW:-20} IDLE=${IDLE:-50} ABANDONED=${ABANDONED:-4} CROWD=${CROWD:-30}
export HOLD=${HOLD:-3} LONG_HOLD=${LONG_HOLD:-12} RSS_LIMIT_MB=${RSS_LIMIT_MB:-1024}
export CONN_EXTRA=${CONN_EXTRA:-20}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
# The cap of connections held, as the server's source states it.
export CONN_CAP=$(sed -n 's/^pub const MAX_CONNECTIONS: usize = \([0-9]*\);/\1/p' crates/serve/src/limits.rs)
if [ -z "$CONN_CAP" ]; then
  echo "abuse-serve: no MAX_CONNECTIONS in crates/serve/src/limits.rs" >&2
  exit 1
fi
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
export PORT SERVER_PID=$SERVER SERVER_ERR=$WORK/err BIN WORK
export COMMIT=$(git rev-parse --short HEAD)
export CPU_MODEL=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
export CORES=$(nproc)
log "server $SERVER on port $PORT; abusing it (about a minute)"

set +e
python3 - <<'PY'
import json, os, shutil, socket, stat, subprocess, sys, threading, time

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

# -- 5. the one host of a request (RFC 9112) ---------------------------------------------
host_cases = [
    ("two Host headers", "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n", 400),
    ("two Host headers, the other first", "GET /api/status HTTP/1.1\r\nHost: evil.example\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 400),
    ("HTTP/1.1 without Host", "GET /api/status HTTP/1.1\r\nConnection: close\r\n\r\n", 400),
    ("absolute target of another host", "GET http://evil.example/api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 400),
    ("Host with user information", "GET /api/status HTTP/1.1\r\nHost: me@127.0.0.1\r\nConnection: close\r\n\r\n", 400),
    ("HTTP/1.0 without Host", "GET /api/status HTTP/1.0\r\n\r\n", 200),
    ("absolute target of the server", f"GET http://127.0.0.1:{PORT}/api/status HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nConnection: close\r\n\r\n", 200),
]
results["hosts"] = []
for what, raw, want in host_cases:
    got, _, _ = ask(what, raw.encode())
    results["hosts"].append((what, want, got))
verdict(
    "requests that do not name their one host get 400 (RFC 9112), the others 200",
    all(want == got for _, want, got in results["hosts"]),
    ", ".join(f"{w}: {g}" for w, _, g in results["hosts"]),
)


# -- 6. a flood of connections -----------------------------------------------------------
def open_files():
    return len(os.listdir(f"/proc/{PID}/fd"))


CONN_CAP, CONN_EXTRA = int(os.environ["CONN_CAP"]), int(os.environ["CONN_EXTRA"])
time.sleep(2)  # the server done with the connections of the phases before
files_before = open_files()
held = [connect() for _ in range(CONN_CAP)]
extra = [connect() for _ in range(CONN_EXTRA)]
for s in extra:
    s.sendall(request("GET", "/api/status"))
time.sleep(1.5)
files_held = open_files()
answered_while_held = 0
for s in extra:
    s.setblocking(False)
    try:
        if s.recv(1):
            answered_while_held += 1
    except BlockingIOError:
        pass
    s.setblocking(True)
closed_at = time.monotonic()
for s in held:
    s.close()
extra_statuses, extra_seconds = [], []
for s in extra:
    answer = read_all(s, 10)
    extra_statuses.append(status_of(answer))
    extra_seconds.append(time.monotonic() - closed_at)
    note("past the cap", extra_statuses[-1])
    s.close()
results["flood"] = {
    "cap": CONN_CAP,
    "extra": CONN_EXTRA,
    "files_before": files_before,
    "files_held": files_held,
    "answered_while_held": answered_while_held,
    "statuses": sorted(set(map(str, extra_statuses))),
    "last": max(extra_seconds, default=0),
}
verdict(
    f"{CONN_CAP} idle connections (the cap) and {CONN_EXTRA} more: the server holds the cap, the others wait unanswered, then get 200 within 2 s of the held ones closing",
    files_held - files_before <= CONN_CAP + 4
    and answered_while_held == 0
    and all(st == 200 for st in extra_statuses)
    and max(extra_seconds, default=0) <= 2,
    f"open files {files_before} -> {files_held} while held; {answered_while_held} of the {CONN_EXTRA} answered while held; then {', '.join(results['flood']['statuses'])} within {results['flood']['last']:.1f} s",
)


# -- 7. the token file of serve --lan ----------------------------------------------------
BIN, WORK = os.environ["BIN"], os.environ["WORK"]
PLANTED = "0" * 48 + "\n"


def lan(folder, *extra_args, wait=10):
    """`serve --lan` on loopback with the tables of `folder`: (exit status, or None if it
    still runs after `wait` seconds, then stopped; its stderr's first line)."""
    env = dict(os.environ, YAHTZEE_TABLE_DIR=folder)
    p = subprocess.Popen(
        [BIN, "serve", "--lan", "--host", "127.0.0.1", "--port", "0", *extra_args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env, text=True,
    )
    try:
        out, err = p.communicate(timeout=wait)
        return p.returncode, err.strip().splitlines()[0] if err.strip() else ""
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return None, ""


def token_case(name, make):
    folder = os.path.join(WORK, f"lan-{name}")
    os.makedirs(folder)
    path = os.path.join(folder, "serve-lan.token")
    target = make(folder, path)
    refused = lan(folder)
    target_kept = target is None or open(target).read() == PLANTED
    rotated = lan(folder, "--new-token", wait=3)
    st = os.lstat(path)
    replaced = (
        stat.S_ISREG(st.st_mode)
        and (st.st_mode & 0o777) == 0o600
        and open(path).read() != PLANTED
        and (target is None or open(target).read() == PLANTED)
    )
    return {"case": name, "refused": refused, "target_kept": target_kept, "rotated": rotated[0], "replaced": replaced}


def planted(mode):
    def make(folder, path):
        with open(path, "w") as f:
            f.write(PLANTED)
        os.chmod(path, mode)
        return None
    return make


def linked(folder, path):
    target = os.path.join(folder, "elsewhere")
    with open(target, "w") as f:
        f.write(PLANTED)
    os.chmod(target, 0o600)
    os.symlink(target, path)
    return target


results["tokens"] = [
    token_case("mode 644", planted(0o644)),
    token_case("mode 666", planted(0o666)),
    token_case("a link", linked),
]
verdict(
    "serve --lan refuses a token file others can read or write, or a link (exit 2), and --new-token replaces it with one of mode 600 (the link, not its target)",
    all(
        r["refused"][0] == 2 and "--new-token" in r["refused"][1] and r["target_kept"]
        and r["rotated"] is None and r["replaced"]
        for r in results["tokens"]
    ),
    "; ".join(
        f"{r['case']}: exit {r['refused'][0]}, then --new-token {'runs' if r['rotated'] is None else 'exits ' + str(r['rotated'])}, file {'replaced, mode 600' if r['replaced'] else 'NOT replaced'}"
        for r in results["tokens"]
    ),
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
    f"Settings: SLOW={SLOW} IDLE={IDLE} ABANDONED={ABANDONED} CROWD={CROWD} HOLD={HOLD:g} LONG_HOLD={LONG_HOLD:g} RSS_LIMIT_MB={RSS_LIMIT_MB} CONN_EXTRA={CONN_EXTRA} (the cap of connections, MAX_CONNECTIONS: {CONN_CAP}).\n"
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
md.append(
    f"- Connections: with the cap of {results['flood']['cap']} held idle, the server's open files went from "
    f"{results['flood']['files_before']} to {results['flood']['files_held']}; of {results['flood']['extra']} more, "
    f"{results['flood']['answered_while_held']} were answered while the others were held, and after they closed, "
    f"all got {', '.join(results['flood']['statuses'])} within {results['flood']['last']:.1f} s."
)
md.append("\n## The host of a request (RFC 9112)\n")
md.append("| request | expected | answered |\n| --- | --- | --- |")
for what, want, got in results["hosts"]:
    md.append(f"| {what} | {want} | {got} |")
md.append("\n## The token file of `serve --lan`\n")
md.append("| file | without --new-token | the refusal | --new-token |\n| --- | --- | --- | --- |")
for r in results["tokens"]:
    md.append(
        f"| {r['case']} | exit {r['refused'][0]} | {r['refused'][1].replace('|', '/')} | "
        f"{'runs' if r['rotated'] is None else 'exit ' + str(r['rotated'])}, "
        f"{'replaced by a file of mode 600' if r['replaced'] else 'NOT replaced'}"
        f"{', the link target untouched' if r['case'] == 'a link' and r['target_kept'] else ''} |"
    )
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
