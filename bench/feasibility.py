"""Kinematic feasibility at full size: every shipped problem solved with the feasibility rules
on (the defaults) and off, with cost, iterations, solve time and the worst margin of each rule
at the knots and on the interpolant (gaitopt.feasibility); and how long the pre-solve checks
take (gaitopt.precheck). Prints a markdown table (docs/feasibility.md).

    python bench/feasibility.py [--problems NAME ...]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import gaitopt as go
from gaitopt.feasibility import feasibility_report, worst_margin
from gaitopt.precheck import check_problem
from gaitopt.problem import shipped_problems
from gaitopt.robot import robot_of

OFF = {"constraints.foot_range": False, "constraints.leg_separation": False, "constraints.base_attitude": False,
       "constraints.base_height": False, "constraints.knee_margin": False, "constraints.upper_body": False,
       "constraints.foot_yaw": False}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="*", help="problem stems (default: every shipped problem)")
    args = parser.parse_args()
    paths = [p for p in shipped_problems() if not args.problems or Path(p).stem in args.problems]
    print("| problem | cost on | cost off | iterations on | solve on [s] | worst margin knots | "
          "worst margin 400 samples [m or rad] | precheck [ms] |")
    print("|---|---|---|---|---|---|---|---|")
    for path in paths:
        problem = go.load_problem(path)
        robot = robot_of(problem)
        t0 = time.perf_counter()
        check_problem(problem, robot)
        t_check = time.perf_counter() - t0
        on = go.solve(problem, robot=robot, print_level=0)
        off = go.solve(go.load_problem(path, dict(OFF)), robot=robot, print_level=0)
        knots = worst_margin(feasibility_report(on.trajectory, robot, on.problem))
        samples = worst_margin(feasibility_report(on.trajectory, robot, on.problem, samples=400))
        print(f"| {Path(path).stem} | {on.cost:.4g}{'' if on.success else ' (failed)'} | "
              f"{off.cost:.4g}{'' if off.success else ' (failed)'} | {on.stats['iterations']} | "
              f"{on.stats['solve_time_s']:.2f} | {knots:.1e} | {samples:.1e} | {1e3 * t_check:.1f} |", flush=True)


if __name__ == "__main__":
    main()
