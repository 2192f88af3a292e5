"""Whether a planned stance rests on the ground it was planned on, measured at the exported knots.

The contact rows on terrain are written on a model of the ground, at chosen points:

* a stance point's height is set once, where its stance starts (`ContactGround`); after that
  only its velocity is zero at the knots (`ContactAtRest`), so it drifts by the integration's
  error between (a rolling heel or toe, turning fast, drifts most: biped7's toe 2.4 mm over a
  0.3 s roll on a stair);
* footholds keep off a step's smoothed edge (foothold_grade) and a foot's points on one tread
  (foothold_tread) where their stance starts, measured on the smoothed steps;
* friction cones hold about the smoothed surface's normal at the interval midpoints, and the
  exported knot forces are the means of the two intervals meeting there.

A stance point that drifts or slides onto a smoothed edge (within about 2 smoothing widths) is
on none of these rows' terms: its normal there turns by tens of degrees per millimetre, the
midpoints' cones say little about the knots', and the true step is a level away from the
smoothed surface. This module measures what the exported plan does on the true ground (at the
knots, each point that carries force): its height against `Surface.exact_height`, a foot's
loaded points on one tread, and the friction use about the surface normal
(`gaitopt.quantities.friction_use`, the cone the rows write), and `warn_if_off_ground` says so
once after the solve (docs/terrain.md, "Soles on slopes and stairs"). Plane and slope problems
are skipped: their rows measure the ground exactly.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dynamics import GRAVITY  # the dynamics' g, not a second literal
from .penetration import TOLERANCE  # [m] the same 2 mm the swing check allows

FRICTION_TOLERANCE = 0.05  # friction use above 1 + this is reported (the solver's tolerance is far below)
LOAD_SHARE = 0.01  # a point (sagittal: a foot) counts as loaded above this share of the weight


@dataclass(frozen=True)
class StanceGap:
    """The worst loaded point at the knots of each kind [(value, point, t [s], x [m])] or None:
    height, |z − true ground| [m]; friction, the friction use (1: the cone's edge);
    two_treads, the rise [m] between a foot's loaded points standing on different treads."""

    height: tuple | None
    friction: tuple | None
    two_treads: tuple | None


def stance_gaps(result) -> StanceGap | None:
    """Measure the exported knots of `result` (see the module docstring); None on a plane or
    slope. Cost: forward kinematics at every knot."""
    if result.problem.terrain is None:
        return None
    from .quantities import contact_points, friction_use  # why: Pinocchio kinematics only where terrain needs it
    from .terrain_io import surface_of

    surface, robot = surface_of(result.problem), result.robot
    cons = result.problem.constraints
    sagittal = robot.base == "sagittal"
    names = [c.name for c in robot.contacts]
    feet = {}
    for ci, c in enumerate(robot.contacts):
        feet.setdefault(c.foot, []).append(ci)
    load = LOAD_SHARE * robot.total_mass * GRAVITY
    steps = getattr(surface, "kind", "") == "steps"
    worst = {"height": None, "friction": None, "two_treads": None}

    def keep(kind, value, ci, t, x):
        if worst[kind] is None or value > worst[kind][0]:
            worst[kind] = (float(value), names[ci], float(t), float(x))

    for phase in result.trajectory.phases:
        pts = contact_points(robot, phase.q)  # (K+1, nc, 3)
        f = np.asarray(phase.f, float)
        for k, t in enumerate(phase.t):
            for idx in feet.values():
                loaded = [ci for ci in idx if np.linalg.norm(f[k, ci]) > load]
                if not loaded:
                    continue
                x, y, z = pts[k, loaded, 0], pts[k, loaded, 1], pts[k, loaded, 2]
                true = np.asarray(surface.exact_height(x, y), float)
                gap = np.abs(z - true)
                i = int(np.argmax(gap))
                keep("height", gap[i], loaded[i], t, x[i])
                if steps and np.ptp(true) > 0.0:
                    keep("two_treads", np.ptp(true), loaded[int(np.argmax(true))], t, x[int(np.argmax(true))])
                # the rows' cone: per foot about its first point's normal in the sagittal plane,
                # per point in 3-D (constraints.contact.foot_forces)
                groups = [(loaded[0], f[k, loaded].sum(axis=0))] if sagittal else [(ci, f[k, ci]) for ci in loaded]
                for ci, F in groups:
                    use = float(friction_use(surface, pts[k, ci], F, cons.friction, cons.cone, sagittal))
                    keep("friction", use, ci, t, pts[k, ci, 0])
    return StanceGap(worst["height"], worst["friction"], worst["two_treads"])


def off_ground_message(gaps: StanceGap, *, stairs: bool, rolling: bool) -> str | None:
    """The warning's text for `gaps`, or None when nothing is off. The command line prints a
    warning as one line of at most 400 characters (`gaitopt.cli_common.MAX_LINE`): the
    measurements come first and each is short, and the advice names only what applies to the
    problem (stairs: terrain.stairs.start_x; heel–toe feet: the rolls' knots), so that with all
    three measurements it still fits and is not cut in the middle of the advice."""
    said = []
    if gaps.height is not None and gaps.height[0] > TOLERANCE:
        v, name, t, x = gaps.height
        said.append(f"{name} carries force {1e3 * v:.1f} mm off the true ground ({_when(t, x)})")
    if gaps.two_treads is not None:
        v, name, t, x = gaps.two_treads
        said.append(f"{name}'s foot stands on two treads ({1e3 * v:.0f} mm apart; {_when(t, x)})")
    if gaps.friction is not None and gaps.friction[0] > 1.0 + FRICTION_TOLERANCE:
        v, name, t, x = gaps.friction
        said.append(f"{name} uses {v:.2f} of its friction cone ({_when(t, x)})")
    if not said:
        return None
    knots = "more knots in the heel and toe rolls" if rolling else "more knots"
    other = ", or terrain.stairs.start_x moved a few mm" if stairs else ""
    return ("stance off the ground its rows set: " + "; ".join(said)
            + f". Try {knots}{other} (docs/terrain.md)")


def _when(t: float, x: float) -> str:
    return f"t {t:.3f} s, x {x:.3f} m"


def warn_if_off_ground(result) -> None:
    """One warning when a loaded stance point stands more than TOLERANCE off the true ground,
    a foot's loaded points stand on two treads, or a force's friction use exceeds
    1 + FRICTION_TOLERANCE, at the exported knots (`off_ground_message`)."""
    gaps = stance_gaps(result)
    if gaps is None:
        return
    terrain = result.problem.terrain or {}
    text = off_ground_message(gaps, stairs="stairs" in terrain,
                              rolling=any(f.kind == "heel_toe" for f in result.robot.feet.values()))
    if text is None:
        return
    import warnings

    warnings.warn(text, stacklevel=2)
