"""Where a planned motion passes inside the ground between the points its rows constrain.

The swing-clearance rows hold at the kinematic collocation points only, measured from the
smoothed ground's envelope; between them, and near lift-off (where the clearance fades from
the lift-off height), a foot crossing a sharp step edge can dip inside the true step. This
module samples the motion's interpolant densely and measures against the true ground
(`Surface.exact_height`), so that a plan that passes through terrain is said, not exported
silently (a new user's 30 mm blocks: a solved walk whose front foot crossed an edge 12.7 mm
inside the block, 2026-11-25)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# a contact point deeper than this [m] below the true ground is reported
TOLERANCE = 0.002
SOLE_SAMPLES = 19  # points along each heel–toe edge between its ends (5 % apart)


@dataclass(frozen=True)
class Penetration:
    """The deepest sample: depth [m] below the true ground (> 0: inside), contact point name,
    time t [s] within the cycle and the point's x [m]."""

    depth: float
    point: str
    t: float
    x: float


def deepest_penetration(result, per_interval: int = 8):
    """The deepest contact point, or point on a sole's heel–toe edge, below the true ground
    over the exported interpolant (`Trajectory.sample_cycle`), or None on a plane or slope (whose
    ground the rows measure exactly). Cost: per_interval forward kinematics per interval."""
    if result.problem.terrain is None:
        return None
    from .quantities import contact_points  # why: Pinocchio kinematics only where terrain needs it
    from .terrain_io import surface_of

    t, samples, _ = result.trajectory.sample_cycle(per_interval)
    return deepest_among(surface_of(result.problem), result.robot.contacts, t,
                         contact_points(result.robot, samples["q"]))


def sole_edges(contacts) -> list:
    """[(heel index, toe index)]: each foot's heel and toe points on one side (a line foot's
    pair; a sole's inner pair and outer pair), between which its sole's bottom runs."""
    return [(i, j) for i, c in enumerate(contacts) if c.role == "heel"
            for j, d in enumerate(contacts) if d.role == "toe" and d.foot == c.foot and d.side == c.side]


def deepest_among(surface, contacts, t, points) -> Penetration:
    """The deepest of the contact points (T, nc, 3) [m] at times t (T,) [s] and of SOLE_SAMPLES
    points along each sole edge (`sole_edges`: rows hold the corners only, and a sole across a
    step's nose, or over a bump of a height map, passes inside between them)."""
    names = [c.name for c in contacts]
    extra = []
    for i, j in sole_edges(contacts):
        for u in np.linspace(0.0, 1.0, SOLE_SAMPLES + 2)[1:-1]:
            extra.append(points[:, i] + u * (points[:, j] - points[:, i]))
            names.append(f"{names[i]}–{names[j]} at {u:.0%}")
    if extra:
        points = np.concatenate([points, np.stack(extra, axis=1)], axis=1)
    depth = np.asarray(surface.exact_height(points[..., 0], points[..., 1]), float) - points[..., 2]
    i, c = np.unravel_index(int(np.argmax(depth)), depth.shape)
    return Penetration(float(depth[i, c]), names[c], float(t[i]), float(points[i, c, 0]))


def warn_if_inside(result) -> None:
    """One warning when a contact point (or a sole's edge) passes more than TOLERANCE inside the
    true ground."""
    deepest = deepest_penetration(result)
    if deepest is None or deepest.depth <= TOLERANCE:
        return
    import warnings

    if "–" in deepest.point and _swinging(result, deepest):  # the clearance rows hold its corners only
        what, why = ("the plan's swinging sole edge", "between its corners, which the swing clearance holds: a "
                     "larger constraints.clearance lifts them (no row holds the sole between)")
    elif "–" in deepest.point:  # a sole's edge between its corners: no row holds it
        what, why = ("the plan's sole edge", "between its corners, which the rows hold: a stair run longer than the "
                     "sole, or a smoother height map under it, keeps it out")
    elif _in_contact(result, deepest):  # velocity rows only after its stance starts: it drifts
        what, why = ("the plan's stance point", "while in contact: its height is set where its stance starts and only "
                     "its velocity at the knots after, so it drifts from knot to knot (fast in a heel or toe roll); more "
                     "knots in that phase keep it on the ground")
    else:
        what, why = ("the plan's contact point", "between the points where the swing clearance holds: more knots, or "
                     "a smaller terrain.smoothing (a tighter envelope over the edges), keep it out")
    warnings.warn(f"{what} {deepest.point} passes {1e3 * deepest.depth:.1f} mm inside the terrain "
                  f"at t = {deepest.t:.3f} s (x = {deepest.x:.3f} m), {why}", stacklevel=2)


def _in_contact(result, deepest: Penetration) -> bool:
    """Whether the contact point `deepest` names is in contact at its time (a held toe that
    drifted 3.0 mm into a biped7 stair tread in a solved heel–toe walk was said to pass between
    swing clearance points)."""
    from .schedule import active_points

    phase = result.trajectory._locate(deepest.t)[1]
    return deepest.point in active_points(result.robot, phase.modes)


def _swinging(result, deepest: Penetration) -> bool:
    """Whether the foot of a sole-edge sample (named "<heel>–<toe> at u%") is in swing at its
    time (biped7's 35.3 mm on a 0.08/0.3 m stair, likely the strider trial's 72.7 mm too: a
    swinging sole's edge through a nose its corners cleared, not a stance sole across it)."""
    foot = result.robot.contact(deepest.point.split("–")[0]).foot
    phase = result.trajectory._locate(deepest.t)[1]
    return phase.modes.get(foot) == "swing"
