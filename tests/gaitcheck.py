"""Shared by the gait tests (test_gait_physics, test_convergence, test_method_agreement,
test_failures, test_schema_variants): problem paths, tolerances with what was measured, and the
independent re-computations of what an optimal gait claims, from its exported knot values
(`Trajectory.knots()`, trajectory.csv) with Pinocchio's numeric algorithms: contact point
positions and velocities, inverse dynamics with the contact forces, kinetic and potential energy,
the foot frames' rotation. Nothing re-reads the NLP's own constraint values.

Measured figures (foothold drift, energy balance, trapezoidal vs Hermite–Simpson cost) are
printed by the tests; run them with `-s` to see them.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
import yaml

import gaitopt as go
from gaitopt.problem import shipped_problems
from gaitopt.terrain_io import periodic_slope, surface_of

ROOT = Path(__file__).resolve().parent.parent
PROBLEM_FILES = shipped_problems()
HEEL_TOE = ROOT / "problems" / "biped7_heel_toe_walk.yaml"
SLOPE = ROOT / "problems" / "biped7_slope_walk.yaml"
STATIC = ROOT / "problems" / "biped7_static_walk.yaml"

TEST_SCALE = 0.5          # knots of every phase × this (at least 2) for the per-problem checks
FINE_SCALE = 4.0          # knots × this for the fine-grid checks of the heel-toe and slope walks
G = 9.81                  # m/s², Pinocchio's default gravity (checked below)

VIOLATION_TOL = 1e-6      # result.max_violation
FORCE_TOL = 1e-6          # N, unilateral and friction
CONTACT_VEL_TOL = 1e-6    # m/s, stance point velocity at collocation points
# Foothold drift: stance points are held at rest at the knots (and Hermite–Simpson midpoints)
# only, so they may move between them (README). Measured on the biped7 heel-toe walk: trapezoidal
# 2.0 mm at knots × 0.5, 1.2 mm × 1, 0.10 mm × 4 (from the × 1 optimum); Hermite–Simpson
# 0.001 mm × 4. The slope walk is the largest at test size: 6.8 mm.
DRIFT_BOUND_TEST = 25e-3  # m, sanity bound at test size (a stance point must not wander off)
DRIFT_BOUND_FINE = 0.5e-3  # m, at knots × FINE_SCALE (measured 0.10 heel-toe, 0.16 slope walk)
DRIFT_ORDER = 1.5         # drift(× 1) / drift(× FINE_SCALE) ≥ FINE_SCALE^DRIFT_ORDER (measured 1.79:
                          # the O(h²) drift of the trapezoid rule, README "What the optima look like")
ID_TOL = 1e-6             # N·m (N), inverse dynamics residual, relative to max(1, |τ|max)
MIRROR_ID_TOL = 1e-3      # × m g: the same on the mirrored half of a half cycle
LIMIT_RTOL = 1e-6         # relative slack on actuator limits
ENERGY_RTOL_FINE = 0.01   # |W − losses − ΔPE| / ∫Σ|τ q̇| on fine grids (knots × FINE_SCALE; measured
                          # heel-toe 0.44 % trapezoidal, 0.000 % Hermite–Simpson, slope walk 0.05 %)
# The same at test size is only a sanity bound (sign of ΔPE, impact losses counted): with 2–6
# knots per phase the trapezoid's O(h²) error is large (measured on biped7 at knots × 0.5:
# heel-toe walk 6.6 %, slope walk 1.6 %, static walk 0.3 %; hoap2 2.0 %, titan8 1.2 %).
ENERGY_RTOL_TEST = 0.25
ROLL_MIN_HEIGHT = 1e-3    # m, the toe's descent over a heel roll, the heel's rise over a toe roll
ABS_POWER_RTOL = 0.10    # abs_power cost term vs the interpolated motion's mean |τ q̇| (titan8 at test size 6.0 %)
TRAP_HS_RTOL = 0.02       # relative cost difference trapezoidal vs Hermite–Simpson (fine grids)
ACC_RTOL = 0.2            # |a_k − central difference of v| / max|Δv/Δt| per coordinate
WALL_TIME_TEST = 60.0     # s, IPOPT wall-time cap of every solve here (a failing problem must not
                          # eat the suite's time budget)


# ----------------------------------------------------------------------------------- helpers


def quiet(problem):
    """The problem with IPOPT silent and at most WALL_TIME_TEST s (its own max_iter kept)."""
    options = dict(problem.solver.options)
    options["max_wall_time"] = min(float(options.get("max_wall_time", np.inf)), WALL_TIME_TEST)
    return problem.replace(solver=dataclasses.replace(problem.solver, print_level=0, options=options))


def in_contact(robot, modes) -> set:
    """Contact point names touching the ground for foot → mode (flat/stance: all points of the
    foot; heel, toe: that point only). Written here from the README's schema, not imported."""
    out = set()
    for c in robot.contacts:
        m = modes[c.foot]
        if m in ("flat", "stance") or m == c.role:
            out.add(c.name)
    return out


