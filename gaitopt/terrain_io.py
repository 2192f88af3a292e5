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

import warnings

import numpy as np
import pinocchio as pin

from .errors import InputError, InputWarning, short
from .terrain import DEFAULT_SMOOTHING, MAX_GRID, HeightMap, Plane, Steps, Surface, stair
from .yamlio import Fields, closest_first, finite_number, number_error_text

KINDS = ("slope_deg", "stairs", "steps", "height_map")
MAX_STEPS = 200
MAX_HEIGHT = 10.0  # [m] of any step or map height
MAX_MAP_NODES = 400  # the NLP evaluates one Fourier term per node at every contact point
MAX_SLOPE_DEG = 30.0
# what each key of a kind holds: the `allowed` text of a missing or unknown key
STAIRS_KEYS = {"rise": "m per step, negative down", "run": "m per step", "count": "steps",
               "start_x": "m, the first edge, default 0"}
STEP_KEYS = {"x": "m, the edge", "height": "m, the level from the edge on"}
MAP_KEYS = {"spacing": "[dx, dy] m", "heights": "rows along x of heights along y, m",
            "origin": "[x0, y0] m, default [0, 0]"}
# keys a new user reaches for, and what to write instead
NO_FILE = "a height map's heights are written in the problem file as rows of numbers; no file is read"
HINTS = {"terrain": {"slope": "the slope is slope_deg, in degrees", "slope_rad": "the slope is slope_deg, in degrees",
                     "stair": "a stair is stairs"},
         "stairs": {"tread": "a stair's tread length is run", "height": "a stair's step height is rise",
                    "step": "a stair's step height is rise, its tread length run", "steps": "the number of steps is count"},
         "steps": {"z": "a step's level is height", "h": "a step's level is height", "level": "a step's level is height"},
         "height_map": {"file": NO_FILE, "path": NO_FILE, "csv": NO_FILE}}


def _keys_text(keys: dict) -> str:
    return ", ".join(f"{k} ({v})" for k, v in keys.items())


def _checked(f: Fields, name: str, keys: dict, required: tuple, kind: str) -> Fields:
    """The sub-mapping `name` of `f` (a missing one is empty), its unknown keys refused first
    (closest allowed first), then its missing required ones, each with every key's meaning."""
    value = f.raw(name)
    if not isinstance(value, dict):
        raise f.error(name, f"expected a mapping, got {short(value)}", _keys_text(keys))
    m = Fields(value, f.file, f.key(name))
    for k in value:
        if k not in keys:
            hint = HINTS[kind].get(str(k), "unknown key")
            raise m.error(str(k), hint, _keys_text({n: keys[n] for n in closest_first(k, keys)}))
    for k in required:
        if k not in value:
            raise m.error(k, "missing required key", _keys_text(keys))
    return m


def read_terrain(f: Fields) -> tuple:
    """(slope [rad], canonical terrain dict or None) of a problem file's `terrain` section."""
    t = f.mapping("terrain", {}, allowed=list(KINDS) + ["smoothing"])
    for k in t.data:
        if k not in KINDS and k != "smoothing":
            raise t.error(str(k), HINTS["terrain"].get(str(k), "unknown key"),
                          ", ".join(closest_first(k, list(KINDS) + ["smoothing"])))
    given = [k for k in KINDS if t.has(k)]
    if len(given) > 1:
        raise t.error(given[1], f"one kind of terrain per problem, got {', '.join(given)}", list(KINDS))
    slope_deg = t.number("slope_deg", 0.0, low=-MAX_SLOPE_DEG, high=MAX_SLOPE_DEG)
    _warn_if_radians(t, slope_deg)
    smoothing = t.number("smoothing", DEFAULT_SMOOTHING, low=1e-4, high=0.2)
    out = None
    if t.has("stairs"):
        s = _checked(t, "stairs", STAIRS_KEYS, ("rise", "run", "count"), "stairs")
        out = {"stairs": {"rise": s.number("rise", low=-0.5, high=0.5),
                          "run": s.number("run", low=0.02, high=2.0),
                          "count": s.integer("count", low=1, high=MAX_STEPS),
                          "start_x": s.number("start_x", 0.0, low=-100.0, high=100.0)}}
    elif t.has("steps"):
        out = {"steps": _read_steps(t)}
    elif t.has("height_map"):
        out = {"height_map": _read_height_map(t)}
    if t.has("smoothing") and not (t.has("stairs") or t.has("steps")):
        raise t.error("smoothing", "only steps and stairs are smoothed", "stairs, steps")
    if out is not None and t.has("smoothing"):
        out["smoothing"] = smoothing
    return slope_deg * np.pi / 180.0, out


