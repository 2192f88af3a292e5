"""gaitopt's ANYmal C trot next to Crocoddyl's ANYmal trot benchmark, on one problem.

    python bench/crocoddyl.py [--runs 5] [--croc-python /work/venv-croc/bin/python] [--json out.json]
                              [--codegen]

Crocoddyl 3.2.1 pins its own Pinocchio, so it lives in an environment of its own (never a
gaitopt dependency): `python3 -m venv /work/venv-croc && /work/venv-croc/bin/pip install
crocoddyl==3.2.1 "pin==4.0.0" "libpinocchio==4.0.0" example-robot-data` (pip otherwise
pulls Pinocchio 4.1.0, against which Crocoddyl 3.2.1 fails with a MemoryError building the
problem). This script runs itself there with `--worker` (which
imports only crocoddyl, pinocchio and example_robot_data) and prints a clear message and
gaitopt's numbers alone when that interpreter is missing ($CROC_PYTHON or --croc-python).

Crocoddyl's problem: `SimpleQuadrupedalGaitProblem.createTrottingProblem` of its
examples/quadrupedal_gaits.py — step length 0.15 m, step height 0.1 m, time step 0.01 s,
25 knots per step, 2 support knots — solved by FDDP from the standing state repeated and
quasi-static controls, at most 100 iterations, one thread. It is run on example-robot-data's
`anymal_c` (the URDF gaitopt's robots/anymal_c references, byte for byte) and, for
reference, on `anymal` (ANYmal B, 30.5 kg, the model Crocoddyl's example uses).
gaitopt's problem: problems/anymal_c_trot.yaml, matched to it (same URDF, stride, swing
height, 0.01 s intervals). Build = problem construction (Crocoddyl: action models + solver +
initial guess; gaitopt: transcription + IPOPT set-up, `setup_time_s`), solve = the solver
call; the fastest of --runs cold runs (the least disturbed by other jobs; --json also keeps
the medians); total CPU s = the process's CPU time over build + solve,
which a machine shared with other jobs inflates less than wall time; gaitopt's solve CPU s is
that minus the CPU time of the same problem solved with max_iter 0 (build, IPOPT set-up and the
first evaluation). --codegen solves gaitopt's problem with `solver.codegen: true`, its cache
filled before the timed runs (gaitopt.codegen). Never asserted by tests.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = ROOT / "problems" / "anymal_c_trot.yaml"
DEFAULT_CROC_PYTHON = "/work/venv-croc/bin/python"
# Crocoddyl's examples/quadrupedal_gaits.py, "trotting"
TROT = {"stepLength": 0.15, "stepHeight": 0.1, "timeStep": 1e-2, "stepKnots": 25, "supportKnots": 2}
MAX_ITER = 100

DIFFERENCES = """\
What differs between the two problems (same robot model, stride, swing height, time step):
- constraints: Crocoddyl enforces none as hard constraints: swing-foot tracking (weight 1e6),
  CoM tracking, friction cone (1e1) and joint-limit penalties (1e3) are costs; gaitopt imposes
  contact, friction cone, unilateral forces, swing clearance, joint/velocity/torque/voltage
  limits and kinematic feasibility bands as constraints, met to 1e-8.
- periodicity: Crocoddyl's trot starts from standing at rest (a half first step, then a full
  one) and ends free; gaitopt's is a periodic limit cycle (half cycle + mirror map).
- trajectory: Crocoddyl tracks given foot and CoM paths (triangular swing profile to 0.1 m);
  gaitopt prescribes nothing but a clearance lower bound 16·c·s²(1−s)² and the mean speed.
- cost: Crocoddyl a tracking + regularisation sum; gaitopt the Joule loss per metre.
- method: Crocoddyl FDDP (multiple shooting, Riccati recursion, Gauss-Newton, forward
  dynamics, Euler step); gaitopt direct collocation (trapezoidal, inverse dynamics) solved by
  IPOPT (interior point, exact Hessian, MUMPS); 54 intervals both, Crocoddyl's two impact
  nodes are instantaneous, gaitopt's impacts are velocity jumps at the touchdown knots.
