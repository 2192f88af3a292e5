"""How many cycles of a plan the ground carries. A periodic gait on steps, stairs or a height
map repeats its footholds one cycle later, shifted by the cycle's base advance (Δx, Δz); the
solve checks that the ground repeats so over one cycle's path (`terrain_io.check_terrain`), but
N cycles (a replay, an export, an animation) walk N of them: past a stair's last edge (the
landing is level, the plan still climbs) or off the replay's ground
(`verify.terrain_geoms.TERRAIN_EXTENT`), the plan meets ground it was not made for (a new user's
Go1 stair trot, ten steps, `gaitopt verify --cycles 8`: "slipped 51.6 mm, 12.2 % short, +240 %
Joule loss" after it reached the top in the fifth cycle; its 8-cycle animation ended 0.2 m
above the landing)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .quantities import contact_points
from .schedule import active_points

# [m] a stance point's height above the true ground may change by this much from the first
# cycle's before the ground is called another one (stance drift is ≤ 1.6 mm, docs/terrain.md)
GROUND_CHANGE = 0.002


@dataclass
class Reach:
    """cycles: whole cycles whose stance points stand on the replay's ground as in the first;
    the first point that does not: contact name, cycle (1-based), x [m] of the point, planned
    height z [m] and the replay's ground h [m] there (h None: off the replay's ground)."""

    cycles: int
    point: str = ""
    cycle: int = 0
    x: float = 0.0
    z: float = 0.0
    h: float | None = None


def terrain_reach(result, surface, cycles: int, extent=None) -> Reach:
    """The Reach of `cycles` cycles of result's plan on surface (Reach.cycles ≥ cycles: all of
    them). Stance points at the knots of the first cycle, moved by c·(Δx, Δz) in cycle c + 1,
    against the true ground (`Surface.exact_height`): the height above it may not change by more
    than GROUND_CHANGE, and (x, y) must stay within extent ((x0, x1), (y0, y1)) [m] when given
    (the replay's ground). A plane, or a turning gait
    (its footholds rotate from cycle to cycle), is taken as reaching every cycle."""
    traj = result.trajectory
    if surface.kind == "plane":
        return Reach(cycles)
    coords = list(traj.coordinates)
    shift = np.asarray(traj.base_shift, float)
    if "base_yaw" in coords and abs(shift[coords.index("base_yaw")]) > 1e-9:
        return Reach(cycles)
    dx, dz = shift[coords.index("base_x")], shift[coords.index("base_z")]
    robot = result.robot
    modes = traj.phase_modes()
    xs, ys, zs, names = [], [], [], []
    for phase in traj.phases:
        on = active_points(robot, modes[phase.name])
        pts = contact_points(robot, phase.q)
        for ci, c in enumerate(robot.contacts):
            if c.name in on:
                xs.append(pts[:, ci, 0]), ys.append(pts[:, ci, 1]), zs.append(pts[:, ci, 2])
                names += [c.name] * len(pts)
    x, y, z = (np.concatenate(a) for a in (xs, ys, zs))
    gap0 = z - surface.exact_height(x, y)
    (x_lo, x_hi), (y_lo, y_hi) = extent if extent is not None else ((-np.inf, np.inf), (-np.inf, np.inf))
    for c in range(cycles):
        xc, zc = x + c * dx, z + c * dz
        off = (xc < x_lo) | (xc > x_hi) | (y < y_lo) | (y > y_hi)
        h = surface.exact_height(xc, y)
        bad = off | (np.abs(zc - h - gap0) > GROUND_CHANGE)
        if bad.any():
            i = int(np.argmax(bad))
            return Reach(c, names[i], c + 1, float(xc[i]), float(zc[i]), None if off[i] else float(h[i]))
    return Reach(cycles)


def reach_message(reach: Reach, cycles: int, problem, extent=None) -> str:
    """One line: where `cycles` cycles leave the ground the gait repeats on, and how many fit
    (on stairs, the problem's, with the key that makes them longer)."""
    where = (f"off the replay's ground (x {extent[0][0]:g} to {extent[0][1]:g} m)" if reach.h is None
             else f"where the ground is {reach.h:.3g} m high and the plan's point {reach.z:.3g} m")
    stairs = "stairs" in (getattr(problem, "terrain", None) or {})
    more = " (a longer stair: terrain.stairs.count)" if stairs else ""
    return (f"{cycles} cycles of the plan take {reach.point} to x = {reach.x:.3g} m in cycle {reach.cycle}, {where}: "
            f"the ground there is not the ground the gait repeats on; at most --cycles {max(reach.cycles, 1)}{more}")
