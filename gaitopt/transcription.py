"""Multi-phase direct collocation of a periodic gait into one sparse NLP.

Per phase p with K intervals (K+1 knots, phases do not share knots): q, v and τ (actuated
joints) at the knots; accelerations a and contact forces f (only for the points in contact;
2 components in the sagittal plane: x, z; 3 in 3-D) as the collocation rule lays them out
(gaitopt.collocation). Dynamics are implicit inverse dynamics ID(q, v, a, f) = Bτ. Phases are
joined by continuity or the impact map; the last phase is joined to the first one of the next
cycle (mirrored for half cycles) with the base shifted by the stride.

The transcription is a short loop: the global variables, the phase variables, then every
active constraint component (gaitopt.constraints) at the places it declares, then the cost
(gaitopt.terms). Every constraint row belongs to a named term and a phase (`rows`), so
violations can be reported per term and phase. The solver never sees this module's objects
beyond the NLP dict.
"""
from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field
from functools import cached_property

import casadi as ca
import numpy as np

from .collocation import METHODS
from .constraints import Context, Terrain, VariableBounds, active_constraints
from .terrain_io import check_terrain, surface_of
from .dynamics import SymbolicDynamics
from .function_store import robot_function_store
from .errors import InputError
from .assembly import Assembly
from .nlp import Layout, NlpBuilder
from .point_sum import PointSum
from .schedule import Schedule
from .tracing import add_class
from . import terms


@dataclass
class Transcription:
    """The NLP of a problem and how to read its solution vector.

    assembly: the NLP's functions and derivatives (gaitopt.assembly; `nlp`, {"x", "f", "g"} as
    SX, is built from it on first use: solves do not need it); lbx, ubx, lbg, ubg, x0 numpy
    arrays; rows: list of
    (term, phase name, start, stop) over g; bound_rows: list of (term, phase, index array into x);
    cost_terms: name → the weighted term (SX, or gaitopt.point_sum.PointSum: values by
    `cost_term_values`); phases: PhaseVars per phase; globals, impulses, slacks: the other
    variable blocks by name; components: the constraint components that built the rows.
    """

    problem: object
    robot: object
    schedule: Schedule
    dynamics: SymbolicDynamics
    method: object
    force_dim: int
    assembly: Assembly
    lbx: np.ndarray
    ubx: np.ndarray
    lbg: np.ndarray
    ubg: np.ndarray
    rows: list
    bound_rows: list
    cost_terms: dict
    phases: list
    globals: dict = field(default_factory=dict)
    impulses: dict = field(default_factory=dict)
    slacks: dict = field(default_factory=dict)
    components: list = field(default_factory=list)

    @property
    def x(self):
        """The decision variables, (n,1) SX."""
        return self.assembly.x_sx

    @property
    def nlp(self) -> dict:
        """{"x", "f", "g"} SX, every mapped function inlined (for tools that differentiate the
        whole NLP themselves; built on first use)."""
        return {"x": self.assembly.x_sx, "f": self.assembly.cost_sx(), "g": self.assembly.g_sx()}

    def cost_term_values(self, x) -> dict:
        """Each weighted cost term at the numbers x (n,): name → value."""
        sx = {k: v for k, v in self.cost_terms.items() if not isinstance(v, PointSum)}
        vals = ca.Function("terms", [self.x], list(sx.values()))(x) if sx else []
        vals = dict(zip(sx, vals if isinstance(vals, (list, tuple)) else [vals]))
        return {k: v.value(self.x, x) if isinstance(v, PointSum) else float(vals[k]) for k, v in self.cost_terms.items()}

    @property
    def n_variables(self) -> int:
        return self.assembly.n

    @property
    def n_constraints(self) -> int:
        return self.assembly.ng

    @cached_property  # read for the warm start's check and again for the Result: hashed once
    def signature(self) -> str:
        """The NLP's shape as a digest: its variable blocks and where they sit in x, and its
        rows with their tags (term, phase, span) over g. Two transcriptions of one signature
        differ only in numbers (bounds, parameters, the cost): a solution of one is a start for
        the other, multipliers included (gaitopt.gait.solve)."""
        blocks = self.layout
        h = hashlib.sha256(repr((self.n_variables, self.n_constraints, [tuple(map(str, r)) for r in self.rows])).encode())
        for group in (blocks.globals, *blocks.phases, blocks.impulses, blocks.slacks):
            for name in sorted(group):
                index = np.asarray(group[name], np.int64)
                h.update(f"{name}{index.shape}".encode())
                h.update(index.tobytes())
        return h.hexdigest()[:20]

    @property
    def layout(self) -> Layout:
        """Index-only layout of x (see gaitopt.nlp.Layout)."""
        return Layout(
            globals={k: np.asarray(b.index).ravel() for k, b in self.globals.items()},
            phases=tuple({k: np.asarray(b.index) for k, b in pv.blocks().items()} for pv in self.phases),
            impulses={k: np.asarray(b.index).ravel() for k, b in self.impulses.items()},
            slacks={f"{sign}_{key}": np.asarray(b.index).ravel()
                    for key, pair in self.slacks.items() for sign, b in zip(("Ppos", "Pneg"), pair)})

    def variable_scale(self, x0: np.ndarray, floor: float = 1.0) -> np.ndarray:
        """Nominal magnitude of every decision variable (n,), in its own SI unit.

        Each row of a phase's variable blocks (one coordinate, one force component over the
        phase's knots), each impulse and each power slack pair member is scaled by its largest
        magnitude in x0, at least `floor`. Accelerations (10²) and forces (10²–10³) otherwise
        sit next to angles (10⁰) and durations (10⁻¹) in one KKT system: IPOPT then needs large
        Hessian regularisation and creeps on fine grids (docs/modelling.md).
        """
        x0 = np.abs(np.asarray(x0, float))
        scale = np.ones_like(x0)

        def rows(index):
            index = np.asarray(index)
            if index.size == 0:  # a flight phase's force block: no contact point, no rows
                return
            for row in index.reshape(index.shape[0], -1):
                if row.size:
                    scale[row] = max(float(x0[row].max()), floor)

        for pv in self.phases:
            for blk in pv.blocks().values():
                rows(blk.index)
        for blk in self.impulses.values():
            rows(blk.index)
        for pair in self.slacks.values():
            for blk in pair:
                rows(np.asarray(blk.index).reshape(1, -1))
        return scale


