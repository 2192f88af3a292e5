"""Benchmark: gaitopt's CasADi inverse dynamics against Pinocchio's numeric RNEA.

For every robot (robot.yaml base mode) one evaluation of τ = ID(q, v, a, f) with the robot's
contact forces is timed as

* pinocchio   pin.rnea(model, data, q, v, a, fext), fext (joint-frame forces) built beforehand;
* casadi      the SX Function called from Python (numpy in, DM out);
* casadi map  Function.map(N, "serial") over N knots, time per knot;
* compiled    Function.generate -> gcc -O3 -shared -> casadi.external, single call and map(N)
              per knot.

Times are medians over repeats (timeit: autorange picks the loop count), in microseconds.
Ratios are time / pinocchio time. "SX build" is the time to build the SX Function, "gcc" the
C compile time of both compiled functions, "call floor" the time of calling a trivial CasADi
Function (output = first input) with the same arguments from Python: the part of every
single call that is argument conversion and dispatch, not dynamics.

    PYTHONPATH=. python bench/dynamics.py [robot ...] [--knots 100] [--repeat 7] [--keep DIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import casadi as ca
import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gaitopt.dynamics import GRAVITY, SymbolicDynamics  # noqa: E402
from gaitopt.robot import available_robots, load_robot  # noqa: E402


def median_time(fn, repeat):
    """Median seconds per call of fn() over `repeat` timeit runs."""
    t = timeit.Timer(fn)
    number, _ = t.autorange()
    return statistics.median(t.repeat(repeat=repeat, number=number)) / number


def pin_fext(model, robot, q, forces):
    data = model.createData()
    pin.forwardKinematics(model, data, q)
    fext = [pin.Force.Zero() for _ in range(model.njoints)]
    for i, c in enumerate(robot.contacts):
        fr = model.frames[c.frame_id]
        r = fr.placement.act(np.asarray(c.point, float))
        F = data.oMi[fr.parentJoint].rotation.T @ forces[3 * i:3 * i + 3]
        fext[fr.parentJoint] = fext[fr.parentJoint] + pin.Force(F, np.cross(r, F))
    return fext


def compile_functions(functions, name, workdir):
    """Generate C for the functions, compile with gcc -O3, return (externals, compile seconds)."""
    cg = ca.CodeGenerator(f"{name}.c", {"with_header": False})
    for f in functions:
        cg.add(f)
    cwd = os.getcwd()
    try:
        os.chdir(workdir)
        cg.generate()
    finally:
        os.chdir(cwd)
    src, lib = Path(workdir) / f"{name}.c", Path(workdir) / f"{name}.so"
    t0 = time.perf_counter()
    subprocess.run(["gcc", "-O3", "-fPIC", "-shared", str(src), "-o", str(lib), "-lm"], check=True)
    t_cc = time.perf_counter() - t0
    return [ca.external(f.name(), str(lib)) for f in functions], t_cc


def bench_robot(name, knots, repeat, workdir):
    robot = load_robot(name)
    model, data = robot.model, robot.model.createData()
    nv, nc = robot.nv, len(robot.contacts)
    rng = np.random.default_rng(0)
    q = robot.standing_q + 0.1 * rng.standard_normal(nv)
    v, a = rng.standard_normal(nv), rng.standard_normal(nv)
    f = robot.total_mass * GRAVITY / nc * (np.tile([0.0, 0.0, 1.0], nc) + 0.1 * rng.standard_normal(3 * nc))
    Q, V, A = (np.tile(x[:, None], (1, knots)) for x in (q, v, a))
    Fk = np.tile(f[:, None], (1, knots))

    t0 = time.perf_counter()
    dyn = SymbolicDynamics.of_robot(robot)
    fid = dyn.inverse_dynamics
    t_build = time.perf_counter() - t0
    fmap = fid.map(knots, "serial")

    fext = pin_fext(model, robot, q, f)
    ref = pin.rnea(model, data, q, v, a, fext)
    assert np.allclose(np.array(fid(q, v, a, f)).ravel(), ref, rtol=1e-9, atol=1e-9)

    (cid, cmap), t_cc = compile_functions([fid, fmap], f"gaitopt_id_{name}", workdir)
    assert np.allclose(np.array(cid(q, v, a, f)).ravel(), ref, rtol=1e-9, atol=1e-9)
    assert np.allclose(np.array(cmap(Q, V, A, Fk))[:, -1], ref, rtol=1e-9, atol=1e-9)

    row = {"robot": name, "base": robot.base, "nv": nv, "nc": nc, "build": t_build, "gcc": t_cc}
    row["pin"] = median_time(lambda: pin.rnea(model, data, q, v, a, fext), repeat)
    row["ca"] = median_time(lambda: fid(q, v, a, f), repeat)
    row["ca_map"] = median_time(lambda: fmap(Q, V, A, Fk), repeat) / knots
    row["cc"] = median_time(lambda: cid(q, v, a, f), repeat)
    row["cc_map"] = median_time(lambda: cmap(Q, V, A, Fk), repeat) / knots
    # Python-side cost of any Function call with these argument sizes: a trivial Function.
    xs = [ca.SX.sym(s, n) for s, n in (("q", nv), ("v", nv), ("a", nv), ("f", 3 * nc))]
    trivial = ca.Function("trivial", xs, [xs[0]])
    row["floor"] = median_time(lambda: trivial(q, v, a, f), repeat)
    return row


def table(rows, knots):
    us = 1e6
    head = ["robot", "base", "nv", "contacts", "SX build [ms]", "pinocchio rnea [µs]",
            "casadi call [µs]", f"casadi map({knots}) per knot [µs]", "compiled call [µs]",
            f"compiled map({knots}) per knot [µs]", "gcc -O3 [s]", "call floor [µs]"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        p = r["pin"]

        def cell(key):
            return f"{r[key] * us:.2f} ({r[key] / p:.2f}×)"

        lines.append("| " + " | ".join([
            r["robot"], r["base"], str(r["nv"]), str(r["nc"]), f"{r['build'] * 1e3:.0f}", f"{p * us:.2f}",
            cell("ca"), cell("ca_map"), cell("cc"), cell("cc_map"), f"{r['gcc']:.2f}",
            f"{r['floor'] * us:.1f}"]) + " |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("robots", nargs="*", help="robot names (default: all of robots/)")
    ap.add_argument("--knots", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--keep", help="keep the generated C and .so files in this folder")
    args = ap.parse_args(argv)
    names = args.robots or available_robots()
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="gaitopt_bench_"))
    workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for name in names:
            print(f"... {name}", file=sys.stderr, flush=True)
            rows.append(bench_robot(name, args.knots, args.repeat, workdir))
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"Inverse dynamics with contact forces, one evaluation; median of {args.repeat} timeit runs; "
          f"ratio = time / pinocchio. casadi {ca.__version__}, pinocchio {pin.__version__}.\n")
    print(table(rows, args.knots))


if __name__ == "__main__":
    main()
