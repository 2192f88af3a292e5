"""Co-design: the gait optimised together with the gear ratios of joint groups and the legs'
thigh/shank length ratio (`design.limb_lengths`, see docs/studies.md).

The problem's `design.gear_ratio` section (see README "Studies and co-design") makes one gear
ratio per group a decision variable; `gaitopt.actuation` writes the torque-speed line, the
current limit and the Joule loss through it. `solve` returns a Result whose robot carries the
optimal gears, so that `study.case_metrics`, export and plots read the designed actuators.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from .constraints.design import designed_legs
from .gait import solve as solve_gait
from .limb_lengths import leg_scales
from .limb_urdf import designed_robot, write_robot
from .robot import load_robot, robot_of
from .problem import Bounded


def optimal_gears(result) -> dict:
    """Design group → optimal gear ratio of a solved co-design problem ({} without design). A
    result read back from its directory (`load_result`: no NLP point) carries them in its
    robot, set from trajectory.csv's design record."""
    problem = result.problem
    if not problem.design:
        return {}
    if result.x is None or result.layout is None:
        return {d.name: result.robot.actuators[d.joints[0]].gear_ratio for d in problem.design}
    out = {}
    for d in problem.design:
        z = float(result.layout.value(result.x, f"gear_{d.name}")[0])
        out[d.name] = d.bounds.guess * (1.0 + z)
    return out


def gears_at_bounds(result, rtol: float = 1e-4) -> dict:
    """Design group → "min" or "max" for each optimal gear ratio on its bound (within rtol): the
    optimum of that gear lies at or beyond the range allowed, not inside it (a user's Go2 calf
    at 0.3 m/s ended on max = 50 with nothing to tell it from an interior optimum)."""
    out, gears = {}, optimal_gears(result)
    for d in result.problem.design or ():
        G = gears[d.name]
        for side, bound in (("min", d.bounds.min), ("max", d.bounds.max)):
            if abs(G - bound) <= rtol * bound:
                out[d.name] = side
    return out


def optimal_limb_ratio(result) -> float | None:
    """The optimal thigh/shank length ratio of a solved limb-length co-design (None without)."""
    spec = result.problem.limb_lengths
    if spec is None or result.x is None:
        return None
    legs = designed_legs(result.problem, result.robot)
    lo, hi = spec.ratio_bounds
    guess = float(np.clip(spec.ratio_guess or legs[0].ratio, lo, hi))
    return guess * (1.0 + float(result.layout.value(result.x, "limb_ratio")[0]))


def with_design(result):
    """The same Result with its robot's actuators set to the optimal gears and its legs to the
    optimal limb lengths (`gaitopt.limb_urdf.designed_robot`, in memory; `write_robot` writes it)."""
    gears = optimal_gears(result)
    ratio = optimal_limb_ratio(result)
    robot = result.robot
    problem = result.problem
    if ratio is not None:
        legs = designed_legs(problem, robot)
        robot = designed_robot(robot, [s for leg in legs for s in (leg.thigh, leg.shank)], leg_scales(legs, ratio))
        # the guess the variable was scaled by, explicit: the designed robot's own ratio differs
        spec = problem.limb_lengths
        guess = float(np.clip(spec.ratio_guess or legs[0].ratio, *spec.ratio_bounds))
        problem = problem.replace(limb_lengths=dataclasses.replace(spec, ratio_guess=guess))
    if gears:
        acts = {}
        for d in result.problem.design:
            for j in d.joints:
                acts[j] = robot.actuators[j].with_gear(gears[d.name])
        robot = robot.with_actuators(acts)
    return result if robot is result.robot else dataclasses.replace(result, robot=robot, problem=problem)


def solve(problem, *, warm_start=None, **kwargs):
    """`gaitopt.solve` for a problem with a design section; the Result's robot has the optimal
    gears (see `with_design`). With `warm_start` (a solved Result, e.g. the best point of a gear
    sweep) each group's guess becomes that result's gear ratio (clipped to the bounds), so the
    search starts from that gait and gear; a warm start without a robot (e.g.
    `gaitopt.study.warm_start_from_csv`) leaves the guesses of the design section. A limb-length
    design without a warm start starts from the best of the gaits solved at fixed ratios
    (`_limb_start`). Other keyword arguments are those of `gaitopt.solve`."""
    if problem.limb_lengths is not None and warm_start is None and kwargs.get("x0") is None:
        problem, warm_start = _limb_start(problem, **kwargs)
    if getattr(warm_start, "robot", None) is not None and problem.design:
        groups = []
        for d in problem.design:
            g = float(np.clip(warm_start.robot.actuators[d.joints[0]].gear_ratio, d.bounds.min, d.bounds.max))
            groups.append(dataclasses.replace(d, bounds=Bounded(d.bounds.min, d.bounds.max, g)))
        problem = problem.replace(design=tuple(groups))
    return with_design(solve_gait(problem, warm_start=warm_start, **kwargs))


# fixed thigh/shank ratios tried before a limb-length co-design: the bounds, the guess and
# geometric steps between (the cost need not be convex in the ratio; docs/studies.md)
LIMB_START_POINTS = 5


def _limb_start(problem, robot=None, **kwargs):
    """(problem with ratio_guess = the best start ratio, the gait optimal there or None): the gait
    solved with fixed legs at LIMB_START_POINTS ratios spaced geometrically over ratio_bounds and
    at the guess; the best successful one starts the co-design."""
    robot = robot or robot_of(problem)
    spec = problem.limb_lengths
    legs = designed_legs(problem, robot)
    lo, hi = spec.ratio_bounds
    guess = float(np.clip(spec.ratio_guess or legs[0].ratio, lo, hi))
    # without code generation: each start ratio is a robot of its own, whose derivatives would
    # be compiled once and never used again (solo12: 14 s each)
    fixed = problem.replace(limb_lengths=None, solver=dataclasses.replace(problem.solver, codegen=False))
    segments = [s for leg in legs for s in (leg.thigh, leg.shank)]
    best, best_ratio = None, guess
    for ratio in sorted({guess, *np.geomspace(lo, hi, LIMB_START_POINTS)}):
        r = solve_gait(fixed, robot=designed_robot(robot, segments, leg_scales(legs, ratio)), **kwargs)
        if r.success and (best is None or r.cost < best.cost):
            best, best_ratio = r, float(ratio)
    return problem.replace(limb_lengths=dataclasses.replace(spec, ratio_guess=best_ratio)), best


def write_designed(result, outdir) -> Path:
    """Write the robot of a solved limb-length co-design with its optimal legs (URDF +
    robot.yaml, `gaitopt.limb_urdf.write_robot`) under outdir; returns the robot's folder."""
    problem = result.problem
    shipped = load_robot(Path(result.robot.folder))
    legs = designed_legs(problem, shipped)
    ratio = optimal_limb_ratio(result)
    return write_robot(shipped, [s for leg in legs for s in (leg.thigh, leg.shank)], leg_scales(legs, ratio), outdir,
                       note=f"thigh/shank ratio {ratio:.6g} (co-designed, {problem.name or 'gaitopt'})")
