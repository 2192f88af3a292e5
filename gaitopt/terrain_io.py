"""Problem-file `terrain` ↔ surfaces: reading and checking the terrain section, and rebuilding a
surface from its description (trajectory.csv's header, result.json's problem record).

    terrain: {slope_deg: 10}                                       # a plane slope
    terrain: {stairs: {rise: 0.03, run: 0.12, count: 8, start_x: -0.3}, smoothing: 0.01}
    terrain: {steps: [{x: 0.2, height: 0.05}, {x: 0.6, height: 0.0}]}
    terrain: {height_map: {origin: [x0, y0], spacing: [dx, dy], heights: [[...], ...]}}

One kind per problem. A problem keeps the plane's slope in `Problem.slope` and any other ground
as `Problem.terrain`, the checked section in this canonical form.
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin

from .errors import InputError
from .terrain import DEFAULT_SMOOTHING, MAX_GRID, HeightMap, Plane, Steps, Surface, stair
from .yamlio import Fields

KINDS = ("slope_deg", "stairs", "steps", "height_map")
MAX_STEPS = 200
MAX_HEIGHT = 10.0  # [m] of any step or map height
MAX_MAP_NODES = 400  # the NLP evaluates one Fourier term per node at every contact point


def read_terrain(f: Fields) -> tuple:
    """(slope [rad], canonical terrain dict or None) of a problem file's `terrain` section."""
    t = f.mapping("terrain", {}, allowed=list(KINDS) + ["smoothing"])
    given = [k for k in KINDS if t.has(k)]
    if len(given) > 1:
        raise t.error(given[1], f"one kind of terrain per problem, got {', '.join(given)}", list(KINDS))
    slope_deg = t.number("slope_deg", 0.0, low=-30.0, high=30.0)
    smoothing = t.number("smoothing", DEFAULT_SMOOTHING, low=1e-4, high=0.2)
    out = None
    if t.has("stairs"):
        s = t.mapping("stairs", allowed=["rise", "run", "count", "start_x"])
        out = {"stairs": {"rise": s.number("rise", low=-0.5, high=0.5),
                          "run": s.number("run", low=0.02, high=2.0),
                          "count": s.integer("count", low=1, high=MAX_STEPS),
                          "start_x": s.number("start_x", 0.0, low=-100.0, high=100.0)}}
        s.done(["rise", "run", "count", "start_x"])
    elif t.has("steps"):
        out = {"steps": _read_steps(t)}
    elif t.has("height_map"):
        out = {"height_map": _read_height_map(t)}
    if t.has("smoothing") and not (t.has("stairs") or t.has("steps")):
        raise t.error("smoothing", "only steps and stairs are smoothed", "stairs, steps")
    if out is not None and t.has("smoothing"):
        out["smoothing"] = smoothing
    t.done()
    return slope_deg * np.pi / 180.0, out


def _read_steps(t: Fields) -> list:
    items = t.sequence("steps", max_len=MAX_STEPS)
    if not items:
        raise t.error("steps", "at least one step edge is needed", "[{x: m, height: m}, ...]")
    out = []
    for i, item in enumerate(items):
        e = Fields(item, t.file, t.key(f"steps[{i}]"), allowed=["x", "height"])
        out.append({"x": e.number("x", low=-100.0, high=100.0),
                    "height": e.number("height", low=-MAX_HEIGHT, high=MAX_HEIGHT)})
        e.done(["x", "height"])
    xs = [s["x"] for s in out]
    if any(b <= a for a, b in zip(xs, xs[1:])):
        raise t.error("steps", f"edge x must increase, got {xs[:8]}", "increasing x")
    return out


def _read_height_map(t: Fields) -> dict:
    m = t.mapping("height_map", allowed=["origin", "spacing", "heights"])
    origin = m.vector("origin", 2, [0.0, 0.0])
    spacing = m.vector("spacing", 2)
    if min(spacing) <= 0:
        raise m.error("spacing", f"must be > 0, got {spacing}", "[dx, dy] > 0 m")
    rows = m.sequence("heights", max_len=MAX_GRID)
    allowed = (f"2 to {MAX_GRID} rows (along x) of equally many heights (along y), at most {MAX_MAP_NODES} in all, "
               f"|z| <= {MAX_HEIGHT:g} m")
    try:
        grid = np.array(rows, dtype=float)
    except (TypeError, ValueError):
        raise m.error("heights", "expected rows of numbers of equal length", allowed) from None
    if grid.ndim != 2 or min(grid.shape) < 2 or max(grid.shape) > MAX_GRID or grid.size > MAX_MAP_NODES:
        raise m.error("heights", f"got shape {grid.shape}", allowed)
    # Name the offending value: "got shape (2, 2)" for a NaN read as a shape error.
    if not np.all(np.isfinite(grid)):
        raise m.error("heights", "every height must be a finite number, got nan or inf", allowed)
    if np.abs(grid).max() > MAX_HEIGHT:
        raise m.error("heights", f"|z| must be <= {MAX_HEIGHT:g} m, got {np.abs(grid).max():g}", allowed)
    m.done(["origin", "spacing", "heights"])
    return {"origin": origin, "spacing": spacing, "heights": grid.tolist()}


def surface_of(problem) -> Surface:
    """The surface of a Problem (its plane slope, or its `terrain`)."""
    return surface_from_terrain(getattr(problem, "terrain", None), problem.slope)


