"""Flight phases (no foot on the ground) checked from the EXPORTED files, independently of the NLP.

problems/solo12_flying_trot.yaml is solved at its shipped size, written with `gaitopt.export.save`
and read back with `load_result` (knots.npz); Pinocchio's centroidal algorithms then check what a
flight must be: no contact force; the centroidal momentum rate equal to the weight (the centre of
mass falls at g: ballistic) and no angular momentum rate about the centre of mass at the
collocation points where the equations of motion hold (trapezoidal: the interval midpoints); the
CoM velocity changing by g·T over the phase and the angular momentum about the CoM conserved
across it, to the transcription's accuracy; the feet clear of the ground; lift-off into flight
without a velocity jump, touchdown from it through the impact map at the bounded speed. The
generic physics checks (tests/test_gait_physics.py) run on the same file as on every shipped
problem. A bound and a biped run (not shipped) are solved at test size and checked the same way.
A robot without a floating base is refused a flight phase in one line.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pinocchio as pin
import pytest

import gaitopt as go
from gaitopt.errors import InputError
from gaitopt.export import load_result, save
from gaitopt.precheck import check_problem
from gaitopt.problem import problem_from_dict
from gaitopt.robot import load_robot

from gaitcheck import DRIFT_BOUND_TEST, G, MIRROR_ID_TOL, ROOT, in_contact

FLYING_TROT = ROOT / "problems" / "solo12_flying_trot.yaml"
BALLISTIC_RTOL = 1e-6   # |ḣ_G − m g| / (m g) at the dynamic points of the optimised flight phases
# The trapezoid integrates v from a exactly, but the CoM velocity J_G(q) v and the angular momentum
# A_G(q) v are nonlinear in q: over a flight they drift at O(h²). Measured (2026-11-25) on the
# flying trot at its shipped size (5 intervals of 12 ms per flight): ḣ_G − m g 7e-13 × m g
# (6.6e-5 on the mirrored half: the URDF is not exactly symmetric, MIRROR_ID_TOL); CoM velocity
# change off g·T by 1.1e-5 m/s (g·T = 0.59 m/s); angular momentum about the CoM varying by
# 0.17 % of its largest value over the phase; the bound 2e-4 m/s and 0.15 %, the run 2e-5 m/s
# and 0.43 %. Both shrink at second order with the knots (flying trot × 0.5, 1, 2, 4: angular
# momentum spread 0.58, 0.17, 0.051, 0.013 %; CoM velocity error 6.9e-5, 1.1e-5, 2.7e-6,
# 6.7e-7 m/s). At half the knots, the fri_stability optimum swings its legs harder: 2.0 %, 4.9e-3 m/s.
COM_VEL_TOL = 0.02      # × g·T
ANG_MOM_RTOL = 0.05     # ptp(L_G) over the flight / max |L_G|
ANG_MOM_ORDER = 1.5     # spread(× 1) / spread(× 4) ≥ 4^ANG_MOM_ORDER (measured 4^1.85)


def quiet(problem):
    return problem.replace(solver=dataclasses.replace(problem.solver, print_level=0))


def flights(traj):
    return [ph for ph in traj.phases if all(m == "swing" for m in ph.modes.values())]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The flying trot solved at its shipped size, saved and read back as a user would."""
    result = go.solve(quiet(go.load_problem(FLYING_TROT)))
    assert result.success, result.message
    out = tmp_path_factory.mktemp("flying_trot")
    save(result, out)
    return load_result(out)


class Centroidal:
    """Pinocchio's centroidal quantities of one robot at numeric (q, v, a)."""

    def __init__(self, robot):
        self.robot, self.model = robot, robot.model
        self.data = self.model.createData()
        self.mass = float(sum(self.model.inertias[j].mass for j in range(self.model.njoints)))
        assert np.allclose(self.model.gravity.linear, [0.0, 0.0, -G])

    def rate(self, q, v, a) -> np.ndarray:
        """ḣ_G (6,): d/dt of [linear momentum (N·s); angular momentum about the CoM (N·m·s)]."""
        pin.computeCentroidalMomentumTimeVariation(self.model, self.data, q, v, a)
        return np.r_[self.data.dhg.linear, self.data.dhg.angular]

    def momentum(self, q, v) -> tuple:
        """(CoM velocity (3,) m/s, angular momentum about the CoM (3,) N·m·s)."""
        pin.computeCentroidalMomentum(self.model, self.data, q, v)
        return self.data.hg.linear / self.mass, self.data.hg.angular.copy()

    def heights(self, q) -> np.ndarray:
        """World z (nc,) of every contact point [m]."""
        pin.framesForwardKinematics(self.model, self.data, q)
        return np.array([self.data.oMf[c.frame_id].act(c.point)[2] for c in self.robot.contacts])

    def point_velocities(self, q, v) -> np.ndarray:
        m, d = self.model, self.data
        pin.forwardKinematics(m, d, q, v)
        pin.updateFramePlacements(m, d)
        out = []
        for c in self.robot.contacts:
            fv = pin.getFrameVelocity(m, d, c.frame_id, pin.LOCAL_WORLD_ALIGNED)
            out.append(fv.linear + np.cross(fv.angular, d.oMf[c.frame_id].rotation @ c.point))
        return np.array(out)


