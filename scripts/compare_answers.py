#!/usr/bin/env python3
"""Compares two files of `advise --batch` answers, line by line.

    scripts/compare_answers.py OLD NEW [TOLERANCE]

Each pair of lines must be the same JSON up to floating-point values, which may differ by at
most TOLERANCE (default 1e-12); error lines must be equal to the letter. Prints a summary
line (lines, answers, errors, the largest difference) and exits 1 at the first mismatch.
The stamps of an answer line (`version`, `table_checksum`: which build answered, from which
table file) are left out: they name the build, not the answer, and older builds had none.
"""

import json
import sys

STAMPS = ("version", "table_checksum")


def same(a, b, tol, path, worst):
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return f"{path}: {a!r} against {b!r}"
        diff = abs(a - b)
        worst[0] = max(worst[0], diff)
        return None if diff <= tol else f"{path}: {a!r} against {b!r} (differ by {diff})"
    if type(a) is not type(b):
        return f"{path}: {a!r} against {b!r}"
    if isinstance(a, dict):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} against {list(b)}"
        for k in a:
            e = same(a[k], b[k], tol, f"{path}.{k}", worst)
            if e:
                return e
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            e = same(x, y, tol, f"{path}[{i}]", worst)
            if e:
                return e
        return None
    return None if a == b else f"{path}: {a!r} against {b!r}"


def main():
    old, new = sys.argv[1], sys.argv[2]
    tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-12
    with open(old) as f:
        a_lines = f.read().splitlines()
    with open(new) as f:
        b_lines = f.read().splitlines()
    if len(a_lines) != len(b_lines):
        sys.exit(f"{len(a_lines)} lines against {len(b_lines)}")
    worst = [0.0]
    errors = 0
    for i, (a, b) in enumerate(zip(a_lines, b_lines), 1):
        ja, jb = json.loads(a), json.loads(b)
        for j in (ja, jb):
            for k in STAMPS:
                j.pop(k, None)
        if "error" in ja:
            errors += 1
        e = same(ja, jb, tol, f"line {i}", worst)
        if e:
            sys.exit(f"MISMATCH {e}")
    print(
        f"{len(a_lines)} lines: {len(a_lines) - errors} answers, {errors} errors, all equal; "
        f"largest difference of a value {worst[0]:.3g}"
    )


if __name__ == "__main__":
    main()