def _warn_if_radians(t: Fields, slope_deg: float) -> None:
    """One warning for a slope_deg that reads as radians (0 < |value| <= 30° in radians, 0.52):
    a warning, not an error, because slopes of a fraction of a degree are legitimate (a
    study sweeping slope_deg from 0 up to 1 passes through them)."""
    if t.has("slope_deg") and 0.0 < abs(slope_deg) <= np.deg2rad(MAX_SLOPE_DEG):
        warnings.warn(InputWarning(
            f"{t.file}: {t.key('slope_deg')}: {slope_deg:g} is read in degrees (a grade of "
            f"{100 * np.tan(np.deg2rad(slope_deg)):.2g} %); if {slope_deg:g} rad was meant, write slope_deg: "
            f"{np.rad2deg(slope_deg):.4g}"), stacklevel=3)


def _read_steps(t: Fields) -> list:
    allowed = "a list of edges [{x: m, height: m}, ...], x increasing, height the level from x on"
    items = t.raw("steps")
    if not isinstance(items, list):
        raise t.error("steps", f"expected a list, got {short(items)}", allowed)
    if not items:
        raise t.error("steps", "at least one step edge is needed", allowed)
    if len(items) > MAX_STEPS:
        raise t.error("steps", f"too many edges: {len(items)}", f"at most {MAX_STEPS}")
    out = []
    for i, item in enumerate(items):
        holder = Fields({f"steps[{i}]": item}, t.file, t.path)
        e = _checked(holder, f"steps[{i}]", STEP_KEYS, ("x", "height"), "steps")
        out.append({"x": e.number("x", low=-100.0, high=100.0),
                    "height": e.number("height", low=-MAX_HEIGHT, high=MAX_HEIGHT)})
    xs = [s["x"] for s in out]
    if any(b <= a for a, b in zip(xs, xs[1:])):
        raise t.error("steps", f"edge x must increase, got {xs[:8]}", "increasing x")
    return out


def _read_height_map(t: Fields) -> dict:
    m = _checked(t, "height_map", MAP_KEYS, ("spacing", "heights"), "height_map")
    origin = m.vector("origin", 2, [0.0, 0.0])
    spacing = m.vector("spacing", 2)
    if min(spacing) <= 0:
        raise m.error("spacing", f"must be > 0, got {spacing}", "[dx, dy] > 0 m")
    return {"origin": origin, "spacing": spacing, "heights": _map_grid(m)}