def check_flight(result, rate_tol=BALLISTIC_RTOL):
    """Every physical claim of a flight phase on a solved (or re-read) result; returns figures."""
    traj, robot = result.trajectory, result.robot
    cen = Centroidal(robot)
    weight = np.array([0.0, 0.0, -cen.mass * G, 0.0, 0.0, 0.0])
    fl = flights(traj)
    assert fl, "no flight phase"
    out = {}
    for ph in fl:
        mirrored = ph.name.endswith(":mirrored")
        # no contact force anywhere in the phase
        assert np.all(ph.f == 0.0) and np.all(ph.mid["f"] == 0.0), ph.name
        # ballistic where the equations of motion hold (trapezoidal: the midpoints; Hermite-Simpson: both)
        points = list(zip(ph.mid["q"], ph.mid["v"], ph.mid["a"]))
        if traj.method != "trapezoidal":
            points += list(zip(ph.q, ph.v, ph.a))
        err = max(np.abs(cen.rate(q, v, a) - weight).max() for q, v, a in points) / (cen.mass * G)
        assert err <= (MIRROR_ID_TOL if mirrored else rate_tol), (ph.name, err)
        # over the phase: CoM velocity changes by g·T, angular momentum about the CoM is conserved
        T = ph.t[-1] - ph.t[0]
        (c0, _), (c1, _) = cen.momentum(ph.q[0], ph.v[0]), cen.momentum(ph.q[-1], ph.v[-1])
        dv = np.abs(c1 - c0 - np.array([0.0, 0.0, -G * T])).max()
        assert dv <= COM_VEL_TOL * G * T, (ph.name, dv)
        L = np.array([cen.momentum(q, v)[1] for q, v in zip(ph.mid["q"], ph.mid["v"])]
                     + [cen.momentum(q, v)[1] for q, v in zip(ph.q, ph.v)])
        spread = np.ptp(L, axis=0).max() / max(np.abs(L).max(), 1e-9)
        assert spread <= ANG_MOM_RTOL, (ph.name, spread)
        # feet clear of the ground inside the phase; at its ends only the stance drift below it
        inner = [cen.heights(q) for q in ph.q[1:-1]] + [cen.heights(q) for q in ph.mid["q"]]
        assert np.min(inner) > 0.0, (ph.name, np.min(inner))
        assert min(cen.heights(ph.q[0]).min(), cen.heights(ph.q[-1]).min()) > -DRIFT_BOUND_TEST, ph.name
        out[ph.name] = {"rate_err": err, "com_dv": dv, "L_spread": spread, "inner_min_z": float(np.min(inner))}
    # lift-off into flight: no velocity jump; touchdown from it: an impact that stops the landing
    # points, which arrive no faster than the bound
    phases = list(traj.phases)
    v_max = result.problem.constraints.touchdown_speed
    for i, ph in enumerate(phases):
        if ph not in fl:
            continue
        before, after = phases[i - 1], phases[(i + 1) % len(phases)]
        if i > 0:
            assert np.allclose(before.v[-1], ph.v[0], atol=1e-9), ph.name
        if i + 1 < len(phases):
            landing = [j for j, c in enumerate(robot.contacts) if c.name in in_contact(robot, after.modes)]
            assert landing
            v_after = cen.point_velocities(after.q[0], after.v[0])[landing]
            assert np.abs(v_after).max() < 1e-6, (after.name, v_after)
            v_before = cen.point_velocities(ph.q[-1], ph.v[-1])[landing]
            if v_max is not None and result.problem.constraints.touchdown == "impact":
                speed = np.linalg.norm(v_before, axis=1) if v_max["along"] == "total" else -v_before[:, 2]
                assert speed.max() <= v_max["max"] + 1e-6, (after.name, speed)
    return out


def test_flying_trot_is_ballistic_in_flight(exported):
    assert exported.success
    names = [ph.name for ph in flights(exported.trajectory)]
    assert names == ["flight", "flight:mirrored"]
    figures = check_flight(exported)
    print("\nflying trot, from the exported files:", figures)


def test_angular_momentum_drift_shrinks_with_the_knots(exported):
    """The angular momentum about the CoM is conserved by the motion, and by the transcription up to
    its O(h²) error: four times the knots cut the spread over the flight by at least 4^1.5."""
    fine = go.solve(quiet(go.load_problem(FLYING_TROT).scaled_knots(4.0)))
    assert fine.success, fine.message
    coarse, fine = check_flight(exported)["flight"]["L_spread"], check_flight(fine)["flight"]["L_spread"]
    print(f"\nangular momentum spread over the flight: × 1 {coarse:.2e}, × 4 {fine:.2e} ({coarse / fine:.1f} ×)")
    assert coarse / fine >= 4.0 ** ANG_MOM_ORDER


