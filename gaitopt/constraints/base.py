"""What every constraint component sees and implements.

A component is a small class with a `term` name (the name `Result.violations()` reports its
rows under), a docstring giving its formula and units, the places it applies (`where`), and
one method per place that adds its rows (and variables, or variable bounds) through the
`NlpBuilder` it finds in the `Context`:

    where           method                        called
    "bounds"        bound(ctx, bounds)            once, before the phase variables exist
    "variables"     add_variables(ctx)            once, before the phase variables
    "phase"         add_phase(ctx, p)             once per phase, before its points
    "point"         add_point(ctx, p, point)      at every collocation point of every phase
    "interval"      add_intervals(ctx, p)         once per phase, after its points
    "junction"      add_junction(ctx, p)          at the start of every phase (p = 0: the
                                                  cycle wrap from the last phase)
    "cycle"         add_cycle(ctx)                once, after all phases and junctions

The transcription calls the active components in the order of the table in
`gaitopt.constraints`; `applies(problem, robot)` says whether a built-in component is active.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from ..nlp import NlpBuilder, force_axes
from ..terrain import Plane


class Constraint:
    """Base class of constraint components (see the module docstring)."""

    term = ""
    where: tuple = ()

    @classmethod
    def applies(cls, problem, robot) -> bool:
        """Whether the component is active for this problem (default: always)."""
        return True

    def bound(self, ctx: "Context", bounds: "VariableBounds") -> None:
        pass

    def add_variables(self, ctx: "Context") -> None:
        pass

    def add_phase(self, ctx: "Context", p: int) -> None:
        pass

    def add_point(self, ctx: "Context", p: int, point) -> None:
        pass

    def add_intervals(self, ctx: "Context", p: int) -> None:
        pass

    def add_junction(self, ctx: "Context", p: int) -> None:
        pass

    def add_cycle(self, ctx: "Context") -> None:
        pass


@dataclass
class VariableBounds:
    """Bounds of one knot's variables: q, v (nv,), τ magnitude (nu,), and per phase the force
    variables' (dim·n_active, 1) bounds (set by the transcription)."""

    nv: int
    nu: int
    q_lb: np.ndarray
    q_ub: np.ndarray
    v_lb: np.ndarray
    v_ub: np.ndarray
    u_lim: np.ndarray
    f_lb: np.ndarray | None = None
    f_ub: np.ndarray | None = None


@dataclass(frozen=True)
class Terrain:
    """The ground as components see it: a `gaitopt.terrain` surface (default the plane sloped by
    `slope` [rad] about world y, uphill towards +x). On a plane the normal and tangents (3,) are
    constants; elsewhere `frame_at` gives them at a contact point."""

    slope: float = 0.0
    surface: object = None

    def __post_init__(self):
        if self.surface is None:
            object.__setattr__(self, "surface", Plane(self.slope))

    @property
    def planar(self) -> bool:
        return isinstance(self.surface, Plane)

    @property
    def tan_slope(self) -> float:
        return float(np.tan(self.slope))

    @property
    def normal(self) -> np.ndarray:
        return np.array([-np.sin(self.slope), 0.0, np.cos(self.slope)])

    @property
    def tangent_x(self) -> np.ndarray:
        return np.array([np.cos(self.slope), 0.0, np.sin(self.slope)])

    @property
    def tangent_y(self) -> np.ndarray:
        return np.array([0.0, 1.0, 0.0])

    def height(self, pos, ci: int):
        """Height [m] of contact point ci above the terrain along world z (pos: (3, nc) world
        positions)."""
        if self.planar:
            return pos[2, ci] - self.tan_slope * pos[0, ci]
        return pos[2, ci] - self.surface.height(pos[0, ci], pos[1, ci])

    def clearance_height(self, pos, ci: int):
        """Height [m] of contact point ci above what a swing foot must clear (on steps: the
        envelope over the true edges, see `gaitopt.terrain.Steps`)."""
        if self.planar:
            return self.height(pos, ci)
        return pos[2, ci] - self.surface.envelope(pos[0, ci], pos[1, ci])

    def base_height(self, x, y, z):
        """Base height [m] above the ground level under it (`Surface.reference_height`)."""
        if self.planar:
            return z - self.tan_slope * x
        return z - self.surface.reference_height(x, y)

    def frame_at(self, pos, ci: int) -> tuple:
        """(normal, tangent along x, tangent along y) at contact point ci: DM constants on a
        plane, SX from the surface's gradient at the point's (x, y) elsewhere."""
        if self.planar:
            return ca.DM(self.normal), ca.DM(self.tangent_x), ca.DM(self.tangent_y)
        n = self.surface.normal(pos[0, ci], pos[1, ci])
        t1 = ca.vertcat(n[2], 0.0, -n[0]) / ca.sqrt(n[0] ** 2 + n[2] ** 2)  # ⟂ n, in the x–z plane
        return n, t1, ca.cross(n, t1)