- timing: both fixed (gaitopt's period could be left free)."""


def worker(robot_name: str, runs: int) -> dict:
    """Build and solve Crocoddyl's trot `runs` times on example-robot-data's `robot_name`
    (run inside the Crocoddyl environment). Returns the fastest run's times (s), medians, iterations,
    cost, knots."""
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]   # this file is crocoddyl.py
    import crocoddyl
    import example_robot_data
    import numpy as np
    import pinocchio
    from crocoddyl.utils.quadruped import SimpleQuadrupedalGaitProblem

    robot = example_robot_data.load(robot_name)
    model = robot.model
    q0 = model.referenceConfigurations["standing"].copy()
    x0 = np.concatenate([q0, np.zeros(model.nv)])
    build, solve, iters, costs, cpu, cpu_solve = [], [], [], [], [], []
    for _ in range(runs):
        c0 = time.process_time()
        t0 = time.perf_counter()
        gait = SimpleQuadrupedalGaitProblem(model, "LF_FOOT", "RF_FOOT", "LH_FOOT", "RH_FOOT")
        problem = gait.createTrottingProblem(x0, TROT["stepLength"], TROT["stepHeight"], TROT["timeStep"],
                                             TROT["stepKnots"], TROT["supportKnots"])
        solver = crocoddyl.SolverFDDP(problem)
        xs = [x0] * (problem.T + 1)
        us = problem.quasiStatic([x0] * problem.T)
        t1 = time.perf_counter()
        c1 = time.process_time()
        solver.solve(xs, us, MAX_ITER, False, 0.1)
        t2 = time.perf_counter()
        cpu.append(time.process_time() - c0)
        cpu_solve.append(time.process_time() - c1)
        build.append(t1 - t0)
        solve.append(t2 - t1)
        iters.append(int(solver.iter))
        costs.append(float(solver.cost))
    return {"robot": robot_name, "mass_kg": float(pinocchio.computeTotalMass(model)), "knots": int(problem.T),
            "build_s": min(build), "solve_s": min(solve), "cpu_s": min(cpu), "cpu_solve_s": min(cpu_solve),
            "median": {"build_s": statistics.median(build), "solve_s": statistics.median(solve)},
            "iterations": int(statistics.median(iters)), "cost": costs[0],
            "crocoddyl": crocoddyl.__version__, "pinocchio": pinocchio.__version__}


def run_crocoddyl(python: str, runs: int) -> list | None:
    """Crocoddyl's figures for ANYmal C and B, or None (message printed) without its environment."""
    if not Path(python).exists():
        print(f"Crocoddyl skipped: no interpreter at {python} (create the environment described in "
              f"bench/crocoddyl.py, or pass --croc-python / set $CROC_PYTHON)")
        return None
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH="")
    out = []
    for name in ("anymal_c", "anymal"):
        proc = subprocess.run([python, __file__, "--worker", name, "--runs", str(runs)], env=env,
                              capture_output=True, text=True, cwd="/tmp", check=False)
        if proc.returncode != 0:
            print(f"Crocoddyl run on {name} failed: {proc.stderr.strip().splitlines()[-1:]}")
            return None
        out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return out


def run_gaitopt(runs: int, codegen: bool = False) -> dict:
    """gaitopt's figures for problems/anymal_c_trot.yaml (bench/timing.py), knots over the cycle."""
    import dataclasses

    import gaitopt as go

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from timing import precompile, timed_solves

    problem = go.load_problem(PROBLEM)
    if codegen:
        precompile(problem)
        problem = problem.replace(solver=dataclasses.replace(problem.solver, codegen=True))
    halves = 2 if problem.cycle == "half" else 1
    out = timed_solves(problem, runs)
    out.update(robot="anymal_c", knots=sum(p.knots for p in problem.phases) * halves, build_s=out["setup_s"],
               codegen=codegen)
    return out


def report(g: dict, croc: list | None) -> None:
    print("| solver | robot | knots | iterations | build s | solve s | total s | solve CPU s | total CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| gaitopt (IPOPT{', codegen' if g.get('codegen') else ''}) | anymal_c | {g['knots']} | {g['iterations']} | {g['build_s']:.3f} | "
          f"{g['solve_s']:.3f} | {g['build_s'] + g['solve_s']:.3f} | {g['cpu_solve_s']:.3f} | {g['cpu_s']:.3f} |")
    for c in croc or []:
        print(f"| Crocoddyl {c['crocoddyl']} (FDDP) | {c['robot']} ({c['mass_kg']:.1f} kg) | {c['knots']} | "
              f"{c['iterations']} | {c['build_s']:.3f} | {c['solve_s']:.3f} | {c['build_s'] + c['solve_s']:.3f} | "
              f"{c['cpu_solve_s']:.3f} | {c['cpu_s']:.3f} |")
    if croc:
        c = croc[0]
        print(f"\nratio gaitopt / Crocoddyl on anymal_c: solve {g['solve_s'] / c['solve_s']:.1f}x "
              f"(CPU time {g['cpu_solve_s'] / c['cpu_solve_s']:.1f}x), "
              f"total {(g['build_s'] + g['solve_s']) / (c['build_s'] + c['solve_s']):.1f}x "
              f"(CPU time {g['cpu_s'] / c['cpu_s']:.1f}x), "
              f"solve CPU time per iteration {(g['cpu_solve_s'] / g['iterations']) / (c['cpu_solve_s'] / c['iterations']):.1f}x")
    print("\n" + DIFFERENCES)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--croc-python", default=os.environ.get("CROC_PYTHON", DEFAULT_CROC_PYTHON))
    ap.add_argument("--json")
    ap.add_argument("--codegen", action="store_true", help="gaitopt with solver.codegen: true (cache filled first)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.runs)))
        return 0
    croc = run_crocoddyl(args.croc_python, args.runs)
    g = run_gaitopt(args.runs, args.codegen)
    report(g, croc)
    if args.json:
        Path(args.json).write_text(json.dumps({"gaitopt": g, "crocoddyl": croc}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