def _map_grid(m: Fields) -> list:
    """The height map's `heights` as rows of floats, every value and the shape checked."""
    allowed = (f"2 to {MAX_GRID} rows (along x) of equally many heights (along y), at most {MAX_MAP_NODES} in all, "
               f"|z| <= {MAX_HEIGHT:g} m")
    rows = m.raw("heights")
    # a problem built in Python may hold numpy rows and scalars: read them as the lists YAML gives
    if isinstance(rows, np.ndarray):
        rows = rows.tolist()
    if isinstance(rows, list):
        rows = [r.tolist() if isinstance(r, np.ndarray) else r for r in rows]
    if not isinstance(rows, list):
        raise m.error("heights", f"expected a list of rows, got {short(rows)}", allowed)
    if len(rows) < 2 or any(isinstance(r, list) and len(r) < 2 for r in rows):
        raise m.error("heights", f"needs at least 2 rows of 2 heights, got {short(rows)}", allowed)
    if len(rows) > MAX_GRID:
        raise m.error("heights", f"too many rows: {len(rows)}", allowed)
    for i, row in enumerate(rows):
        if not isinstance(row, list):
            raise m.error("heights", f"row {i} is not a list of heights: {short(row)}", allowed)
        for j, z in enumerate(row):
            if finite_number(z) is None:
                numeric = isinstance(z, (int, float)) and not isinstance(z, bool)
                what = f"must be a finite number, got {short(z)}" if numeric else number_error_text(z)
                raise m.error("heights", f"row {i}, column {j}: {what}", allowed)
    grid = np.array(rows, dtype=float) if len({len(r) for r in rows}) == 1 else None
    if grid is None:
        raise m.error("heights", f"rows of unequal lengths {sorted({len(r) for r in rows})}", allowed)
    if max(grid.shape) > MAX_GRID or grid.size > MAX_MAP_NODES:
        raise m.error("heights", f"got shape {grid.shape}", allowed)
    if np.abs(grid).max() > MAX_HEIGHT:
        raise m.error("heights", f"|z| must be <= {MAX_HEIGHT:g} m, got {np.abs(grid).max():g}", allowed)
    return grid.tolist()


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


# [m] largest |h(x + D) − h(x) − D·grade| accepted over the feet's path (`check_terrain`)
REPEAT_TOLERANCE = 1e-4


def edge_margin(rise: float, smoothing: float) -> float:
    """Distance m [m] beyond which a smoothed edge of rise Δz has moved the ground by less than
    half of REPEAT_TOLERANCE: |Δz|·σ(−m/w) ≤ tol/2 with σ(u) = (1 + tanh u)/2 = 1/(1 + e^(−2u)),
    so m = (w/2)·ln(2|Δz|/tol − 1) (0 for a rise under tol/2; half, as two ends can add)."""
    ratio = 2.0 * abs(rise) / REPEAT_TOLERANCE - 1.0
    return 0.5 * smoothing * float(np.log(ratio)) if ratio > 1.0 else 0.0