class PinModel:
    """Pinocchio numeric algorithms on a robot's model (one Data, not thread-safe)."""

    def __init__(self, robot):
        self.robot = robot
        self.model = robot.model
        self.data = robot.model.createData()
        assert np.allclose(self.model.gravity.linear, [0.0, 0.0, -G])

    def points(self, q, v=None):
        """World positions (nc, 3) of the contact points, and velocities (nc, 3) if v given."""
        m, d = self.model, self.data
        if v is None:
            pin.forwardKinematics(m, d, q)
        else:
            pin.forwardKinematics(m, d, q, v)
        pin.updateFramePlacements(m, d)
        pos, vel = [], []
        for c in self.robot.contacts:
            M = d.oMf[c.frame_id]
            r = M.rotation @ c.point
            pos.append(M.translation + r)
            if v is not None:
                fv = pin.getFrameVelocity(m, d, c.frame_id, pin.LOCAL_WORLD_ALIGNED)
                vel.append(fv.linear + np.cross(fv.angular, r))
        return np.array(pos), (np.array(vel) if v is not None else None)

    def rnea(self, q, v, a, forces):
        """Generalised forces ID(q, v, a) with world contact forces (nc, 3) at the points."""
        m, d = self.model, self.data
        pin.forwardKinematics(m, d, q)
        pin.updateFramePlacements(m, d)
        fext = [pin.Force.Zero() for _ in range(m.njoints)]
        for ci, c in enumerate(self.robot.contacts):
            F = np.asarray(forces[ci], float)
            if not np.any(F):
                continue
            p = d.oMf[c.frame_id].act(c.point)
            j = m.frames[c.frame_id].parentJoint
            fext[j] = fext[j] + d.oMi[j].actInv(pin.Force(F, np.cross(p, F)))
        return np.array(pin.rnea(m, d, q, v, a, fext))

    def mass_matrix(self, q):
        M = np.array(pin.crba(self.model, self.data, q))
        return np.triu(M) + np.triu(M, 1).T

    def kinetic(self, q, v):
        return 0.5 * v @ self.mass_matrix(q) @ v

    def potential(self, q):
        return float(pin.computePotentialEnergy(self.model, self.data, q))

    def point_jacobians(self, q):
        """(nc, 3, nv) world-aligned Jacobians of the contact points."""
        m, d = self.model, self.data
        pin.computeJointJacobians(m, d, q)
        pin.updateFramePlacements(m, d)
        out = []
        for c in self.robot.contacts:
            J = pin.getFrameJacobian(m, d, c.frame_id, pin.LOCAL_WORLD_ALIGNED)
            r = d.oMf[c.frame_id].rotation @ c.point
            skew = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
            out.append(J[:3] - skew @ J[3:])
        return np.array(out)


@dataclasses.dataclass
class Solved:
    """A solved problem and what the checks share: knot rows (Trajectory.knots(), the final row
    being the next cycle's first knot), the contact set of every row, point positions and
    velocities from Pinocchio, and the collocation points: `kinematic` ones, where the state's
    constraints hold (contact at rest, limits, actuator envelope), and `dynamic` ones, where the
    equations of motion and friction hold. Hermite–Simpson: knots and midpoints are both.
    Trapezoidal (README): knots are kinematic; each interval's midpoint — midpoint state, the
    interval's constant a and f, the mean of its end torques — is dynamic."""

    name: str
    problem: object
    result: object
    robot: object
    pm: PinModel
    rows: dict
    active: list            # set of contact names per row
    pos: np.ndarray         # (rows, nc, 3)
    vel: np.ndarray         # (rows, nc, 3)
    kinematic: list         # (q, v, a, tau, f, active set, label) at kinematic collocation points
    dynamic: list           # the same at dynamic collocation points
    row_phase: np.ndarray   # index into trajectory.phases per row (len(phases) for the final row)

    @property
    def traj(self):
        return self.result.trajectory


