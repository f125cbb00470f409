#!/usr/bin/env bash
# Measures every table of every shipped rule set: for each, in a fresh folder, the
# expected-score table (`solve`), the target table (`solve --objective target`) and the
# distribution table (`solve --objective distribution`), each timed by GNU time (wall clock,
# peak memory), and the size of its file. Writes results/table-sizes-DATE.md (quoted by
# docs/performance.md, "Table sizes"). Run from the repository root after `cargo build --release`
# ($YAHTZEE_BIN names another binary). About 15 minutes on two quiet cores (40 under a load
# of 9); needs 1.6 GB of free disk (one rule set's tables at a time).
set -euo pipefail
bin=${YAHTZEE_BIN:-target/release/yahtzee}
day=$(date -u +%F)
out=results/table-sizes-$day.md
work=$(mktemp -d "${TMPDIR:-/tmp}/yahtzee-sizes.XXXXXX")
trap 'rm -rf "$work"' EXIT
rows=$work/rows.md
: > "$rows"
for flags in "--rules yacht" "--rules yacht-dice" "--rules yatzy" "--rules yahtzee" \
             "--rules yahtzee-free-joker" "--rules yahtzee-plain" "--rules yahtzee --upper-first"; do
    name=${flags#--rules }
    dir=$work/tables
    rm -rf "$dir" && mkdir -p "$dir"
    for objective in expected-score target distribution; do
        echo "[table-sizes] $name $objective" >&2
        # shellcheck disable=SC2086
        YAHTZEE_TABLE_DIR=$dir /usr/bin/time -f "%e %M" -o "$work/time" \
            "$bin" solve $flags --objective "$objective" --json > "$work/solve.json"
        read -r wall rss < "$work/time"
        file=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["path"])' "$work/solve.json")
        bytes=$(stat -c %s "$file")
        # Only the vector tables' reports name their file format.
        format=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("format_version", ""))' "$work/solve.json")
        printf '| `%s` | %s | `%s` | %s | %s | %s |\n' "$name" "$objective" "$(basename "$file")" \
            "$(python3 -c "print(f'{$bytes / 1e6:,.2f}')")" "$wall" \
            "$(python3 -c "print(f'{$rss / 1024:,.0f}')")" >> "$rows"
    done
done
{
    echo "# Table sizes and build times, $day"
    echo
    echo "Every table of every shipped rule set, each solved in a fresh folder by"
    echo "\`scripts/table-sizes.sh\` (\`yahtzee solve [--objective target|distribution] --json\`)."
    echo "Size: the file, in MB (10^6 bytes). Build: the wall clock of the whole command (the"
    echo "solve and the save; a distribution table's build also loads the expected-score table),"
    echo "by GNU time, with its peak resident memory."
    echo
    echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')),"
    echo "shared with other work (load average $(cut -d' ' -f1-3 /proc/loadavg) at the end), so the"
    echo "times are upper bounds. Commit $(git rev-parse --short HEAD), $("$bin" --version), table format ${format}."
    echo
    echo "| rules | table | file | size (MB) | build (s) | peak memory (MB) |"
    echo "| --- | --- | --- | ---: | ---: | ---: |"
    cat "$rows"
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
