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


@dataclass(frozen=True)
class Penetration:
    """The deepest sample: depth [m] below the true ground (> 0: inside), contact point name,
    time t [s] within the cycle and the point's x [m]."""

    depth: float
    point: str
    t: float
    x: float


def deepest_penetration(result, per_interval: int = 8):
    """The deepest contact point below the true ground over the exported interpolant
    (`Trajectory.sample_cycle`), or None on a plane or slope (whose ground the rows measure
    exactly). Cost: per_interval forward kinematics per interval."""
    if result.problem.terrain is None:
        return None
    from .quantities import contact_points  # why: Pinocchio kinematics only where terrain needs it
    from .terrain_io import surface_of

    t, samples, _ = result.trajectory.sample_cycle(per_interval)
    points = contact_points(result.robot, samples["q"])  # (T, nc, 3)
    depth = np.asarray(surface_of(result.problem).exact_height(points[..., 0], points[..., 1]), float) - points[..., 2]
    i, c = np.unravel_index(int(np.argmax(depth)), depth.shape)
    return Penetration(float(depth[i, c]), result.robot.contacts[c].name, float(t[i]), float(points[i, c, 0]))


def warn_if_inside(result) -> None:
    """One warning when a contact point passes more than TOLERANCE inside the true ground."""
    deepest = deepest_penetration(result)
    if deepest is None or deepest.depth <= TOLERANCE:
        return
    import warnings

    warnings.warn(f"the plan's contact point {deepest.point} passes {1e3 * deepest.depth:.1f} mm inside the terrain "
                  f"at t = {deepest.t:.3f} s (x = {deepest.x:.3f} m), between the points where the swing clearance "
                  "holds: more knots, or a smaller terrain.smoothing (a tighter envelope over the edges), keep it out",
                  stacklevel=2)