def solve_and_measure(name, problem, warm_start=None) -> Solved:
    result = go.solve(problem, warm_start=warm_start)
    robot = result.robot
    pm = PinModel(robot)
    traj = result.trajectory
    rows = traj.knots()
    active, row_phase, kinematic, dynamic = [], [], [], []
    trapezoidal = problem.transcription == "trapezoidal"
    for ip, ph in enumerate(traj.phases):
        act = in_contact(robot, ph.modes)
        active += [act] * len(ph.t)
        row_phase += [ip] * len(ph.t)
        knots = [(ph.q[k], ph.v[k], ph.a[k], ph.tau[k], ph.f[k], act, f"{ph.name} knot {k}") for k in range(len(ph.t))]
        mids = [(ph.mid["q"][k], ph.mid["v"][k], ph.mid["a"][k], ph.mid["tau"][k], ph.mid["f"][k], act,
                 f"{ph.name} midpoint {k}") for k in range(len(ph.t) - 1)]
        kinematic += knots if trapezoidal else knots + mids
        dynamic += mids if trapezoidal else knots + mids
    active.append(in_contact(robot, traj.phases[0].modes))
    row_phase.append(len(traj.phases))
    pos, vel = zip(*(pm.points(q, v) for q, v in zip(rows["q"], rows["v"])))
    return Solved(name, problem, result, robot, pm, rows, active, np.array(pos), np.array(vel), kinematic, dynamic,
                  np.array(row_phase))


def junctions(s: Solved):
    """(row before, row after) of every phase junction of the cycle, the wrap included."""
    starts = [int(np.flatnonzero(s.row_phase == ip)[0]) for ip in range(len(s.traj.phases) + 1)]
    return [(b - 1, b) for b in starts[1:]]


def base_shift(s: Solved, fraction: float = 1.0) -> np.ndarray:
    """q advance over `fraction` of a cycle, from the README: base_x by the stride, base_z by
    stride·tan(slope) (on stairs stride·rise/run)."""
    shift = np.zeros(s.robot.nv)
    coords = list(s.traj.coordinates)
    if "base_x" in coords:
        shift[coords.index("base_x")] = fraction * s.traj.stride
    if "base_z" in coords:
        shift[coords.index("base_z")] = fraction * s.traj.stride * np.tan(periodic_slope(s.problem))
    return shift


def planar_advance(s: Solved) -> tuple:
    """(dx, dy, yaw) of a cycle from the problem (README, "Any direction and turning"): the
    body-frame velocity (stride/T, sideways) held while turning at yaw_rate, integrated along
    the arc numerically (independent of gaitopt.cycle's closed form)."""
    T = s.traj.period
    psi = s.problem.yaw_rate * T
    theta = (np.arange(20000) + 0.5) / 20000 * psi
    body = np.array([s.traj.stride, s.problem.sideways * T])
    d = np.mean([[np.cos(a) * body[0] - np.sin(a) * body[1], np.sin(a) * body[0] + np.cos(a) * body[1]]
                 for a in theta], axis=0) if psi else body
    return float(d[0]), float(d[1]), float(psi)


def next_cycle(s: Solved, q, v=None, a=None, f=None) -> tuple:
    """(q, v, a, f) one cycle later: base x, y rotated about world z by the cycle's yaw, then
    shifted by (dx, dy), base_z by dx·tan(slope), base_yaw + yaw; world-frame base velocities,
    accelerations and contact forces rotated by yaw; the rest equal (docs/formats.md)."""
    coords = list(s.traj.coordinates)
    dx, dy, psi = planar_advance(s)
    c, sn = np.cos(psi), np.sin(psi)
    R = np.array([[c, -sn], [sn, c]])

    def rot(x, i, j):
        x = np.array(x, dtype=float, copy=True)
        x[..., [i, j]] = x[..., [i, j]] @ R.T
        return x

    if "base_y" not in coords:
        return q + base_shift(s), v, a, f
    ix, iy = coords.index("base_x"), coords.index("base_y")
    q = rot(q, ix, iy)
    q[..., ix] += dx
    q[..., iy] += dy
    q[..., coords.index("base_z")] += dx * np.tan(periodic_slope(s.problem))
    q[..., coords.index("base_yaw")] += psi
    return (q, *(None if x is None else rot(x, ix, iy) for x in (v, a)), None if f is None else rot(f, 0, 1))