def check_terrain(problem, robot) -> None:
    """A periodic gait repeats its footholds one optimised part later (mirrored in y for a half
    cycle), so the ground under the robot must too: h(x + D, ±y) = h(x, y) + D·grade over the
    region its feet cover. Raises InputError (field terrain.KIND) when it does not, or when D is
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
    if mismatch.max() > REPEAT_TOLERANCE:
        i, j = np.unravel_index(mismatch.argmax(), mismatch.shape)
        _not_repeating(problem, surface, D, float(x[i, 0]), float(y[0, j]), (x.min(), x.max() + D))


def _not_repeating(problem, surface, D: float, at: float, y: float, span: tuple) -> None:
    """Raise the InputError of ground that does not repeat with the gait, in the user's terms:
    the heights at x and x + D [m], the rise per advance the gait needs, the field named."""
    kind = next(k for k in ("stairs", "steps", "height_map") if k in problem.terrain)
    if kind == "stairs":
        _stair_not_repeating(problem, D, span)
    part = "half stride" if problem.cycle == "half" else "stride"
    h0 = float(surface.exact_height(at, y))
    h1 = float(surface.exact_height(at + D, -y if problem.cycle == "half" else y))
    message = (f"the ground does not repeat with the {part} of {D:.4g} m: a periodic gait needs height(x + {D:.4g}) = "
               f"height(x) + {D * surface.grade:.3g} m; here {h0:.3g} m at x = {at:.3g}, {h1:.3g} m at x = {at + D:.3g}")
    # what is needed goes in `allowed`, its most important words first: the line is cut at
    # MAX_MESSAGE characters, file path included
    allowed = {"stairs": f"the stair's run dividing the advance, the stair spanning the feet's path x = "
                         f"{span[0]:.3g} to {span[1]:.3g} m",
               "steps": f"a periodic gait cannot cross a single ledge or block; edges repeating every {D:.4g} m with "
                        f"equal rises over the feet's path x = {span[0]:.3g} to {span[1]:.3g} m, as terrain.stairs makes",
               "height_map": None}[kind] or _map_needs(problem, surface)  # a map's period: only a map has one
    raise InputError(message, file=problem.source, field=f"terrain.{kind}", allowed=allowed)


def _map_needs(problem, surface) -> str:
    """What a height map needs, with its own x period P = nx·dx [m] and the strides that fit
    (n·P; a half cycle advances half its stride): the user sees the grid, not its period."""
    P = surface.period[0]
    half = problem.cycle == "half"
    strides = (f"a stride of n × {2 * P:.4g} m (gait.cycle: full: n × {P:.4g} m)" if half
               else f"a stride of n × {P:.4g} m")
    return (f"the map's x period, {P:.4g} m (rows × spacing[0]), dividing the advance: {strides}"
            + (", and the map mirrored in y half a cycle later" if half else ""))


def _stair_not_repeating(problem, D: float, span: tuple) -> None:
    """The stairs' own terms: a run that does not divide the advance D [m] (terrain.stairs.run),
    else a stair shorter than the feet's path over one cycle, span [m] (terrain.stairs.count)."""
    st = problem.terrain["stairs"]
    run, x0 = st["run"], st["start_x"]
    path = f"the feet's path x = {span[0]:.3g} to {span[1]:.3g} m"
    k = D / run
    if abs(k - round(k)) > 1e-6 or round(k) < 1:
        runs = ", ".join(f"{D / n:.4g}" for n in range(1, 4))
        half = problem.cycle == "half"
        # a real stair is given: the gait's stride is what a user can change, so say which
        # strides fit (a half cycle advances half its stride, mirrored: 2 runs per stride)
        strides = (f"a stride of n × {2 * run:.4g} m (gait.cycle: full: n × {run:.4g} m)" if half
                   else f"a stride of n × {run:.4g} m")
        raise InputError(f"the base advance per {'half cycle' if half else 'cycle'}, {D:.4g} m, is not a whole number "
                         f"of runs of {run:.4g} m: a periodic gait repeats its footholds after it, so the stair must "
                         "too", file=problem.source, field="terrain.stairs.run",
                         allowed=f"a run of {D:.4g} m / n ({runs}, ... m), or {strides}, over {path}")
    # The check compares h(x + D) with h(x) for x in [span[0], span[1] − D]: with edges
    # e_i = x0 + i·run it holds when the edge a run before the first (absent) is a margin m
    # behind span[0], x0 ≤ span[0] + run − m, and the edge D before the last is m past
    # span[1] − D, x0 + (count − 1)·run ≥ span[1] − run + m (m: the smoothed edge's tail).
    # Said as the check decides it: "start_x <= span[0]" refused starts it accepts (Go1 trial).
    m = edge_margin(st["rise"], float(problem.terrain.get("smoothing", DEFAULT_SMOOTHING)))
    latest = np.floor((span[0] + run - m) * 1e3) / 1e3  # mm, rounded towards the side that holds
    count = int(np.ceil((span[1] + m - x0) / run - 1e-9))
    raise InputError(f"the stair x = {x0:.3g} to {x0 + (st['count'] - 1) * run:.3g} m does not span {path}: its ends "
                     "do not repeat with the stride", file=problem.source, field="terrain.stairs.count",
                     allowed=f"start_x <= {latest:.4g} m and count >= {count} (from this start_x)")


def base_height_above_ground(problem, robot, q) -> np.ndarray:
    """Base origin height [m] above the ground level under it (`Surface.reference_height`)
    of q (..., nq), along world z: what the base height band bounds."""
    coords = list(robot.coordinates)
    q = np.asarray(q, float)
    x, z = q[..., coords.index("base_x")], q[..., coords.index("base_z")]
    y = q[..., coords.index("base_y")] if "base_y" in coords else 0.0 * x
    return z - surface_of(problem).reference_height(x, y)
