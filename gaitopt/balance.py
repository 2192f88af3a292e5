"""Static balance limits: the angle at which a robot standing on both flat soles tips over when
one joint (or a symmetric joint pair) is moved from a posture, and the HOAP-2 protocol of the
thesis (robots/hoap2/balance_protocol.yaml: 16 moves measured on the real robot) predicted with
it. docs/balance.md gives the numbers and every parameter's source.

Static model: the robot is a rigid multibody at rest on level ground with its soles parallel to
it (the protocol's moves are left/right symmetric: checked; equal ankle rolls lift one sole, see
`Stance`), and it tips when the ground projection of its centre of mass leaves the support
polygon, the convex hull of the two sole rectangles (heel/toe points of robot.yaml, the given
width). Optionally the thesis's measured joint play (backlash) is taken up towards the fall.
Dynamics and compliance are left out.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pinocchio as pin

from .errors import InputError
from .yamlio import load_yaml

PROTOCOL_FILE = "balance_protocol.yaml"
EDGES = ("back", "front", "right", "left")  # outward normal −x, +x, −y, +y of the ground frame


@dataclass(frozen=True)
class Move:
    """One protocol move: `joints` all set to the same angle, moved in `direction` (±1) from
    the posture (arms lowered or not); `falls` the edge the robot fell over; measured [rad]."""

    name: str
    joints: tuple
    direction: int
    falls: str
    arms_lowered: bool
    measured: float


@dataclass(frozen=True)
class Protocol:
    """The moves, the arm angles of "arms lowered" (joint → rad), the sole width [m], the
    thesis simulator's mean absolute errors [deg] (label → value) and the measured backlash
    (joint → rad: the play of each joint that gravity takes up in a fore-aft lean)."""

    robot: str
    moves: tuple
    arms_lowered: dict
    foot_width: float
    thesis_mae_deg: dict
    file: str
    backlash: dict


def load_protocol(robot_folder: str | Path) -> Protocol:
    """Read ROBOT_FOLDER/balance_protocol.yaml (InputError naming the file and field)."""
    path = Path(robot_folder) / PROTOCOL_FILE
    data = load_yaml(path)
    try:
        moves = tuple(Move(str(m["move"]), tuple(m["joints"]), int(m["direction"]), str(m["falls"]),
                           bool(m["arms_lowered"]), float(m["measured_rad"])) for m in data["moves"])
        proto = Protocol(str(data["robot"]), moves, {k: float(v) for k, v in data["arms_lowered"].items()},
                         float(data["foot_width_m"]), {str(k): float(v) for k, v in data["thesis_mae_deg"].items()},
                         str(path), {str(k): float(np.radians(v)) for k, v in data["backlash_deg"].items()})
    except (KeyError, TypeError, ValueError) as err:
        raise InputError(f"malformed balance protocol ({type(err).__name__}: {err})", file=str(path)) from None
    for m in moves:
        if m.direction not in (-1, 1) or m.falls not in EDGES:
            raise InputError(f"move {m.name!r}: direction must be ±1 and falls one of {EDGES}", file=str(path),
                             field="moves")
    return proto


class Stance:
    """A robot standing on its soles on level ground: the CoM's margin inside the support.

    robot: a gaitopt Robot with heel/toe feet (floating base); foot_width [m] of the sole
    rectangles (heel..toe long, centred on the sole frame laterally). The soles must be parallel
    with no fore-aft offset between them (true for every left/right symmetric move). Both soles
    coplanar: the support polygon is the convex hull of the two rectangles. Soles at different
    heights (equal ankle-roll angles with the hip rolls at 0 tilt the legs but keep the soles
    parallel, `lift` apart): the robot stands on the lower sole, flat, leaning towards it, and
    the higher sole, hovering `lift` above the ground, catches it if it rolls the other way; so
    it falls when the CoM projection along the sole normal leaves the hull of both soles' foot
    prints. (A rigid robot could also balance on the lower sole's inner edge and the higher sole's
    outer edge with its pelvis level; docs/balance.md says why that state is not used.)"""

    def __init__(self, robot, foot_width: float):
        if not foot_width > 0:
            raise InputError(f"foot width must be positive, got {foot_width}", field="foot_width")
        self.robot, self.model = robot, robot.model
        self.data = robot.model.createData()
        self.width = float(foot_width)
        self.soles = []  # frame ids
        xs = set()
        for foot in robot.feet.values():
            pts = [robot.contact(c).point for c in foot.contacts]
            if len(pts) != 2 or any(abs(p[1]) > 1e-12 or abs(p[2]) > 1e-12 for p in pts):
                raise InputError(f"foot {foot.name!r} needs heel and toe points on its sole frame's x axis",
                                 field="feet")
            xs.add((min(p[0] for p in pts), max(p[0] for p in pts)))
            self.soles.append(self.model.getFrameId(foot.frame))
        if len(xs) != 1:
            raise InputError("the soles must have the same heel and toe positions", field="feet")
        self.heel, self.toe = xs.pop()

    def configuration(self, joints: dict) -> np.ndarray:
        """q (nq,) with the base at the origin and the named joints [rad] set, the others 0."""
        q = pin.neutral(self.model)
        for name, value in joints.items():
            if not self.model.existJointName(name):
                raise InputError(f"not a joint of robot {self.robot.name}", field=name)
            q[self.model.joints[self.model.getJointId(name)].idx_q] = value
        return q

    def evaluate(self, joints: dict) -> dict:
        """com (3,) in the first sole's frame [m], lift [m] (height of the highest sole above
        the lowest), support ((y_min, y_max), (heel, toe)) [m] of the support rectangle, margin [m]
        (signed distance of the CoM projection to its nearest edge, > 0 inside) and edge (that
        edge by its outward direction: back, front, right, left)."""
        m, d = self.model, self.data
        q = self.configuration(joints)
        pin.framesForwardKinematics(m, d, q)
        ground = d.oMf[self.soles[0]]
        pos = []
        for fid in self.soles:
            rel = ground.actInv(d.oMf[fid])  # sole pose in the first sole's frame
            if not np.allclose(rel.rotation, np.eye(3), atol=1e-9) or abs(rel.translation[0]) > 1e-9:
                raise InputError("the soles are not parallel (or are offset fore-aft) in this posture; the static "
                                 "balance limit needs left/right symmetric moves", field="joints")
            pos.append(rel.translation)
        z_low = min(p[2] for p in pos)
        ys = [p[1] + s * self.width / 2 for p in pos for s in (-1, 1)]
        c = ground.actInv(pin.centerOfMass(m, d, q))
        margin, edge = rectangle_margin((self.heel, self.toe), (min(ys), max(ys)), c)
        return {"com": c, "lift": max(p[2] for p in pos) - z_low,
                "support": ((min(ys), max(ys)), (self.heel, self.toe)), "margin": margin, "edge": edge}


def rectangle_margin(x_range, y_range, point) -> tuple[float, str]:
    """Signed distance [m] of a point's (x, y) to the nearest edge of the rectangle x_range ×
    y_range (positive inside; its zero crossing is the boundary crossing), and that edge named
    by its outward direction: back (x low), front (x high), right (y low), left (y high)."""
    x, y = float(point[0]), float(point[1])
    sides = {"back": x - x_range[0], "front": x_range[1] - x, "right": y - y_range[0], "left": y_range[1] - y}
    name = min(sides, key=sides.get)
    return float(sides[name]), name


def tipping_angle(stance: Stance, joints, posture: dict, direction: int, margin: float = 0.0,
                  step: float = np.radians(0.25), tol: float = 1e-7, offsets: dict | None = None) -> dict:
    """Move `joints` (all to the same commanded angle θ [rad]) from `posture` (joint → rad) in
    `direction` (±1) in steps of `step` until the CoM margin falls below `margin` [m] (0: the
    polygon edge), then bisect to `tol` [rad]. Stops at the first joint limit met. offsets
    (joint → rad) are added to the commanded angles (backlash: actual = commanded + play).

    Returns angle [rad] (NaN if the robot does not tip inside the joint range), edge (the
    polygon edge crossed, "" if none) and limit [rad] (the joint-range end in that direction)."""
    m = stance.model
    ids = [m.joints[m.getJointId(j)].idx_q for j in joints]
    ends = m.upperPositionLimit[ids] if direction > 0 else m.lowerPositionLimit[ids]
    limit = float(np.min(ends) if direction > 0 else np.max(ends))

    def excess(theta):
        values = {**posture, **{j: theta for j in joints}}
        for j, d in (offsets or {}).items():
            values[j] = values.get(j, 0.0) + d
        e = stance.evaluate(values)
        return e["margin"] - margin, e["edge"]

    start, edge = excess(0.0)
    if start < 0:  # already outside (or on) the polygon in the posture itself
        return {"angle": 0.0, "edge": edge, "limit": limit}
    lo = 0.0
    while abs(lo) < abs(limit):
        hi = direction * min(abs(lo) + step, abs(limit))
        if excess(hi)[0] < 0:
            while abs(hi - lo) > tol:
                mid = 0.5 * (lo + hi)
                lo, hi = (mid, hi) if excess(mid)[0] > 0 else (lo, mid)
            return {"angle": 0.5 * (lo + hi), "edge": excess(hi)[1], "limit": limit}
        lo = hi
    return {"angle": float("nan"), "edge": "", "limit": limit}


def backlash_offsets(protocol: Protocol, move: Move) -> dict:
    """The protocol's backlash taken up towards the fall of a fore-aft move (joint → rad): hip
    and ankle pitch + lean the body back (robots/hoap2/README.md), so + for a fall backwards and
    − forwards; none for a sideways fall (the play is in pitch joints)."""
    sign = {"back": 1.0, "front": -1.0}.get(move.falls, 0.0)
    return {j: sign * v for j, v in protocol.backlash.items()} if sign else {}


def balance_table(robot, protocol: Protocol, margin: float = 0.0, foot_width: float | None = None,
                  backlash: bool = False) -> list[dict]:
    """One row per protocol move (backlash: with the protocol's joint play taken up towards the
    fall, `backlash_offsets`; the measured angles are commanded ones): move, joints,
    measured_deg, predicted_deg (NaN: no tip inside
    the joint range), tipped, limit_deg (the joint-range end in the move's direction), error_deg
    (predicted − measured; for a move that does not tip, limit − measured, a lower bound of the
    error's size), edge (predicted), falls (named), margin_at_measured [m] (the CoM margin at
    the measured angle) and lift_at_measured [m] (the higher sole's height above the lower)."""
    stance = Stance(robot, protocol.foot_width if foot_width is None else foot_width)
    rows = []
    for mv in protocol.moves:
        posture = dict(protocol.arms_lowered) if mv.arms_lowered else {}
        offsets = backlash_offsets(protocol, mv) if backlash else {}
        tip = tipping_angle(stance, mv.joints, posture, mv.direction, margin, offsets=offsets)
        at = {**posture, **{j: mv.measured for j in mv.joints}}
        at = stance.evaluate({j: at.get(j, 0.0) + offsets.get(j, 0.0) for j in {*at, *offsets}})
        tipped = bool(np.isfinite(tip["angle"]))
        measured, limit = np.degrees(mv.measured), np.degrees(tip["limit"])
        pred = np.degrees(tip["angle"])
        rows.append({"move": mv.name, "joints": list(mv.joints), "measured_deg": float(measured),
                     "predicted_deg": float(pred), "tipped": tipped, "limit_deg": float(limit),
                     "error_deg": float((pred if tipped else limit) - measured), "edge": tip["edge"],
                     "falls": mv.falls, "margin_at_measured": at["margin"], "lift_at_measured": at["lift"]})
    return rows


def mean_abs_error(rows) -> float:
    """Mean of |error_deg| over the rows [deg]. A move that does not tip counts with its
    joint-range end as the prediction, so then the mean is a lower bound (see `tipped`)."""
    return float(np.mean([abs(r["error_deg"]) for r in rows]))


def cross_validated_margin(robot, protocol: Protocol, grid=np.arange(0.0, 0.0301, 0.001)) -> dict:
    """One fitted parameter, a uniform inward margin m [m] of the support polygon (the real
    robot tips inside its soles: backlash, compliance), fitted by grid search to minimise the
    mean absolute error on one half of the moves and scored on the other half (two folds:
    moves 0, 2, 4, … = arms forward and 1, 3, 5, … = arms lowered). Returns per fold the fitted
    margin, the training MAE and the held-out MAE [deg], and the mean held-out MAE."""
    tables = {float(m): balance_table(robot, protocol, margin=float(m)) for m in grid}
    n = len(protocol.moves)
    halves = (list(range(0, n, 2)), list(range(1, n, 2)))
    folds = []
    for train, test in (halves, halves[::-1]):
        scores = {m: mean_abs_error([t[i] for i in train]) for m, t in tables.items()}
        best = min(scores, key=lambda m: (scores[m], m))
        folds.append({"train": [protocol.moves[i].name for i in train], "margin_m": best,
                      "train_mae_deg": scores[best], "test_mae_deg": mean_abs_error([tables[best][i] for i in test])})
    return {"folds": folds, "held_out_mae_deg": float(np.mean([f["test_mae_deg"] for f in folds]))}