def stance_runs(s: Solved):
    """Maximal runs of rows in contact, per contact point, over two consecutive cycles (so runs
    across the cycle wrap are seen whole): list of (contact index, positions (n, 3), rows)."""
    n = len(s.rows["time"])
    pos2 = np.concatenate([s.pos[:-1], np.array([s.pm.points(next_cycle(s, q)[0])[0] for q in s.rows["q"]])])
    act2 = s.active[:-1] + s.active
    out = []
    for ci, c in enumerate(s.robot.contacts):
        on = np.array([c.name in a for a in act2])
        if on.all():
            raise AssertionError(f"{c.name} never leaves the ground")
        i = 0
        while i < len(on):
            if not on[i]:
                i += 1
                continue
            j = i
            while j + 1 < len(on) and on[j + 1]:
                j += 1
            if 0 < i <= n - 1 and j < len(on) - 1:  # whole runs, each once
                out.append((ci, pos2[i:j + 1, ci], (i % (n - 1), j % (n - 1))))
            i = j + 1
    return out


def work_integrals(s: Solved):
    """(∫Σ τ q̇ dt, ∫Σ |τ q̇| dt) over the cycle. Trapezoidal: τ and v are linear on each
    interval, so ∫ τ·v is exact (h/6 (τ₀·(2v₀ + v₁) + τ₁·(v₀ + 2v₁))); |τ q̇| by the trapezoid.
    Hermite–Simpson: Simpson's rule over knots and midpoints."""
    act = s.robot.actuated_index
    W = Wabs = 0.0
    for ph in s.traj.phases:
        P = np.einsum("ij,ij->i", ph.tau, ph.v[:, act])
        Pa = np.abs(ph.tau * ph.v[:, act]).sum(axis=1)
        h = np.diff(ph.t)
        if s.problem.transcription == "trapezoidal":
            t0, t1, v0, v1 = ph.tau[:-1], ph.tau[1:], ph.v[:-1, act], ph.v[1:, act]
            W += np.sum(h / 6 * (np.einsum("ij,ij->i", t0, 2 * v0 + v1) + np.einsum("ij,ij->i", t1, v0 + 2 * v1)))
            Wabs += np.sum(h * (Pa[:-1] + Pa[1:]) / 2)
        else:
            Pm = np.einsum("ij,ij->i", ph.mid["tau"], ph.mid["v"][:, act])
            Pma = np.abs(ph.mid["tau"] * ph.mid["v"][:, act]).sum(axis=1)
            W += np.sum(h / 6 * (P[:-1] + 4 * Pm + P[1:]))
            Wabs += np.sum(h / 6 * (Pa[:-1] + 4 * Pma + Pa[1:]))
    return W, Wabs


def energy_balance(s: Solved) -> dict:
    """Work of the actuators over a cycle vs impact losses + potential energy gain."""
    W, Wabs = work_integrals(s)
    losses = []
    for i, j in junctions(s):
        q0, v0, q1, v1 = s.rows["q"][i], s.rows["v"][i], s.rows["q"][j], s.rows["v"][j]
        losses.append(s.pm.kinetic(q0, v0) - s.pm.kinetic(q1, v1))
    mass = sum(I.mass for I in s.robot.model.inertias)
    dpe = mass * G * s.traj.stride * np.tan(periodic_slope(s.problem))
    # the same gain from Pinocchio's potential energy of the first and the final row
    dpe_pin = s.pm.potential(s.rows["q"][-1]) - s.pm.potential(s.rows["q"][0])
    return {"work": W, "abs_work": Wabs, "impact_losses": float(np.sum(losses)), "losses": losses,
            "dpe": dpe, "dpe_pin": dpe_pin, "error": W - np.sum(losses) - dpe,
            "rel_error": (W - np.sum(losses) - dpe) / Wabs}