def test_flight_phase_lasts_its_share_of_the_cycle(exported):
    """β = 0.35 of a trot: each flight lasts (0.5 − β) of the period; the CoM rises g t²/8."""
    traj = exported.trajectory
    for ph in flights(traj):
        assert ph.t[-1] - ph.t[0] == pytest.approx(0.15 * traj.period, rel=1e-9)


OTHER_GAITS = {
    # a bound (full cycle: fore pair, flight, hind pair, flight)
    "solo12_bound": {"robot": "solo12", "gait": {"pattern": "bound", "duty_factor": 0.4, "period": 0.4, "knots": 16},
                     "speed": 0.8, "cost": "joule_loss",
                     "constraints": {"friction": {"mu": 0.7, "cone": "pyramid"}, "clearance": 0.03,
                                     "touchdown": "impact", "touchdown_speed": 0.05}},
    # a biped run: single stance, flight, mirrored
    "bolt_run": {"robot": "bolt", "speed": 0.6, "cost": "joule_loss",
                 "gait": {"cycle": "half", "phases": [
                     {"name": "single_support", "contacts": {"left": "stance", "right": "swing"}, "knots": 6,
                      "duration": 0.15},
                     {"name": "flight", "contacts": {"left": "swing", "right": "swing"}, "knots": 3,
                      "duration": 0.05}]},
                 "constraints": {"friction": {"mu": 0.7, "cone": "pyramid"}, "clearance": 0.03,
                                 "touchdown": "impact", "touchdown_speed": 0.1, "leg_separation": {"lateral": 0.06},
                                 "base_attitude": {"roll": 0.25, "pitch": 0.10, "yaw": 0.25}}},
}


@pytest.mark.parametrize("name", sorted(OTHER_GAITS))
def test_other_running_gaits_solve_ballistic(name):
    problem = quiet(problem_from_dict(OTHER_GAITS[name], f"<{name}>"))
    result = go.solve(problem)
    assert result.success, result.message
    print(f"\n{name}: cost {result.cost:.4g}, {result.stats['iterations']} iterations,", check_flight(result))


# The flying trot at half its knots under the other transcription, soft touchdowns, a free
# period, and every cost term that reads the contacts (fri_stability divided by the phase's total
# normal force, zero in flight, until flight phases were left out of its integral).
VARIANTS = {
    "hermite_simpson": {"transcription": "hermite_simpson"},
    "soft_touchdown": {"constraints.touchdown": "soft"},
    "free_period": {"gait.period": {"min": 0.3, "max": 0.6, "guess": 0.4}},
    "fri_stability": {"cost": "fri_stability"},
    "impact_loss": {"cost": {"joule_loss": 1.0, "impact_loss": 1.0}},
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_flying_trot_variants(name):
    result = go.solve(quiet(go.load_problem(FLYING_TROT, VARIANTS[name]).scaled_knots(0.5)))
    assert result.success, result.message
    figures = check_flight(result)
    if name == "soft_touchdown":  # the landing points arrive at rest: no velocity jump anywhere
        for a, b in zip(result.trajectory.phases[:-1], result.trajectory.phases[1:]):
            assert np.allclose(a.v[-1], b.v[0], atol=1e-6), b.name
    print(f"\n{name}: cost {result.cost:.4g}, {result.stats['iterations']} iterations,", figures)


@pytest.mark.fast
def test_flight_needs_a_floating_base():
    problem = go.load_problem(FLYING_TROT)
    with pytest.raises(InputError) as info:
        check_problem(problem, load_robot("solo12", base="fixed"))
    msg = str(info.value)
    assert "\n" not in msg and "no floating base" in msg and info.value.field == "gait.phases"


@pytest.mark.fast
def test_a_flight_too_long_for_the_height_band_is_refused():
    """A 1 s flight lifts the CoM g T²/8 = 1.2 m; the base band and the legs allow 0.45 m on
    solo12: refused before solving (IPOPT took 440 iterations to call a 0.5 s flight infeasible)."""
    problem = go.load_problem(FLYING_TROT, {"gait.period": 2.7})   # flights of 0.15 × 2.7 s ≈ 0.4 s: let through
    check_problem(problem, load_robot("solo12"))
    problem = go.load_problem(FLYING_TROT, {"gait.period": 6.7})   # flights of 1.0 s
    with pytest.raises(InputError) as info:
        check_problem(problem, load_robot("solo12"))
    msg = str(info.value)
    assert "\n" not in msg and "a flight of 1 s" in msg and info.value.field == "gait.phases", msg
