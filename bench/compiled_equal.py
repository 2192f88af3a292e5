"""Every shipped problem solved from the problem's own compiled blocks and without any.

    GAITOPT_CACHE=/tmp/gaitopt-cache python bench/compiled_equal.py [PROBLEM.yaml ...]

For each problem: `gaitopt.compile_derivatives` (the robot functions and the problem's own
blocks into the cache), then a default solve (`solver.codegen: auto`, which loads them) and a
solve with `solver.codegen: false`. Prints the number of the problem's own blocks served
compiled, both iteration counts, and whether the two solutions are equal bit for bit (else the
largest difference and both costs). Compiling takes seconds per problem, a minute for a robot's
first; point GAITOPT_CACHE at a scratch directory to leave your cache as it was.
"""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gaitopt as go  # noqa: E402
from gaitopt.gait import robot_of  # noqa: E402


def main(files) -> int:
    unequal = 0
    for f in files:
        p = go.load_problem(f)
        p = p.replace(solver=dataclasses.replace(p.solver, print_level=0))
        robot = robot_of(p)
        go.compile_derivatives(p, robot=robot)
        a = go.solve(p, robot=robot)
        b = go.solve(p.replace(solver=dataclasses.replace(p.solver, codegen=False)), robot=robot)
        same = a.x is not None and b.x is not None and np.array_equal(a.x, b.x)
        unequal += not same
        what = "bit-equal" if same else (f"max |dx| {np.max(np.abs(a.x - b.x)):.1e}, cost {a.cost:.8g} / {b.cost:.8g}"
                                        if a.x is not None and b.x is not None else "a solve returned no x")
        print(f"{Path(f).name}: {len(a.stats['compiled_own_blocks'])} own blocks compiled, iterations "
              f"{a.stats['iterations']} / {b.stats['iterations']}, {what}", flush=True)
    return 1 if unequal else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or sorted(str(p) for p in (ROOT / "problems").glob("*.yaml"))))