def actuators_from_yaml(robot) -> dict:
    """Actuator data per actuated joint read straight from the robot's robot.yaml."""
    data = yaml.safe_load((Path(robot.folder) / "robot.yaml").read_text())
    default = data["actuators"].get("default", {}) or {}
    per = data["actuators"].get("joints", {}) or {}
    return {j: {**default, **per.get(j, {})} for j in robot.actuated}



def fine(request, which: str) -> Solved:
    """A fine-grid solution by fixture name; its checks are skipped when it did not solve
    (test_fine_solves reports that)."""
    s = request.getfixturevalue(which)
    if not s.result.success:
        pytest.skip(f"{s.name} did not solve ({s.result.status}): see test_fine_solves")
    return s


def check_periodicity(s: Solved):
    """The final row (next cycle's first knot) is the first knot shifted by the stride; the
    cycle closes from the last knot to it like any other junction; q is continuous at every
    junction, v too unless an inelastic impact happens there, and τ and the forces of points
    that stay in contact wherever no point touches down or lifts off (at a contact event the
    rigid model lets them jump; see test_junction_without_contact_event)."""
    rows = s.rows
    # the exported last row (the CSV contract: built from the first row); the NLP's own
    # periodicity is the wrap junction below (its last knot, mirrored for a half cycle)
    nxt = dict(zip(("q", "v", "a", "f"), next_cycle(s, rows["q"][0], rows["v"][0], rows["a"][0], rows["f"][0])))
    nxt["tau"] = rows["tau"][0]
    for key in ("q", "v", "a", "tau", "f"):
        np.testing.assert_allclose(rows[key][-1], nxt[key], rtol=0, atol=1e-12, err_msg=key)
    assert rows["time"][-1] == pytest.approx(s.traj.period, rel=1e-12)
    impact = s.problem.constraints.touchdown == "impact"
    for i, j in junctions(s):
        where = f"{rows['phase'][i]} -> {rows['phase'][j]}"
        assert rows["time"][j] == pytest.approx(rows["time"][i], abs=1e-9), where
        np.testing.assert_allclose(rows["q"][j], rows["q"][i], rtol=0, atol=1e-6, err_msg=f"q at {where}")
        touchdown = s.active[j] - s.active[i]
        if not (touchdown and impact):
            np.testing.assert_allclose(rows["v"][j], rows["v"][i], rtol=0, atol=1e-6, err_msg=f"v at {where}")
        if s.active[j] != s.active[i]:
            continue  # a contact event: τ and forces may jump
        np.testing.assert_allclose(rows["tau"][j], rows["tau"][i], rtol=0, atol=1e-6, err_msg=f"tau at {where}")
        # forces of points that stay in contact are continuous; on a sagittal foot the split of
        # the tangential force between heel and toe is not physical (README), so there the foot's
        # total tangential force is continuous: at heel-off the toe takes over what the foot carried
        sagittal = s.robot.base == "sagittal"
        for foot in s.robot.feet:
            idx = [ci for ci, c in enumerate(s.robot.contacts) if c.foot == foot]
            held = [ci for ci in idx if s.robot.contacts[ci].name in s.active[i] & s.active[j]]
            if not held:
                continue
            axes = [2] if sagittal else [0, 1, 2]
            for ci in held:
                np.testing.assert_allclose(rows["f"][j, ci, axes], rows["f"][i, ci, axes], rtol=0, atol=1e-5,
                                           err_msg=f"force of {s.robot.contacts[ci].name} at {where}")
            if sagittal:
                before = [ci for ci in idx if s.robot.contacts[ci].name in s.active[i]]
                assert rows["f"][j, held, 0].sum() == pytest.approx(rows["f"][i, before, 0].sum(), abs=1e-5), \
                    f"tangential force of {foot} at {where}"