def surface_from_terrain(terrain: dict | None, slope: float = 0.0) -> Surface:
    """The surface of a canonical terrain dict (see `read_terrain`), or the plane."""
    if not terrain:
        return Plane(float(slope))
    w = float(terrain.get("smoothing", DEFAULT_SMOOTHING))
    if "stairs" in terrain:
        s = terrain["stairs"]
        return stair(s["rise"], s["run"], int(s["count"]), s["start_x"], w)
    if "steps" in terrain:
        return Steps(tuple(s["x"] for s in terrain["steps"]), tuple(s["height"] for s in terrain["steps"]), w)
    m = terrain["height_map"]
    return HeightMap(tuple(m["origin"]), tuple(m["spacing"]), tuple(tuple(r) for r in m["heights"]))


def surface_from_description(d: dict, file: str = "<header>") -> Surface:
    """Rebuild a surface from `Surface.describe()` data (trajectory.csv's `terrain.surface`)."""
    try:
        kind = d["kind"]
        if kind == "plane":
            return Plane(float(d["slope_rad"]))
        if kind == "steps":
            return Steps(tuple(map(float, d["edges"])), tuple(map(float, d["levels"])), float(d["smoothing"]),
                         float(d.get("grade", 0.0)))
        if kind == "height_map":
            return HeightMap(tuple(map(float, d["origin"])), tuple(map(float, d["spacing"])),
                             tuple(tuple(map(float, r)) for r in d["heights"]))
    except (KeyError, TypeError, ValueError) as err:
        raise InputError(f"malformed terrain description ({type(err).__name__})", file=file,
                         field="terrain.surface") from None
    raise InputError(f"unknown terrain kind {kind!r}", file=file, field="terrain.surface",
                     allowed=["plane", "steps", "height_map"])


def periodic_slope(problem) -> float:
    """The slope [rad] whose tangent is the base's rise per metre of a periodic gait on the
    problem's ground (`cycle.cycle_shift` takes it): the plane's slope, atan(rise/run) on a
    stair, 0 on a height map."""
    if not getattr(problem, "terrain", None):
        return float(problem.slope)
    return float(np.arctan(surface_of(problem).grade))


def part_distance(problem) -> float | None:
    """Base advance [m] over the optimised part (the full cycle, or half of it) when the problem
    fixes it (a fixed stride, or a fixed speed with fixed phase durations), else None."""
    part = 0.5 if problem.cycle == "half" else 1.0
    if problem.stride is not None:
        return part * problem.stride.min if problem.stride.fixed else None
    if problem.speed is not None and problem.speed.fixed and all(p.duration.fixed for p in problem.phases):
        return problem.speed.min * sum(p.duration.min for p in problem.phases)
    return None


def check_terrain(problem, robot) -> None:
    """A periodic gait repeats its footholds one optimised part later (mirrored in y for a half
    cycle), so the ground under the robot must too: h(x + D, ±y) = h(x, y) + D·grade over the
    region its feet cover. Raises InputError (field terrain) when it does not, or when D is
    not fixed."""
    if not getattr(problem, "terrain", None):
        return
    D = part_distance(problem)
    if D is None:
        raise InputError("steps, stairs and height maps need a fixed base advance per cycle", file=problem.source,
                         field="terrain", allowed="a fixed stride, or a fixed speed with fixed phase durations")
    surface = surface_of(problem)
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.standing_q)
    pts = np.array([data.oMf[c.frame_id].act(c.point) for c in robot.contacts])
    x = np.linspace(pts[:, 0].min() - 0.1, pts[:, 0].max() + 2 * D + 0.1, 400)[:, None]
    y = np.linspace(pts[:, 1].min() - 0.05, pts[:, 1].max() + 0.05, 7)[None, :]
    sign = -1.0 if problem.cycle == "half" else 1.0
    mismatch = np.abs(surface.height(x + D, sign * y) - surface.height(x, y) - D * surface.grade)
    err = mismatch.max()
    if err > 1e-4:
        # what is needed goes in `allowed`, which is not cut like the message (180 characters)
        need = {"steps": f"the stair's run dividing the advance, the stair spanning the feet's path x = "
                         f"{x.min():.3g} to {x.max() + D:.3g} m",
                "height_map": "the map's x period dividing the advance (and, for a half cycle, the map "
                              "mirrored in y half a cycle later)"}[surface.kind]
        at = float(np.broadcast_to(x, mismatch.shape)[np.unravel_index(mismatch.argmax(), mismatch.shape)])
        raise InputError(f"the ground under one cycle does not repeat after the base advance of {D:.4g} m "
                         f"(mismatch {err:.3g} m at x = {at:.3g} m)", file=problem.source, field="terrain",
                         allowed=need)


def base_height_above_ground(problem, robot, q) -> np.ndarray:
    """Base origin height [m] above the ground level under it (`Surface.reference_height`)
    of q (..., nq), along world z: what the base height band bounds."""
    coords = list(robot.coordinates)
    q = np.asarray(q, float)
    x, z = q[..., coords.index("base_x")], q[..., coords.index("base_z")]
    y = q[..., coords.index("base_y")] if "base_y" in coords else 0.0 * x
    return z - surface_of(problem).reference_height(x, y)
