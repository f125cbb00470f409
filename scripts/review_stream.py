#!/usr/bin/env python3
"""Times a streamed review: posts a game record to a running `yahtzee serve` at
`/api/review?objective=win&stream=true` and prints, for each line of the answer as it
arrives, the seconds since the request was sent and what the line is (a decision: how many
of how many, its place in the record and its turn). The whole review (the last line) is
written to RECORD.stream-review.json, to compare with `yahtzee review RECORD --win --json`.

Usage: scripts/review_stream.py http://127.0.0.1:8080 RECORD.jsonl [QUERY]
(QUERY defaults to `objective=win`; `stream=true` is added.)
"""
import json
import sys
import time
import urllib.request


def main():
    base, record = sys.argv[1], sys.argv[2]
    query = sys.argv[3] if len(sys.argv) > 3 else "objective=win"
    body = open(record, "rb").read()
    request = urllib.request.Request(
        f"{base.rstrip('/')}/api/review?{query}&stream=true",
        data=body,
        headers={"Content-Type": "application/x-ndjson"},
    )
    start = time.time()
    with urllib.request.urlopen(request) as answer:
        for raw in answer:
            t = time.time() - start
            line = json.loads(raw)
            kind = line["type"]
            if kind == "decision":
                d = line["decision"]
                print(f"{t:8.2f} decision {line['done']}/{line['total']} index {line['index']} "
                      f"turn {d['turn']} loss {d['loss']:.6f}", flush=True)
            elif kind == "review":
                with open(record + ".stream-review.json", "w") as out:
                    json.dump(line["review"], out)
                print(f"{t:8.2f} review", flush=True)
            elif kind == "error":
                print(f"{t:8.2f} error {line['status']}: {line['error']}", flush=True)
                sys.exit(1)
            elif kind != "solving":
                print(f"{t:8.2f} {kind}", flush=True)


if __name__ == "__main__":
    main()
