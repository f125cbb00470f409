#!/usr/bin/env bash
# Fuzzes the request bodies, paths and query parameters of `yahtzee serve` with schemathesis
# against the API's own description, openapi.yaml, and writes a dated Markdown record to
# results/serve-fuzz-YYYY-MM-DD.md.
#
#   scripts/fuzz-serve.sh            # from the repository root or anywhere inside it
#
# Every operation of openapi.yaml gets up to EXAMPLES generated requests in each of
# schemathesis's phases (the schema's examples, its coverage phase of boundary and invalid
# values, and random fuzzing), valid and invalid (`--mode all`), seeded by SEED. The checks:
# no answer is a server error (5xx), and every answer's status is one the description lists
# for the operation. A request may take as long as its work (up to minutes for an outlook
# from an early Yahtzee card, or a table built on first use): the timeout is 600 s. After
# the run the server must still answer and must not have panicked (no panic on its stderr).
#
# Environment:
#   EXAMPLES=200 SEED=1 MAX_TIME=...  (seconds for the whole run, unset: no limit)
#   VENV=...      a virtual environment for schemathesis (default ~/.cache/yahtzee-schemathesis;
#                 made, and schemathesis installed into it with pip, when missing)
#   OUT=...       where to write the record (default results/serve-fuzz-<date>.md)
#
# Needs: cargo, python3 with venv and pip (PyPI reachable the first time), lscpu.

set -euo pipefail

EXAMPLES=${EXAMPLES:-200}
SEED=${SEED:-1}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$REPO"
DATE=$(date -u +%Y-%m-%d)
OUT=${OUT:-results/serve-fuzz-$DATE.md}
VENV=${VENV:-$HOME/.cache/yahtzee-schemathesis}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-fuzz-serve.XXXXXX")
SERVER=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
log() { echo "[fuzz-serve] $*" >&2; }

if [ ! -x "$VENV/bin/schemathesis" ]; then
  log "installing schemathesis into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet schemathesis
fi
ST=$VENV/bin/schemathesis

log "building our binary (cargo build --release)"
cargo build --release --quiet
BIN=$REPO/target/release/yahtzee
if [ -z "${YAHTZEE_TABLE_DIR:-}" ]; then export YAHTZEE_TABLE_DIR=$WORK/tables; fi
log "the yacht tables in $YAHTZEE_TABLE_DIR (solved once if missing)"
for objective in expected-score target distribution; do
  "$BIN" solve --rules yacht --objective "$objective" >/dev/null
done

# Yacht, the smallest game, so that the outlooks and games of generated requests are quick.
"$BIN" serve --port 0 --rules yacht >"$WORK/out" 2>"$WORK/err" &
SERVER=$!
until grep -q 'listening on' "$WORK/out" 2>/dev/null; do sleep 0.01; done
PORT=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$WORK/out")
until curl -sf "http://127.0.0.1:$PORT/api/status" | grep -q '"ready"'; do sleep 0.05; done

# Record bodies (application/x-ndjson) are sent as text, as schemathesis sends text/plain.
printf '%s\n' 'import schemathesis' '' \
  'schemathesis.serializer.alias("application/x-ndjson", "text/plain")' >"$WORK/yahtzee_hooks.py"

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
T0=$(date +%s)
log "schemathesis against port $PORT, up to $EXAMPLES examples per operation, seed $SEED"
set +e
PYTHONPATH=$WORK SCHEMATHESIS_HOOKS=yahtzee_hooks "$ST" run crates/serve/openapi.yaml --url "http://127.0.0.1:$PORT" \
  --checks not_a_server_error,status_code_conformance \
  --mode all --max-examples "$EXAMPLES" --seed "$SEED" \
  --request-timeout 600 --workers 1 --no-color --generation-database none \
  --suppress-health-check all \
  ${MAX_TIME:+--max-time "$MAX_TIME"} \
  --report junit --report-junit-path "$WORK/junit.xml" >"$WORK/st.txt" 2>&1
ST_STATUS=$?
set -e
T1=$(date +%s)
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
ALIVE=no
if curl -sf "http://127.0.0.1:$PORT/api/status" >/dev/null; then ALIVE=yes; fi
PANICS=$(grep -c 'panicked' "$WORK/err" || true)
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=

{
  echo "# yahtzee serve fuzzed with schemathesis, $DATE"
  echo
  echo "Made by \`scripts/fuzz-serve.sh\` (EXAMPLES=$EXAMPLES, SEED=$SEED${MAX_TIME:+, MAX_TIME=$MAX_TIME}) at commit"
  echo "\`$(git rev-parse --short HEAD)\`$(git diff --quiet || echo ' (with uncommitted changes)'), on $(lscpu | sed -n 's/^Model name: *//p' | head -1),"
  echo "$(nproc) cores; load average $LOAD_START at the start and $LOAD_END at the end; $("$ST" --version)."
  echo "The server: \`yahtzee serve --port 0 --rules yacht\`; the description: \`crates/serve/openapi.yaml\`."
  echo "Checks: \`not_a_server_error\` (no 5xx) and \`status_code_conformance\` (every status one the"
  echo "description lists), every request generated in \`--mode all\` (valid and invalid)."
  echo
  echo "- schemathesis exit status: $ST_STATUS (0: every check passed), $((T1 - T0)) s"
  echo "- the server answered after the run: $ALIVE"
  echo "- panics on the server's stderr: $PANICS"
  echo
  echo "schemathesis's summary:"
  echo
  echo '```text'
  # Its failures and errors, if any, and its summary; the whole output if it has neither.
  if grep -qE '^=+ (ERRORS|FAILURES|SUMMARY)' "$WORK/st.txt"; then
    sed -n '/^=* \(ERRORS\|FAILURES\|SUMMARY\)/,$p' "$WORK/st.txt"
  else
    cat "$WORK/st.txt"
  fi
  echo '```'
} >"$OUT"
log "wrote $OUT"
cat "$OUT"
if [ "$ST_STATUS" != 0 ] || [ "$ALIVE" != yes ] || [ "$PANICS" != 0 ]; then exit 1; fi
