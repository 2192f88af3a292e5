"""Where the stairs start: each stair gait solved for N values of terrain.stairs.start_x over
one run (each problem's own knots unless --scale), with how many solve, why the others fail
(status, worst term and its violation) and the cost range. Prints a markdown table
(docs/terrain.md, "Where the stairs start").

    python bench/stair_starts.py [--starts 12] [--max-iter 500] [--gaits solo12_trot ...]
"""
from __future__ import annotations

import argparse
import warnings

import gaitopt as go
from gaitopt.problem import problem_from_dict

ROOT = go.__path__[0] + "/../problems/"
SOFT = {"friction": {"mu": 0.7, "cone": "pyramid"}, "touchdown": "soft"}


def _pattern(robot, pattern, period, knots, stride, stairs, clearance, smoothing=0.01):
    return {"robot": robot, "gait": {"pattern": pattern, "cycle": "full", "period": period, "knots": knots},
            "stride": stride, "terrain": {"stairs": stairs, "smoothing": smoothing},
            "constraints": {**SOFT, "clearance": clearance}, "cost": "joule_loss"}


SOLO12_STAIR = {"rise": 0.03, "run": 0.13, "count": 10, "start_x": -0.52}
TITAN8_STAIR = {"terrain": {"stairs": {"rise": 0.04, "run": 0.12, "count": 16, "start_x": -1.06}, "smoothing": 0.01}}
# name: (problem file or problem data, overrides of a file, knot scale)
GAITS = {
    "solo12_trot": (ROOT + "solo12_stairs.yaml", {}, 1.0),
    "solo12_walk": (_pattern("solo12", "walk", 0.8, 20, 0.13, SOLO12_STAIR, 0.03, 0.008), {}, 1.0),
    "solo12_crawl": (_pattern("solo12", "crawl", 1.2, 24, 0.13, SOLO12_STAIR, 0.03, 0.008), {}, 1.0),
    "titan8_crawl": (ROOT + "titan8_crawl.yaml", TITAN8_STAIR, 0.5),
    "anymal_c_walk": (_pattern("anymal_c", "walk", 1.2, 20, 0.2, {"rise": 0.04, "run": 0.2, "count": 14,
                                                                   "start_x": -1.1}, 0.08), {}, 1.0),
}


def _problem(spec, overrides, start_x=None, max_iter=500):
    solver = {"solver.max_iter": max_iter, "solver.print_level": 0}
    if isinstance(spec, str):
        at = {} if start_x is None else {"terrain.stairs.start_x": start_x}
        return go.load_problem(spec, {**overrides, **solver, **at})
    stairs = {**spec["terrain"]["stairs"], **({} if start_x is None else {"start_x": start_x})}
    data = {**spec, "terrain": {**spec["terrain"], "stairs": stairs}, "solver": {"max_iter": max_iter, "print_level": 0}}
    return problem_from_dict(data, "stair_starts.yaml")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=12)
    parser.add_argument("--max-iter", type=int, default=500)
    parser.add_argument("--gaits", nargs="*", default=list(GAITS))
    args = parser.parse_args()
    print("| problem | solved | failures (start_x: status, worst term) | cost over the starts |")
    print("|---|---|---|---|")
    for name in args.gaits:
        spec, overrides, scale = GAITS[name]
        stairs = _problem(spec, overrides).terrain["stairs"]
        x0 = stairs["start_x"]
        costs, failures = [], []
        for k in range(args.starts):
            sx = x0 + k * stairs["run"] / args.starts
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = go.solve(_problem(spec, overrides, sx, args.max_iter).scaled_knots(scale))
            if result.success:
                costs.append(result.cost)
            else:
                worst = max(result.violations(), key=lambda v: v["max_violation"])
                failures.append(f"{sx:+.4f}: {result.status}, {worst['term']} {worst['max_violation']:.3g}")
        spread = f"{min(costs):.4g}–{max(costs):.4g}" if costs else "—"
        print(f"| {name} | {len(costs)} / {args.starts} | {'; '.join(failures) or '—'} | {spread} |", flush=True)


if __name__ == "__main__":
    main()
