"""Replays under model error: the simulated robot differs from the planned one by a random body
mass, centre-of-mass shift, ground friction and actuation delay, drawn from a seeded generator
so that every run can be repeated.

    from gaitopt.verify import perturb
    summary = perturb.perturbed_replays(result, n=20, seed=0, cycles=2)
    summary["success_rate"], summary["energy"]["joule_loss_relative_error"]
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..errors import InputError
from .settings import ReplaySettings, load_mujoco

MAX_RUNS = 1000  # perturbed replays of one `gaitopt verify --perturb`


@dataclass(frozen=True)
class PerturbationRanges:
    """How far a perturbed robot is from the plan's (each drawn uniformly, independently).

    mass_rtol: the body's (the heaviest MuJoCo body: the trunk) mass and inertia scaled by
    1 + U(−mass_rtol, mass_rtol); com_shift_m: its centre of mass moved by up to this [m] in a
    uniformly random direction (length U(0, com_shift_m)); friction_rtol: the ground's and the
    feet's μ scaled by 1 + U(−friction_rtol, friction_rtol); delay_max_s: every motor command
    reaches the motors U(0, delay_max_s) [s] after it was computed, rounded to whole MuJoCo steps.
    """

    mass_rtol: float = 0.10
    com_shift_m: float = 0.01
    friction_rtol: float = 0.30
    delay_max_s: float = 0.003


@dataclass(frozen=True)
class Perturbation:
    """One perturbed robot: mass_scale (of the body's mass and inertia), com_shift_m (3,) [m] in
    the body's frame, friction_scale, delay_s [s]."""

    mass_scale: float = 1.0
    com_shift_m: tuple = (0.0, 0.0, 0.0)
    friction_scale: float = 1.0
    delay_s: float = 0.0

    @classmethod
    def draw(cls, rng: np.random.Generator, ranges: PerturbationRanges = PerturbationRanges()) -> "Perturbation":
        """A perturbation drawn from rng within ranges (the documented uniform distributions)."""
        mass = 1.0 + rng.uniform(-ranges.mass_rtol, ranges.mass_rtol)
        direction = rng.standard_normal(3)
        direction /= max(np.linalg.norm(direction), 1e-12)
        shift = direction * rng.uniform(0.0, ranges.com_shift_m)
        friction = 1.0 + rng.uniform(-ranges.friction_rtol, ranges.friction_rtol)
        delay = rng.uniform(0.0, ranges.delay_max_s)
        return cls(float(mass), tuple(float(x) for x in shift), float(friction), float(delay))

    def apply(self, sim) -> None:
        """Change the compiled MuJoCo model of sim (a SimModel) in place: the heaviest body's mass,
        inertia and centre of mass, and the friction of every foot and of the ground (every world-body geom: plane, treads or
        height field) (the delay is
        the replay's: `replay(..., perturbation=...)`)."""
        mj = load_mujoco()
        m = sim.model
        body = int(np.argmax(m.body_mass))
        m.body_mass[body] *= self.mass_scale
        m.body_inertia[body] *= self.mass_scale
        m.body_ipos[body] += np.asarray(self.com_shift_m)
        ground = np.flatnonzero(m.geom_bodyid == 0)  # floor plane, stair treads or height field
        geoms = list(sim.foot_geoms) + [int(g) for g in ground]
        m.geom_friction[geoms, 0] *= self.friction_scale
        mj.mj_setConst(m, sim.data)  # derived masses and the solver's scales from the new inertias


def check_runs(n, field: str = "--perturb") -> int:
    """n as a whole number from 0 to MAX_RUNS, else InputError naming the limit."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= n <= MAX_RUNS:
        raise InputError(f"must be a whole number from 0 to {MAX_RUNS}, got {n!r}", field=field,
                         allowed=f"0 … {MAX_RUNS}")
    return int(n)


def _spread(x) -> dict:
    x = np.asarray(x, float)
    x = x[np.isfinite(x)]
    if not len(x):
        return {"mean": None, "std": None, "min": None, "max": None}
    return {"mean": float(x.mean()), "std": float(x.std()), "min": float(x.min()), "max": float(x.max())}


def perturbed_replays(result, n: int, seed: int = 0, cycles: int = 2, settings: ReplaySettings = ReplaySettings(),
                      ranges: PerturbationRanges = PerturbationRanges()) -> dict:
    """n replays of result, each under a Perturbation drawn from numpy's default_rng(seed), and
    their summary (verify.json's `perturbed`): n, seed, cycles, ranges, success_rate (share of
    runs that walked: no fall, no slip, distance within tolerance), verified_rate (every
    criterion, the energy one too), energy {joule_loss_J, abs_work_J, joule_loss_relative_error
    (executed vs planned): mean, std, min, max over the runs that did not fall}, runs (each
    perturbation and its outcome). Same seed, same runs."""
    from .replay import replay  # why: replay imports this module's callers; keep the import one-way
    check_runs(n, "n")
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(n):
        p = Perturbation.draw(rng, ranges)
        r = replay(result, cycles=cycles, settings=settings, perturbation=p).report
        walked = not (r["fell"] or r["slipped"] or r["distance"]["relative_error"] > settings.distance_rtol)
        e = r["energy"]
        runs.append({**asdict(p), "com_shift_m": list(p.com_shift_m), "walked": walked, "verified": r["verified"],
                     "failures": r["failures"], "distance_m": r["distance"]["simulated_m"],
                     "joule_loss_J": e["executed"]["joule_loss_J"], "abs_work_J": e["executed"]["abs_work_J"],
                     "joule_loss_relative_error": e["relative_error"]["joule_loss_J"],
                     "feedback_share": r["feedback_share"]["all"]})
    ok = [x for x in runs if not any(f.startswith("fell") for f in x["failures"])]
    return {"n": int(n), "seed": int(seed), "cycles": int(cycles), "ranges": asdict(ranges),
            "success_rate": float(np.mean([x["walked"] for x in runs])) if runs else None,
            "verified_rate": float(np.mean([x["verified"] for x in runs])) if runs else None,
            "energy": {k: _spread([x[k] for x in ok]) for k in ("joule_loss_J", "abs_work_J",
                                                                  "joule_loss_relative_error")},
            "feedback_share": _spread([x["feedback_share"] for x in ok]),
            "runs": runs}