def foothold_drift(s: Solved, bound: float) -> float:
    """Largest distance a point moves from where its stance starts (and its height above the
    slope) over every stance run; asserts both below `bound` and that the point touches the
    ground somewhere in the run (where its stance starts, or where the cycle starts)."""
    surface = surface_of(s.problem)
    names = [c.name for c in s.robot.contacts]
    worst, worst_h = 0.0, 0.0
    report = []
    for ci, P, span in stance_runs(s):
        drift = float(np.linalg.norm(P - P[0], axis=1).max())
        height = P[:, 2] - surface.height(P[:, 0], P[:, 1])
        report.append(f"{names[ci]} rows {span[0]}..{span[1]}: drift {drift * 1e3:.3f} mm, "
                      f"height {height.min() * 1e3:+.3f}..{height.max() * 1e3:+.3f} mm")
        worst = max(worst, drift)
        worst_h = max(worst_h, float(np.abs(height).max()))
        assert np.abs(height).min() <= 1e-6, report[-1]
    print(f"\n{s.name}: foothold drift {worst * 1e3:.3f} mm, height off the ground {worst_h * 1e3:.3f} mm\n  "
          + "\n  ".join(report))
    assert worst < bound, report
    assert worst_h < bound, report
    return worst


def max_torque_rate(traj) -> float:
    """Largest |dτ/dt| [N·m/s] of the interpolated torques inside the phases (differences of
    dense samples: exact at each pair's centre for the linear or quadratic pieces)."""
    worst = 0.0
    for ph in traj.phases:
        t = np.linspace(ph.t[0], ph.t[-1], 40 * (len(ph.t) - 1) + 1)
        tau = traj.sample_phase(ph.name, t)["tau"]
        worst = max(worst, float(np.abs(np.diff(tau, axis=0) / np.diff(t)[:, None]).max()))
    return worst


def check_energy(s: Solved, rtol: float):
    e = energy_balance(s)
    print(f"\n{s.name}: work {e['work']:.5f} J, |work| {e['abs_work']:.4f} J, impact losses "
          f"{e['impact_losses']:.5f} J, ΔPE {e['dpe']:.5f} J; balance error {e['error']:+.5f} J = "
          f"{100 * e['rel_error']:+.3f} % of |work|")
    assert e["dpe_pin"] == pytest.approx(e["dpe"], abs=1e-9 + 1e-9 * abs(e["dpe"]))
    if s.problem.constraints.touchdown == "soft":
        assert abs(e["impact_losses"]) <= 1e-9
    assert all(loss >= -1e-9 for loss in e["losses"])
    assert abs(e["rel_error"]) <= rtol, e
    return e


def compare_costs(name, trap, hs):
    assert trap.success and hs.success, (trap.status, hs.status)
    diff = (trap.cost - hs.cost) / hs.cost
    print(f"\n{name}: trapezoidal {trap.cost:.6g}, hermite_simpson {hs.cost:.6g}, difference {100 * diff:+.3f} %")
    assert abs(diff) <= TRAP_HS_RTOL


def check_sample_at_knots(s: Solved):
    traj = s.traj
    for ip, ph in enumerate(traj.phases):
        times = ph.t[:-1]  # the last knot's time is the next phase's first knot (checked below)
        smp = traj.sample(times)
        for key in ("q", "v", "a", "tau", "f"):
            np.testing.assert_array_equal(smp[key], getattr(ph, key)[:-1], err_msg=f"{key} in {ph.name}")
        assert list(smp["phase"]) == [ph.name] * len(times)
        # at a junction time the later phase's first knot is returned (documented), the next
        # cycle's first knot at the end of the cycle
        nxt = traj.phases[(ip + 1) % len(traj.phases)]
        first = {k: getattr(nxt, k)[0] for k in ("q", "v", "a", "tau", "f")}
        if ip + 1 == len(traj.phases):  # the next cycle's first knot
            first["q"], first["v"], first["a"], first["f"] = next_cycle(s, first["q"], first["v"], first["a"], first["f"])
        end = traj.sample([ph.t[-1]])
        assert end["phase"][0] == nxt.name
        for key in ("q", "v", "a", "tau", "f"):
            np.testing.assert_allclose(end[key][0], first[key], rtol=0, atol=1e-12, err_msg=f"{key} at the end of {ph.name}")
    # every row of knots() (trajectory.csv) at its time, junctions giving the later row
    rows = s.rows
    later = np.r_[rows["time"][1:] != rows["time"][:-1], True]
    smp = traj.sample(rows["time"][later])
    for key in ("q", "v", "a", "tau", "f"):
        np.testing.assert_allclose(smp[key], rows[key][later], rtol=0, atol=1e-12, err_msg=key)
