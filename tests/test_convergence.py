"""Grid refinement: the biped7 heel-toe walk (both transcriptions) and slope walk at knots ×
FINE_SCALE (session-scoped fixtures of tests/conftest.py) solve; there the foothold drift and
the energy-balance error are small, the drift shrinks at the trapezoid rule's order from the
default knots, and the fine solutions' interpolants and exported accelerations are consistent.
"""
from __future__ import annotations

import numpy as np
import pytest

from gaitcheck import (
    ACC_RTOL, DRIFT_BOUND_FINE, DRIFT_ORDER, ENERGY_RTOL_FINE, FINE_SCALE, VIOLATION_TOL,
    actuators_from_yaml, base_shift, check_energy, check_sample_at_knots, fine, foothold_drift,
)

# the fast subset's fine-grid solve (the slope walk: one solve of ~4 s, no mesh continuation)
FAST_FINE = pytest.param("fine_slope", marks=pytest.mark.fast)


@pytest.mark.parametrize("which", ["fine_trap", "fine_hs", FAST_FINE])
def test_foothold_drift_fine(which, request):
    foothold_drift(fine(request, which), DRIFT_BOUND_FINE)


def test_foothold_drift_order(request):
    """The drift shrinks like h² (README): on one local optimum (the × FINE_SCALE solve starts
    from the default-knots optimum) FINE_SCALE × the knots cut it by FINE_SCALE^DRIFT_ORDER."""
    coarse, fine_trap = fine(request, "default_trap"), fine(request, "fine_trap")
    d0, d1 = foothold_drift(coarse, np.inf), foothold_drift(fine_trap, np.inf)
    print(f"\ndrift {d0 * 1e3:.3f} mm at the default knots, {d1 * 1e3:.3f} mm at x{FINE_SCALE:g}: "
          f"order {np.log(d0 / d1) / np.log(FINE_SCALE):.2f}")
    assert d0 / d1 >= FINE_SCALE ** DRIFT_ORDER


@pytest.mark.parametrize("which", ["fine_trap", "fine_hs", FAST_FINE])
def test_energy_balance_fine(which, request):
    """The energy balance to 1 % of the absolute work on fine grids: the heel–toe walk with both
    transcriptions, and the slope walk (potential energy gain)."""
    check_energy(fine(request, which), ENERGY_RTOL_FINE)


def test_joule_loss_hermite_simpson(request):
    """The same from the Hermite–Simpson knots and midpoints with Simpson's rule."""
    s = fine(request, "fine_hs")
    acts = actuators_from_yaml(s.robot)
    c = np.array([acts[j]["resistance"] / (acts[j]["gear_ratio"] * acts[j]["torque_constant"]) ** 2
                  for j in s.robot.actuated])
    energy = 0.0
    for ph in s.traj.phases:
        P, Pm, h = (ph.tau ** 2) @ c, (ph.mid["tau"] ** 2) @ c, np.diff(ph.t)
        energy += np.sum(h / 6 * (P[:-1] + 4 * Pm + P[1:]))
    assert energy / s.traj.stride == pytest.approx(s.result.cost_terms["joule_loss"], rel=1e-8)


@pytest.mark.parametrize("which", ["fine_trap", "fine_hs", FAST_FINE])
def test_fine_solves(which, request):
    s = request.getfixturevalue(which)
    r = s.result
    print(f"\n{s.name}: {r.status}, cost {r.cost:.6g}, {r.stats['iterations']} iterations, "
          f"{r.stats['solve_time_s']:.2f} s, max violation {r.max_violation:.2e}")
    assert r.success, f"{s.name}: {r.status}: {r.message}; worst {r.violations(3)}"
    assert r.max_violation <= VIOLATION_TOL


def test_sample_at_knots_hermite_simpson(request):
    check_sample_at_knots(fine(request, "fine_hs"))


@pytest.mark.parametrize("which", ["fine_trap", "fine_hs"])
def test_sample_continuous(which, request):
    """The interpolant of each interval ends at the next knot (q and v continuous inside a
    phase), and sample_phase returns a phase's own knots, its last one included."""
    s = fine(request, which)
    traj = s.traj
    worst = {k: 0.0 for k in ("q", "v")}
    for ph in traj.phases:
        inner = traj.sample_phase(ph.name, ph.t)
        for key in worst:
            worst[key] = max(worst[key], float(np.abs(inner[key] - getattr(ph, key)).max()))
    # later and earlier cycles: the base advanced by whole strides (knot times up to rounding)
    for n in (-1, 2):
        ph = traj.phases[0]
        smp = traj.sample(ph.t[:-1] + n * traj.period)
        for key in worst:
            ref = getattr(ph, key)[:-1] + (n * base_shift(s) if key == "q" else 0.0)
            worst[key] = max(worst[key], float(np.abs(smp[key] - ref).max()))
    print(f"\n{s.name}: largest mismatch of the interpolant at the knots: "
          + ", ".join(f"{k} {v:.2e}" for k, v in worst.items()))
    assert worst["q"] <= 1e-7 and worst["v"] <= 1e-7, worst


@pytest.mark.parametrize("which", ["fine_trap", "fine_hs"])
def test_accelerations_match_velocities(which, request):
    """The exported accelerations are the derivative of the exported velocities: inside each
    phase a_k agrees with the central difference (v_k+1 − v_k−1) / 2h to ACC_RTOL of the
    largest |Δv/Δt| of that coordinate (a grid-scale oscillation of a that the quadrature of v
    does not see would show here)."""
    s = fine(request, which)
    nv = s.robot.nv
    scale = np.zeros(nv)
    errs = []
    for ph in s.traj.phases:
        h = np.diff(ph.t)
        fd = (ph.v[2:] - ph.v[:-2]) / (h[1:] + h[:-1])[:, None]
        scale = np.maximum(scale, np.abs(np.diff(ph.v, axis=0) / h[:, None]).max(axis=0))
        errs.append((ph.name, np.abs(ph.a[1:-1] - fd)))
    worst = []
    for name, err in errs:
        rel = err.max(axis=0) / (scale + 1.0)
        j = int(rel.argmax())
        worst.append((rel[j], name, s.robot.coordinates[j], err[:, j].max(), scale[j]))
    worst.sort(reverse=True)
    rel, name, coord, e, sc = worst[0]
    print(f"\n{s.name}: worst |a − dv/dt| {e:.1f} for {coord} in {name} (max |dv/dt| {sc:.1f})")
    assert rel <= ACC_RTOL, f"{coord} in {name}: |a − dv/dt| up to {e:.1f}, while |dv/dt| ≤ {sc:.1f}"
