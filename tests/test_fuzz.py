"""CI-sized fuzzing of the command line (tests/fuzzing.py): 60 generated cases with a fixed
seed; every case must hold the exit-code contract (no traceback, exit 0/1/2/3, a code-2 error is
one `gaitopt: ` line, inputs untouched, within the time limit). The full run is
`python bench/fuzz.py --cases 1000 --seed 1 -j 2`."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

from fuzzing import generate, run_case

SEED = 20261124
CASES = 60
TIMEOUT_S = 60.0


def test_cli_holds_the_contract_on_fuzzed_inputs(tmp_path):
    cases = generate(SEED, CASES)
    jobs = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outcomes = list(pool.map(lambda c: run_case(c, tmp_path / f"{c['index']:03d}", timeout=TIMEOUT_S), cases))
    breaches = [f"#{c['index']} [{c['kind']}] {c['description'][:200]}\n    argv: {' '.join(c['argv'])[:300]}\n"
                f"    why: {o.why} (exit {o.exit})\n    stderr: {o.stderr_tail[-400:]}"
                for c, o in zip(cases, outcomes) if not o.ok]
    assert not breaches, (f"{len(breaches)} of {CASES} fuzzed cases (seed {SEED}) broke the CLI contract:\n"
                          + "\n".join(breaches))
