"""Set-up CPU seconds of every shipped problem at the given knot factors; print a markdown table.

    python bench/setup.py [--factors 1 8] [--problems problems/a.yaml ...] [--cache empty|filled]

The default path (`solver.codegen: auto`) loads compiled derivatives when the cache
(gaitopt.codegen) holds them and builds them symbolically otherwise: `--cache empty` (the
default; a first solve of a robot, a machine without a compiler) measures each case with an empty
cache directory, `--cache filled` after `solver.codegen: true` compiled the robot's blocks into
it in another process (`--codegen`, the older name, is the same).

Set-up: the transcription, IPOPT's functions with their derivatives (gaitopt.assembly) and
IPOPT's own set-up (`nlpsol`): what a solve does before IPOPT's first iteration, the guess
excepted. Printed beside it: one evaluation of the constraint Jacobian and of the Lagrangian
Hessian (IPOPT's first iteration makes the same), which tables before 2026-11-24 (second
session) counted in the set-up, because CasADi used to build derivatives at their first call;
the assembled derivatives are built before. CPU time of this process (`time.process_time`),
which a machine shared with other jobs inflates less than wall time; each case in a fresh
process, so no case reuses another's functions. Never asserted by tests.
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


def measure(problem: str, factor: float) -> dict:
    """{"variables", "transcribe_s", "setup_s"} of one case (CPU seconds, this process), on the
    default path (`solver.codegen: auto`: whatever the cache holds)."""
    import time

    import casadi as ca
    import numpy as np

    import gaitopt as go
    from gaitopt.gait import robot_of
    from gaitopt.guess import automatic_guess
    from gaitopt.solver import solve_nlp  # noqa: F401  (the solve stack, imported before timing)
    from gaitopt.transcription import transcribe

    p = go.load_problem(problem).scaled_knots(factor)
    robot = robot_of(p)
    t0 = time.process_time()
    tr = transcribe(p, robot)
    t1 = time.process_time()
    x0 = automatic_guess(tr)
    t2 = time.process_time()
    scale = tr.variable_scale(x0)
    nlp, opts = tr.assembly.functions(scale)
    solver = ca.nlpsol("setup", "ipopt", nlp, {"print_time": False, "ipopt": {"print_level": 0}, **opts})
    t3 = time.process_time()
    solver.get_function("nlp_jac_g")(x0 / scale, [])
    solver.get_function("nlp_hess_l")(x0 / scale, [], 1.0, np.ones(tr.n_constraints))
    t4 = time.process_time()
    return {"variables": tr.n_variables, "transcribe_s": t1 - t0, "setup_s": t1 - t0 + t3 - t2,
            "first_evaluation_s": t4 - t3}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--factors", type=float, nargs="+", default=[1, 8])
    ap.add_argument("--problems", nargs="*", default=None)
    ap.add_argument("--cache", choices=["empty", "filled"], default="empty",
                    help="the default path with an empty cache, or with the robot's blocks compiled into it first")
    ap.add_argument("--codegen", action="store_true", help="the same as --cache filled")
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)  # PROBLEM FACTOR measure|precompile, in a child
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.one:
        if args.one[2] == "precompile":
            import gaitopt as go
            from timing import precompile

            precompile(go.load_problem(args.one[0]))
        else:
            print(json.dumps(measure(args.one[0], float(args.one[1]))))
        return
    from gaitopt.problem import shipped_problems
    files = [Path(p) for p in args.problems] if args.problems else shipped_problems()
    filled = args.codegen or args.cache == "filled"
    env = dict(os.environ)
    if not filled:  # an empty cache of this run's own: nothing compiled is found
        env["GAITOPT_CACHE"] = tempfile.mkdtemp(prefix="gaitopt-empty-cache-")
    fs = " / ".join(f"{f:g}×" for f in args.factors)
    print(f"| problem | variables ({fs}) | set-up CPU s ({fs}) | of which transcription ({fs}) "
          f"| first Jacobian + Hessian evaluation s ({fs}) |")
    print("|---|---|---|---|---|")
    for f in files:
        if filled:
            subprocess.run([sys.executable, __file__, "--one", str(f), "1", "precompile"], check=True, cwd=ROOT)
        cells = []
        for factor in args.factors:
            out = subprocess.run([sys.executable, __file__, "--one", str(f), str(factor), "measure"],
                                 capture_output=True, text=True, check=True, cwd=ROOT, env=env)
            cells.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(f"| {f.stem} | " + " | ".join(" / ".join(fmt.format(c[key]) for c in cells) for key, fmt in
                                            (("variables", "{}"), ("setup_s", "{:.2f}"), ("transcribe_s", "{:.2f}"),
                                             ("first_evaluation_s", "{:.3f}")))
              + " |", flush=True)


if __name__ == "__main__":
    main()
