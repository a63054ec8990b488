#!/bin/bash
# Witnesses on real libraries: `elenchus evaluate --scope target` over one module of each release
# (HEAD of the two-commit repositories real_pairs.py uses), then witness_summary.py over the reports.
#
#   [EXTRA_REPOS=DIR] benchmarks/witness_real.sh ELENCHUS REPOS_DIR OUT_DIR [BUDGET]
#
# REPOS_DIR holds iso8601, humanize and inflection; EXTRA_REPOS (optional) holds parse.
#
# ELENCHUS is the `elenchus` executable of an environment holding the libraries' test dependencies.
# Every run has a fresh ELENCHUS_RUNS_DIR and --fresh, so nothing is reused from earlier runs.
set -euo pipefail
elenchus=$1 repos=$2 out=$3 budget=${4:-64}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
run() {  # NAME TARGET [REPOS]: report OUT_DIR/NAME--MODULE.json
    local runs label; runs=$(mktemp -d); label="$1--$(basename "$2" .py)"
    /usr/bin/time -f "$label: %e s wall" env ELENCHUS_RUNS_DIR="$runs" "$elenchus" evaluate --repo "${3:-$repos}/$1" \
        --scope target --target "$2" --budget "$budget" --jobs 2 --fresh --json "$out/$label.json" \
        > "$out/$label.log" 2>&1 || true
    rm -rf "$runs"
}
run iso8601-1.0.2-1.1.0 iso8601/iso8601.py
run humanize-4.15.0-4.16.0 src/humanize/number.py
run humanize-4.15.0-4.16.0 src/humanize/time.py
run humanize-4.15.0-4.16.0 src/humanize/filesize.py
run inflection-0.3.1-0.4.0 inflection.py
if [ -n "${EXTRA_REPOS:-}" ]; then run parse-1.20.1-1.20.2 parse.py "$EXTRA_REPOS"; fi
"$(dirname "$elenchus")/python" "$here/witness_summary.py" "$out" --out "$out/summary.json"