# Largest NLP built: a hexapod NLP of 60 000 variables ran out of 4 GB while CasADi built its
# Hessian (bench/fuzz.py's memory cap); every shipped problem at 8× its knots stays below 33 000.
MAX_NLP_VARIABLES = 40_000


class LazyPoints:
    """The rule's Point list of a phase, built on first use (only components called point by
    point need it)."""

    def __init__(self, rule, pv):
        self.rule, self.pv, self._points = rule, pv, None

    def __getitem__(self, i):
        if self._points is None:
            self._points = self.rule.points(self.pv)
        return self._points[i]


def _stage(components, where: str) -> list:
    return [c for c in components if where in c.where]


def _knot_bounds(ctx, components) -> VariableBounds:
    """Bounds of one knot's q, v, τ from the bound components (unbounded where none applies)."""
    robot = ctx.robot
    nv, nu = robot.nv, len(robot.actuated)
    bounds = VariableBounds(nv, nu, np.full(nv, -np.inf), np.full(nv, np.inf), np.full(nv, -np.inf),
                            np.full(nv, np.inf), np.full(nu, np.inf))
    for c in _stage(components, "bounds"):
        c.bound(ctx, bounds)
    for lo, hi, names, what in ((bounds.q_lb, bounds.q_ub, robot.coordinates, "position"),
                                (bounds.v_lb, bounds.v_ub, robot.coordinates, "velocity")):
        empty = np.flatnonzero(lo > hi)
        if empty.size:  # the settings contradict each other: no point would be feasible
            i = int(empty[0])
            raise InputError(f"{names[i]}: the {what} bounds leave no room, [{lo[i]:.4g}, {hi[i]:.4g}]",
                             file=ctx.problem.source, field="constraints",
                             allowed="settings within the joint limits (knee_margin, upper_body, base_attitude)")
    return bounds


def _phase_variables(ctx, bounds) -> None:
    """Duration and the rule's variables of every phase, into ctx.phases."""
    B = ctx.builder
    for ps, ph in zip(ctx.schedule.phases, ctx.problem.phases):
        if ph.duration.fixed:
            duration = ca.SX(ph.duration.min)
        else:
            blk = B.var(f"T_{ps.name}", (1, 1), ph.duration.min, ph.duration.max)
            ctx.globals[f"T_{ps.name}"] = blk
            duration = blk.sym
        internal = ctx.internal_mask(ps.active)[:, None]
        bounds.f_lb, bounds.f_ub = np.where(internal, 0.0, -np.inf), np.where(internal, 0.0, np.inf)
        ctx.phases.append(ctx.rule.phase_variables(B, ps.name, ps.knots, bounds, duration, ps.active))


def _progress_line(message: str) -> None:
    print(f"gaitopt: {message}", file=sys.stderr, flush=True)


def _weighted(term, weight: float):
    """A cost term's value (SX or gaitopt.point_sum.PointSum) times its weight."""
    return term.scaled(weight) if isinstance(term, PointSum) else weight * term


def user_costs(costs) -> dict:
    """name → (function, weight) of a `costs` argument: a mapping name → function(ctx) or
    (function(ctx), weight), the function returning SX or a PointSum (gaitopt.terms); InputError
    for a name of a built-in term, a function that is not callable or a weight that is not a
    positive finite number."""
    out = {}
    if costs is None:
        return out
    if not isinstance(costs, dict):
        raise InputError(f"got {type(costs).__name__}", file="gaitopt.solve", field="costs",
                         allowed="a dict name -> function(ctx) or (function(ctx), weight)")
    for name, item in costs.items():
        fn, weight = item if isinstance(item, tuple) and len(item) == 2 else (item, 1.0)
        if not isinstance(name, str) or name in terms.COSTS:
            raise InputError(f"a user cost term needs a name of its own, got {name!r}", file="gaitopt.solve",
                             field="costs", allowed=f"a string other than {', '.join(terms.COSTS)}")
        if not callable(fn) or isinstance(weight, bool) or not isinstance(weight, (int, float)) \
                or not 0 < weight < float("inf"):
            raise InputError(f"{name}: expected function(ctx) or (function(ctx), weight > 0), got {item!r:.80}",
                             file="gaitopt.solve", field=f"costs.{name}")
        out[name] = (fn, float(weight))
    return out


