"""CPU time of the automatic guess (`gaitopt.guess.automatic_guess`) for two or more checkouts.

    python bench/guess.py --checkouts BEFORE AFTER [--problems problems/a.yaml ...] [--factors 1 2]

Each checkout's gaitopt is imported through PYTHONPATH in its own processes (run from a neutral
directory, see bench/process.py), which alternate (A B A B …, `--rounds` times); per case the
smallest CPU time (`time.process_time`) of `--runs` guesses after a first one, over all rounds:
the guess has no randomness, so the minimum is what a machine shared with other jobs inflates
least. Also prints whether every checkout's x0 has the same bits as the first's. Never asserted
by tests.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PROBLEMS = ("problems/biped7_heel_toe_walk.yaml", "problems/solo12_trot.yaml", "problems/anymal_c_trot.yaml")
CHILD = r"""
import hashlib, json, sys, time
import gaitopt as go
from gaitopt.guess import automatic_guess
from gaitopt.robot import robot_of
from gaitopt.transcription import transcribe
runs, out = int(sys.argv[1]), {}
for case in sys.argv[2:]:
    path, factor = case.rsplit("@", 1)
    problem = go.load_problem(path).scaled_knots(float(factor))
    tr = transcribe(problem, robot_of(problem))
    x0 = automatic_guess(tr)
    times = []
    for _ in range(runs):
        t = time.process_time()
        automatic_guess(tr)
        times.append(time.process_time() - t)
    out[case] = [min(times), hashlib.sha256(x0.tobytes()).hexdigest()]
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkouts", nargs="+", required=True, help="repository roots")
    ap.add_argument("--problems", nargs="+", default=list(DEFAULT_PROBLEMS))
    ap.add_argument("--factors", type=float, nargs="+", default=[1.0])
    ap.add_argument("--runs", type=int, default=15, help="guesses timed per process and case (default 15)")
    ap.add_argument("--rounds", type=int, default=3, help="processes per checkout, alternated (default 3)")
    args = ap.parse_args()
    checkouts = [Path(c).resolve() for c in args.checkouts]
    cases = [f"{(ROOT / p).resolve()}@{f:g}" for p in args.problems for f in args.factors]
    best, digest = {c: {} for c in checkouts}, {c: {} for c in checkouts}
    with tempfile.TemporaryDirectory(prefix="gaitopt-bench-guess-") as tmp:
        for _ in range(args.rounds):
            for c in checkouts:
                env = dict(os.environ, PYTHONPATH=str(c), PYTHONDONTWRITEBYTECODE="")
                out = subprocess.run([sys.executable, "-c", CHILD, str(args.runs), *cases], env=env, cwd=tmp,
                                     capture_output=True, text=True, check=True).stdout
                for case, (t, h) in json.loads(out.strip().splitlines()[-1]).items():
                    best[c][case] = min(best[c].get(case, t), t)
                    digest[c][case] = h
    names = " | ".join(f"CPU ms ({c.name})" for c in checkouts)
    print(f"| problem | knots × | {names} | x0 bits as the first's |\n|---|---|" + "---|" * len(checkouts) + "---|")
    for case in cases:
        path, factor = case.rsplit("@", 1)
        same = all(digest[c][case] == digest[checkouts[0]][case] for c in checkouts)
        cells = " | ".join(f"{1e3 * best[c][case]:.1f}" for c in checkouts)
        print(f"| {Path(path).stem} | {factor} | {cells} | {'yes' if same else 'NO'} |")
    print(f"\n(min over {args.rounds} processes × {args.runs} guesses per checkout; "
          f"load average {os.getloadavg()[0]:.2f} at the end)")


if __name__ == "__main__":
    main()