@dataclass
class Context:
    """The transcription as components see it.

    problem, robot, schedule, dynamics (SymbolicDynamics), rule (CollocationRule), builder
    (NlpBuilder); dim: force components carried per contact point (2 sagittal: x, z; 3 in
    3-D), comp: their world axes; terrain; stride (SX or number) [m] per full cycle; gears:
    gear ratio per actuated joint (number or design variable); phases: PhaseVars per phase
    (filled once created); distance [m] and period [s] of the optimised part and full cycle;
    globals, impulses, slacks: the variable blocks of the layout, by name; power_nodes: the
    PowerNode (gaitopt.collocation) of each slack pair, by the same key.
    """

    problem: object
    robot: object
    schedule: object
    dynamics: object
    rule: object
    builder: NlpBuilder
    terrain: Terrain
    stride: object = None
    gears: list = field(default_factory=list)
    phases: list = field(default_factory=list)
    distance: object = None
    period: object = None
    globals: dict = field(default_factory=dict)
    impulses: dict = field(default_factory=dict)
    slacks: dict = field(default_factory=dict)
    power_nodes: dict = field(default_factory=dict)
    _shared: dict = field(default_factory=dict, repr=False)
    _own_kinematics: tuple | None = field(default=None, repr=False)

    def shared(self, name: str, key: tuple, build, inputs: str = "qv"):
        """A Function `name` of q (inputs "q") or of (q, v) (inputs "qv") that many points call
        (`NlpBuilder.con_call`), made once per transcription: build(*symbols) → its output, an SX
        expression of the dynamics' own symbols; its derivatives are then built once, not in
        every class of points that uses it. `key` (hashable) must identify the output completely:
        the calling component's class and term and every number `build` reads, since a second
        call with the same key returns the first Function. None when the dynamics' functions
        cannot be wrapped (co-design's limb scale): the caller writes its
        rows inline."""
        if not getattr(self.dynamics, "plain", False):
            return None
        if key not in self._shared:
            syms = self.dynamics.symbols[:len(inputs)]
            name = "shared_" + "_".join(re.findall(r"[A-Za-z0-9]+", name))  # CasADi's name rules
            self._shared[key] = ca.Function(name, list(syms), [ca.densify(ca.vec(build(*syms)))], list(inputs), ["rows"])
        return self._shared[key]

    def own_contact_kinematics(self) -> tuple:
        """(positions, velocities) (3, nc) of every contact point as expressions of the
        dynamics' own (q, v) symbols (the ones `shared` builds on), built once; the positions
        depend on q alone."""
        if self._own_kinematics is None:
            q, v = self.dynamics.symbols
            pos, vel, _ = self.dynamics.contact_kinematics(q, v, ca.SX.zeros(self.robot.nv, 1))
            self._own_kinematics = (pos, vel)
        return self._own_kinematics

    @property
    def sagittal(self) -> bool:
        return self.robot.base == "sagittal"

    @property
    def dim(self) -> int:
        return 2 if self.sagittal else 3

    @property
    def comp(self) -> list:
        return force_axes(self.dim)

    @property
    def half(self) -> bool:
        return self.problem.cycle == "half"

    @property
    def contact_names(self) -> list:
        return [c.name for c in self.robot.contacts]

    @property
    def actuators(self) -> list:
        return [self.robot.actuators[j] for j in self.robot.actuated]

    def feet_of(self, active) -> dict:
        """foot → indices into `active` of its points in contact (robot.contacts order)."""
        names = self.contact_names
        groups = {}
        for i, cname in enumerate(active):
            groups.setdefault(self.robot.contacts[names.index(cname)].foot, []).append(i)
        return groups

    def internal_mask(self, active) -> np.ndarray:
        """Mask over the force variables (dim·len(active)) fixed at zero: for two points of one
        flat foot in the sagittal plane, the second point's tangential (x) component. Equal and
        opposite forces along the sole do no work and change no equation of motion; left free,
        that internal force is a direction of zero curvature that only the friction barrier
        bounds, which made IPOPT crawl on fine grids. Friction is imposed on the foot's total
        force, so no feasible motion is lost. (3-D feet keep both points' full forces: there the
        sole direction depends on the yaw.)"""
        mask = np.zeros(self.dim * len(active), bool)
        if self.sagittal:
            for idx in self.feet_of(active).values():
                for i in idx[1:]:
                    mask[self.dim * i] = True
        return mask

    def full_forces(self, fcol, active):
        """World forces (3·nc) of all contact points from the active ones' variables."""
        names = self.contact_names
        out = [ca.SX.zeros(3, 1) for _ in names]
        for i, cname in enumerate(active):
            vec = ca.SX.zeros(3, 1)
            for j, ax in enumerate(self.comp):
                vec[ax] = fcol[self.dim * i + j]
            out[names.index(cname)] = vec
        return ca.vertcat(*out)

    def actuated_torque(self, tau):
        """B·τ: the actuated torques τ (nu,) placed in the generalised forces (nv,)."""
        out = ca.SX.zeros(self.robot.nv, 1)
        for i, ia in enumerate(self.robot.actuated_index):
            out[ia] = tau[i]
        return out

    def rotor_correction(self, acc):
        """Reflected rotor inertia of co-designed gears (nv,): the model holds G₀²·J_rotor of the
        actuator's own gear; a gear variable G needs (G² − G₀²)·J_rotor·acc more."""
        robot = self.robot
        arm = np.asarray(robot.model.armature, float)
        out = ca.SX.zeros(robot.nv, 1)
        for i, ia in enumerate(robot.actuated_index):
            act = self.actuators[i]
            if arm[ia] != 0.0 and not isinstance(self.gears[i], (int, float)):
                out[ia] = (self.gears[i] ** 2 - act.gear_ratio ** 2) * act.rotor_inertia * acc[ia]
        return out