def transcribe(problem, robot, dynamics: SymbolicDynamics | None = None, constraints=(), costs=None) -> Transcription:
    """Build the NLP of `problem` on `robot` (a gaitopt.robot.Robot).

    constraints: user constraint components (gaitopt.constraints.Constraint instances), called
    after the built-in ones at each place they declare. costs: user cost terms added to the
    problem's (`user_costs`: name → function(ctx) or (function(ctx), weight)), reported by name
    in the Result's cost_terms."""
    extra = user_costs(costs)
    if dynamics is None:
        dynamics = SymbolicDynamics.of_robot(robot)
        if problem.solver.codegen is not False:  # the robot's functions from the cache (gaitopt.function_store)
            dynamics.store = robot_function_store(dynamics, write=problem.solver.codegen is True)
    B = NlpBuilder()
    ctx = Context(problem, robot, Schedule(robot, problem), dynamics, METHODS[problem.transcription], B,
                  Terrain(problem.slope, surface_of(problem)))
    check_terrain(problem, robot)
    components = active_constraints(problem, robot) + list(constraints)
    bounds = _knot_bounds(ctx, components)

    # global variables: the stride, then those of components (gear ratios), then the phases
    if problem.stride is not None and problem.stride.fixed:
        ctx.stride = ca.SX(problem.stride.min)
    else:
        # a sideways gait may not advance along the body's x at all
        lo, hi = (problem.stride.min, problem.stride.max) if problem.stride else (0.0 if problem.sideways else 1e-3, 10.0)
        ctx.globals["stride"] = B.var("stride", (1, 1), lo, hi)
        ctx.stride = ctx.globals["stride"].sym
    ctx.gears = [a.gear_ratio for a in ctx.actuators]
    for c in _stage(components, "variables"):
        c.add_variables(ctx)
    _phase_variables(ctx, bounds)
    if B.n > MAX_NLP_VARIABLES:  # before any expression is built: the Hessian would not fit in memory
        raise InputError(f"the NLP would have {B.n} variables, more than {MAX_NLP_VARIABLES} (this machine's "
                         "memory for its derivatives)", file=problem.source, field="gait.phases",
                         allowed=f"fewer knots (about {MAX_NLP_VARIABLES * sum(ph.knots for ph in problem.phases) // B.n} in all)")
    part = 0.5 if ctx.half else 1.0  # fraction of the cycle that is optimised
    ctx.distance = part * ctx.stride  # base advance over the optimised part [m]
    ctx.period = sum(pv.duration for pv in ctx.phases) / part  # full cycle [s]
    if problem.sideways:  # the path length: body-frame speed × period (gaitopt.direction)
        ctx.distance = ca.sqrt(ctx.stride ** 2 + (problem.sideways * ctx.period) ** 2)

    for p, pv in enumerate(ctx.phases):
        for c in _stage(components, "phase"):
            c.add_phase(ctx, p)
        at_points = _stage(components, "point")
        if at_points:
            points = LazyPoints(ctx.rule, pv)
            for cls in ctx.rule.point_classes(pv):
                add_class(ctx, p, at_points, cls, points)
        for c in _stage(components, "interval"):
            c.add_intervals(ctx, p)
    for p in range(len(ctx.phases)):
        for c in _stage(components, "junction"):
            c.add_junction(ctx, p)
    for c in _stage(components, "cycle"):
        c.add_cycle(ctx)

    weighted = {name: _weighted(terms.COSTS[name](ctx), weight) for name, weight in problem.cost.items()}
    weighted.update({name: _weighted(fn(ctx), weight) for name, (fn, weight) in extra.items()})
    assembly, lbx, ubx, lbg, ubg = B.nlp(sum(v for v in weighted.values() if not isinstance(v, PointSum)),
                                         [v for v in weighted.values() if isinstance(v, PointSum)])
    if problem.solver.codegen:
        # True compiles what the cache lacks; "auto" (the default) only loads what it holds:
        # the same iterates bit for bit either way (docs/speed.md, "Code generation")
        from .codegen import DerivativeCompiler
        assembly.compiler = DerivativeCompiler(report=_progress_line if problem.solver.print_level > 0 else None,
                                               compile_missing=problem.solver.codegen is True)
    # ctx.dynamics: a design component (LimbLengthDesign) may have replaced the robot's
    return Transcription(problem, robot, ctx.schedule, ctx.dynamics, ctx.rule, ctx.dim, assembly, lbx, ubx, lbg, ubg,
                         B.rows, B.bound_rows, weighted, ctx.phases, ctx.globals, ctx.impulses, ctx.slacks,
                         components)
