"""What one function a witness search goes through costs before any input is tried.

A survivor's search goes through the mutated function, then the public functions reaching it, each in
turn within one `--witness-time`; each costs its set-up (two fresh copies of the project, a driver
process in each that imports the code, and the questions the designed inputs ask of the module) before
its first call. This times that set-up alone: `search_input` with no recorded call and no time for
inputs, on the first mutant of SYMBOL in FILE, through the function TARGET of MODULE, REPEATS times in
one process (as a search process makes them, its caches warm after the first).

    PYTHONPATH=<elenchus checkout> python benchmarks/search_phase_cost.py REPO FILE MODULE SYMBOL TARGET [REPEATS]

Prints one JSON object: each run's wall seconds, and the median of all but the first.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from elenchus.analysis import probes
from elenchus.mutation.mutate.generation import generate


def main(argv: list[str]) -> int:
    repo, file, module, symbol, target = argv[:5]
    repeats = int(argv[5]) if len(argv) > 5 else 6
    source = (Path(repo) / file).read_text()
    mutants, _ = generate(file, source)
    mutant = next(m for m in mutants if m.symbol == symbol)
    walls = []
    for _ in range(repeats):
        started = time.monotonic()
        probes.search_input(Path(repo), mutant, [], time_budget=0.01, symbol=target, module=module,
                            roots=(".",), search_budget=0, boundary_budget=0)
        walls.append(round(time.monotonic() - started, 3))
    print(json.dumps({"repo": repo, "mutant": f"{file}:{mutant.line} in {symbol}", "through": target,
                      "walls": walls, "warm_median": statistics.median(walls[1:]) if len(walls) > 1 else None}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
