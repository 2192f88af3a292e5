"""Gait problems: the frozen specification (`Problem` and its parts), its vocabularies and
size limits, and the checks that need the whole problem (`validate`).

gaitopt.problem reads problem files into these (and re-exports every name here)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from numbers import Real

from .direction import check_direction, progress
from .errors import InputError, short
from .design_spec import LimbLengthSpec
from .settings import Bounded
from .yamlio import finite_number


FOOT_MODES = ("swing", "flat", "heel", "toe", "stance")
COST_TERMS = ("joule_loss", "specific_resistance", "abs_power", "torque_squared", "fri_stability",
              "torque_rate_squared", "impact_loss", "electrical_energy")
# Each term's unit (problems/README.md "Cost terms"; "" for a ratio), for the summaries: per
# distance (J/m) or per time (W), which the bare number does not say.
COST_UNITS = {"joule_loss": "J/m", "specific_resistance": "", "abs_power": "W", "torque_squared": "N²·m²",
              "fri_stability": "m", "torque_rate_squared": "N²·m²/s", "impact_loss": "J/m",
              "electrical_energy": "J/m"}
TRANSCRIPTIONS = ("trapezoidal", "hermite_simpson")
CYCLES = ("full", "half")
CONE_TYPES = ("pyramid", "cone")
TOUCHDOWNS = ("impact", "soft")
LINEAR_SOLVERS = ("mumps", "spral")

# sizes and ranges a problem may have (what one machine can transcribe and solve)
MAX_PHASE_KNOTS = 2000        # knots of one phase
MAX_TOTAL_KNOTS = 4000        # knots over all phases of the problem (memory and build time grow with it)
MAX_PHASES = 200              # phases of a gait
MAX_ITER = 100_000            # solver.max_iter
MAX_FRICTION = 10.0           # μ
MAX_CLEARANCE = 1.0           # m, swing-foot clearance
MAX_PITCH = 1.57              # rad, base_pitch_limit (below π/2: Euler angles stay regular)
MAX_TORQUE_RATE = 1e7         # N·m/s
MAX_WEIGHT = 1e6              # cost weights
MAX_GEAR_RATIO = 1e4          # design.gear_ratio bounds
MAX_FOOTHOLD = 10.0           # m, |x|, |y| of a foothold
MAX_TOL = 1.0                 # solver tolerances
MAX_OVERRIDES = 200           # --set items


@dataclass(frozen=True)
class Phase:
    """One gait phase: the contact mode of every foot, its knot count and its duration [s]."""

    name: str
    contacts: dict
    knots: int
    duration: Bounded


@dataclass(frozen=True)
class Constraints:
    """Switches and numbers of the constraint terms (SI units, radians)."""

    friction: float = 0.7              # μ, Coulomb coefficient
    cone: str = "pyramid"             # pyramid (linear, inner) | cone (exact, quadratic)
    clearance: float = 0.02            # m, peak of the swing-foot clearance profile 16·c·s²(1−s)²
    joint_limits: bool = True          # URDF / robot.yaml position limits
    velocity_limits: bool = True       # URDF / robot.yaml velocity limits
    torque_speed: bool = True          # motor voltage limit |R·i + K·G·ω| ≤ V
    current_limit: bool = True         # |τ| ≤ η·G·K·I_max
    power_limit: bool = False          # |τ·ω| ≤ rated power
    effort_limits: bool = True         # URDF effort limits on τ
    torque_rate: float | None = None   # N·m/s bound on |dτ/dt|, None for no bound
    touchdown: str = "impact"          # impact (inelastic velocity jump) | soft (zero touchdown velocity)
    base_pitch_limit: float = 1.2      # rad, |base pitch| (and roll) bound; keeps Euler angles regular
    base_height: Bounded | bool | None = None  # m, base origin above the ground below it (None: robot default band, False: off)
    footholds: dict | None = None      # foot → (x, y) m: where it touches down, relative to the base origin
    # Kinematic feasibility (gaitopt.constraints.kinematics): None = the robot's defaults,
    # False = off, else the explicit setting.
    foot_range: dict | bool | None = None      # {half_size: [x, y, z] m, feet: {FOOT: [x, y, z]}}
    leg_separation: dict | bool | None = None  # {lateral: m, longitudinal: m}
    base_attitude: dict | bool | None = None   # {roll: rad, pitch: rad, yaw: rad} half-widths of the band
    knee_margin: float | bool | None = None    # rad from the straight knee (joints from robot.yaml `knees`)
    upper_body: dict | bool | None = None      # {band: rad}: waist, head, arms within ±band of standing
    foot_yaw: dict | bool | None = None        # {band: rad}: each sole's yaw relative to the base's within ±band of standing
    touchdown_speed: dict | None = None  # {max: m/s, along: total | normal}: touching points' speed just before impact


@dataclass(frozen=True)
class SolverOptions:
    """IPOPT settings; `options` are passed to IPOPT as they are (names from IPOPT's manual)."""

    name: str = "ipopt"
    linear_solver: str = "mumps"
    max_iter: int = 1000
    tol: float = 1e-6
    constr_viol_tol: float = 1e-8
    print_level: int = 5
    scale_variables: bool = True
    # robot functions' derivatives as compiled C, cached (gaitopt.codegen): "auto" loads what the
    # cache holds and compiles nothing; True also compiles what it lacks; False never uses it
    codegen: bool | str = "auto"
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class GearDesign:
    """A gear ratio that is a decision variable (co-design): one ratio shared by `joints`,
    within `bounds` (min, max, guess; motor turns per joint turn)."""

    name: str
    joints: tuple
    bounds: Bounded


@dataclass(frozen=True)
class Problem:
    """A periodic gait problem with every default filled in.

    robot: robot folder name or path; phases: ordered gait phases; cycle: full | half (the
    second half is the first one mirrored left/right); speed [m/s] (forward) and stride [m] (base
    advance along the body's x over the full cycle) as `Bounded` or None (free); sideways [m/s]
    and yaw_rate [rad/s] (gaitopt.direction); slope [rad] (terrain about world y, uphill
    towards +x); terrain: other ground (gaitopt.terrain_io canonical
    form) or None; cost: term → weight; transcription: trapezoidal | hermite_simpson.
    """

    robot: str
    phases: tuple
    cycle: str = "full"
    speed: Bounded | None = None
    stride: Bounded | None = None
    slope: float = 0.0
    sideways: float = 0.0  # m/s, body-frame mean velocity to the left (gaitopt.direction)
    yaw_rate: float = 0.0  # rad/s, counter-clockwise seen from above
    constraints: Constraints = Constraints()
    cost: dict = field(default_factory=lambda: {"joule_loss": 1.0})
    transcription: str = "trapezoidal"
    solver: SolverOptions = SolverOptions()
    name: str = ""
    description: str = ""
    source: str | None = None  # file the problem came from (for messages)
    design: tuple = ()  # GearDesign items: gear ratios optimised with the gait (co-design)
    limb_lengths: LimbLengthSpec | None = None  # design.limb_lengths: thigh/shank ratio optimised too
    terrain: dict | None = None  # steps, stairs or a height map (gaitopt.terrain_io), else the plane

    def replace(self, **changes) -> "Problem":
        """A new problem with some fields changed; `cost` may be a term name or a dict, `speed`
        and `stride` a number (fixed there, as in a problem file) or a `Bounded`; `constraints`
        and `solver` a dict of problem-file keys merged into the problem's (e.g.
        `constraints={"clearance": 0.03, "friction": {"mu": 0.5}}`, `solver={"max_iter": 200}`)
        or a whole `Constraints` / `SolverOptions`; `terrain` and `design` the problem file's
        whole section (`terrain=None`: the plane); all checked as a problem file's sections are.
        InputError names the field and the allowed values."""
        if isinstance(changes.get("cost"), str):
            changes["cost"] = {changes["cost"]: 1.0}
        elif "cost" in changes and not isinstance(changes["cost"], dict):
            raise InputError(f"must be a term name or a mapping term -> weight, got {short(changes['cost'])}",
                             field="cost", allowed=f"one of {', '.join(COST_TERMS)}, or a dict of them to weights")
        for key in ("speed", "stride"):
            value = changes.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                changes[key] = Bounded.fixed_at(float(value))
            elif key in changes and value is not None and not isinstance(value, Bounded):
                raise InputError(f"must be a number or a Bounded, got {short(value)}", field=key,
                                 allowed="a number (fixed) or gaitopt.settings.Bounded")
        unknown = set(changes) - set(self.__dataclass_fields__)
        if unknown:
            raise InputError(f"unknown problem fields {sorted(unknown)}", allowed=list(self.__dataclass_fields__))
        from .problem import CHECKED_KEYS, checked_sections  # the file schema's checks (imports this module)
        if CHECKED_KEYS & changes.keys():
            changes = checked_sections(self, changes)
        new = replace(self, **changes)
        validate(new)
        return new

    def scaled_knots(self, factor: float) -> "Problem":
        """The same problem with every phase's knot count multiplied by factor (at least 2)."""
        if isinstance(factor, bool) or not isinstance(factor, Real) or not 0 < factor < float("inf"):
            raise InputError(f"factor must be a positive finite number, got {short(factor)}", field="scaled_knots",
                             allowed="a number > 0, e.g. 2 (twice the knots) or 0.5")
        return self.replace(phases=tuple(replace(p, knots=max(2, int(round(p.knots * factor))))
                                         for p in self.phases))

    def to_dict(self) -> dict:
        """Plain data (JSON/YAML-ready) of the problem with every default filled in."""
        d = asdict(self)
        d["phases"] = [asdict(p) for p in self.phases]
        d["slope_deg"] = float(self.slope * 180.0 / 3.141592653589793)
        return d


def validate(p: Problem) -> None:
    """Checks that need the whole problem (not the robot): raise InputError."""
    where = p.source
    if len(p.phases) > MAX_PHASES:
        raise InputError(f"too many phases: {len(p.phases)}", file=where, field="gait.phases",
                         allowed=f"at most {MAX_PHASES} phases")
    for i, ph in enumerate(p.phases):
        if isinstance(ph.knots, bool) or not isinstance(ph.knots, int) or not 2 <= ph.knots <= MAX_PHASE_KNOTS:
            raise InputError(f"knots of phase {short(ph.name, 40)}: got {short(ph.knots)}", file=where,
                             field=f"gait.phases[{i}].knots", allowed=f"an integer in [2, {MAX_PHASE_KNOTS}]")
    bounds = [("speed", p.speed), ("stride", p.stride)]
    bounds += [(f"gait.phases[{i}].duration", ph.duration) for i, ph in enumerate(p.phases)]
    for name, b in bounds:
        if b is not None and not all(finite_number(x) is not None for x in (b.min, b.max, b.guess)):
            raise InputError(f"must be finite, got {short(b)}", file=where, field=name,
                             allowed="finite numbers (min <= guess <= max)")
    for term, weight in p.cost.items():
        if finite_number(weight) is None or not weight > 0:
            raise InputError(f"weight must be a positive finite number, got {short(weight)}", file=where,
                             field=f"cost.{term}", allowed=f"a number in (0, {MAX_WEIGHT:g}]")
    total = sum(ph.knots for ph in p.phases)
    if total > MAX_TOTAL_KNOTS:
        raise InputError(f"too many knots over the problem: {total} in {len(p.phases)} phases", file=where,
                         field="gait.phases", allowed=f"at most {MAX_TOTAL_KNOTS} knots in all")
    names = [ph.name for ph in p.phases]
    if len(set(names)) != len(names):
        raise InputError(f"phase names must be unique, got {short(names)}", file=where, field="gait.phases")
    # that every phase lists the robot's feet is checked with the robot (schedule.Schedule),
    # which can name the allowed feet (a typo in the first phase here would have been taken for
    # the reference and blamed on the next)
    if p.transcription not in TRANSCRIPTIONS:
        raise InputError(f"unknown transcription {p.transcription!r}", file=where, field="transcription",
                         allowed=TRANSCRIPTIONS)
    for term in p.cost:
        if term not in COST_TERMS:
            raise InputError(f"unknown cost term {term!r}", file=where, field="cost", allowed=COST_TERMS)
    if set(p.cost) == {"impact_loss"} and p.constraints.touchdown == "soft":  # else any gait is "optimal"
        raise InputError("impact_loss alone is 0 with soft touchdowns (no velocity jump)", file=where,
                         field="cost", allowed="touchdown: impact, or impact_loss with another term")
    check_direction(p)
    if not progress(p) and all(ph.duration.fixed for ph in p.phases):
        raise InputError("give `speed` or `stride` (fixed or bounded): a periodic gait needs its forward "
                         "progress", file=where, field="speed")
