"""Gear-ratio co-design: the gait and the gear ratios of joint groups optimised together.

The problem's `design.gear_ratio` section (see README "Studies and co-design") makes one gear
ratio per group a decision variable; `gaitopt.actuation` writes the torque-speed line, the
current limit and the Joule loss through it. `solve` returns a Result whose robot carries the
optimal gears, so that `study.case_metrics`, export and plots read the designed actuators.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .gait import solve as solve_gait
from .problem import Bounded


def optimal_gears(result) -> dict:
    """Design group → optimal gear ratio of a solved co-design problem ({} without design)."""
    problem = result.problem
    if not problem.design:
        return {}
    out = {}
    for d in problem.design:
        z = float(result.layout.value(result.x, f"gear_{d.name}")[0])
        out[d.name] = d.bounds.guess * (1.0 + z)
    return out


def with_design(result):
    """The same Result with its robot's actuators set to the optimal gears, and the problem's
    design section removed (the Result then describes a fixed-gear robot)."""
    gears = optimal_gears(result)
    if not gears:
        return result
    acts = {}
    for d in result.problem.design:
        for j in d.joints:
            acts[j] = result.robot.actuators[j].with_gear(gears[d.name])
    return dataclasses.replace(result, robot=result.robot.with_actuators(acts))


def solve(problem, *, warm_start=None, **kwargs):
    """`gaitopt.solve` for a problem with a design section; the Result's robot has the optimal
    gears (see `with_design`). With `warm_start` (a solved Result, e.g. the best point of a gear
    sweep) each group's guess becomes that result's gear ratio (clipped to the bounds), so the
    search starts from that gait and gear; a warm start without a robot (e.g.
    `gaitopt.study.warm_start_from_csv`) leaves the guesses of the design section. Other keyword arguments are those of `gaitopt.solve`."""
    if getattr(warm_start, "robot", None) is not None and problem.design:
        groups = []
        for d in problem.design:
            g = float(np.clip(warm_start.robot.actuators[d.joints[0]].gear_ratio, d.bounds.min, d.bounds.max))
            groups.append(dataclasses.replace(d, bounds=Bounded(d.bounds.min, d.bounds.max, g)))
        problem = problem.replace(design=tuple(groups))
    return with_design(solve_gait(problem, warm_start=warm_start, **kwargs))
