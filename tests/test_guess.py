"""The automatic guess's numerical kernels: against plain reference versions, Pinocchio, finite
differences and an enumerated nonnegative least squares.

The kernels were rewritten for speed (one kinematics pass per inverse-kinematics step, batched
skew products, one search of the free set per Lawson–Hanson step). Every solve's iterations and
exported bytes depend on x0 to the last bit, so the kinematics and the inverse kinematics are
checked equal to the straightforward versions bit for bit.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import gaitopt as go
from gaitopt.force_split import _nnls
from gaitopt.point_kinematics import _contact_kinematics, _point_jacobians, _point_positions, leg_ik
from gaitopt.robot import robot_of

pytestmark = pytest.mark.fast

PROBLEMS = Path(__file__).resolve().parents[1] / "problems"


@pytest.fixture(scope="module", params=["biped7_heel_toe_walk", "solo12_trot"])
def robot(request):
    """biped7 (heel and toe on one frame: a shared frame Jacobian) and solo12 (3-D, one point per foot)."""
    return robot_of(go.load_problem(PROBLEMS / f"{request.param}.yaml"))


def _random_q(robot, rng):
    lo = np.where(np.isfinite(robot.lower), robot.lower, -1.0)
    hi = np.where(np.isfinite(robot.upper), robot.upper, 1.0)
    return rng.uniform(lo, hi)


def _reference_jacobians(model, data, robot, q):
    """The point Jacobians as one frame Jacobian and one skew product per point."""
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    out = []
    for c in robot.contacts:
        J = pin.getFrameJacobian(model, data, c.frame_id, pin.LOCAL_WORLD_ALIGNED)
        r = data.oMf[c.frame_id].rotation @ c.point
        skew = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
        out.append(J[:3] - skew @ J[3:])
    return np.array(out)


def test_contact_kinematics_equal_reference_and_differentiate_positions(robot):
    model, data = robot.model, robot.model.createData()
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = _random_q(robot, rng)
        points, J = _contact_kinematics(model, data, robot, q)
        assert np.array_equal(points, _point_positions(model, robot.model.createData(), robot, q))
        assert np.array_equal(J, _reference_jacobians(model, robot.model.createData(), robot, q))
        assert np.array_equal(J, _point_jacobians(model, data, robot, q))
        # the physics: J v is the points' velocity (central differences, nq == nv here)
        v = rng.normal(size=robot.nv)
        h = 1e-6
        fd = (_point_positions(model, data, robot, q + h * v) - _point_positions(model, data, robot, q - h * v)) / (2 * h)
        assert np.allclose(J @ v, fd, atol=1e-7)


def _reference_leg_ik(robot, q_init, targets, q_ref, iterations=30, damping=1e-4, reg=1e-3):
    """Damped Gauss–Newton with a pull towards q_ref, joint limits clipping each step, written
    with separate position and Jacobian passes."""
    model, data = robot.model, robot.model.createData()
    nb = len(robot.base_coordinates)
    q = q_init.copy()
    lo, hi = robot.lower.copy(), robot.upper.copy()
    for _ in range(iterations):
        err = (targets - _point_positions(model, data, robot, q)).ravel()
        J = _reference_jacobians(model, data, robot, q).reshape(-1, robot.nv)[:, nb:]
        n = J.shape[1]
        H = J.T @ J + (damping + reg) * np.eye(n)
        g = J.T @ err + reg * (q_ref[nb:] - q[nb:])
        if not (np.all(np.isfinite(H)) and np.all(np.isfinite(g))):
            break
        dq = np.linalg.solve(H, g)
        q[nb:] = np.clip(q[nb:] + dq, lo[nb:] + 1e-6, hi[nb:] - 1e-6)
        if np.linalg.norm(dq) < 1e-10:
            break
    return q


def test_leg_ik_equals_reference_and_reaches_targets(robot):
    model, data = robot.model, robot.model.createData()
    q0 = robot.standing_q.copy()
    nb = len(robot.base_coordinates)
    rng = np.random.default_rng(5)
    for _ in range(3):
        q_goal = q0.copy()
        q_goal[nb:] += rng.normal(scale=0.05, size=robot.nv - nb)
        q_goal = np.clip(q_goal, robot.lower + 1e-3, robot.upper - 1e-3)
        targets = _point_positions(model, data, robot, q_goal)
        q = leg_ik(robot, q0, targets, q0, iterations=60)
        assert np.array_equal(q, _reference_leg_ik(robot, q0, targets, q0, iterations=60))
        # reachable targets: met to within what the small pull towards q_ref leaves
        assert np.abs(_point_positions(model, data, robot, q) - targets).max() < 2e-3
    far = _point_positions(model, data, robot, q0) + [0.0, 0.0, 10.0]  # out of reach: still the reference's
    assert np.array_equal(leg_ik(robot, q0, far, q0), _reference_leg_ik(robot, q0, far, q0))


def _enumerated_nnls(M, d):
    """min ‖Mx − d‖ s.t. x ≥ 0 by trying every support: the least-squares solution on each
    subset of columns that is nonnegative, the one with the smallest residual."""
    n = M.shape[1]
    best, best_r = np.zeros(n), np.linalg.norm(d)
    for mask in range(1, 2 ** n):
        cols = [i for i in range(n) if mask >> i & 1]
        z = np.linalg.lstsq(M[:, cols], d, rcond=None)[0]
        if (z >= 0).all():
            x = np.zeros(n)
            x[cols] = z
            r = np.linalg.norm(M @ x - d)
            if r < best_r:
                best, best_r = x, r
    return best


def test_nnls_is_the_nonnegative_least_squares_solution():
    rng = np.random.default_rng(7)
    for trial in range(100):
        n = rng.integers(1, 8)
        m = n + rng.integers(1, 8)  # full column rank: a unique solution
        M, d = rng.normal(size=(m, n)), rng.normal(size=m)
        x = _nnls(M, d)
        assert np.allclose(x, _enumerated_nnls(M, d), atol=1e-9), trial
        # KKT of min ‖Mx − d‖² s.t. x ≥ 0: x ≥ 0, gradient ≥ 0 where x = 0, ≈ 0 where x > 0
        grad = M.T @ (M @ x - d)
        assert (x >= 0).all()
        assert (grad[x == 0] > -1e-8).all() and np.abs(grad[x > 0]).max(initial=0.0) < 1e-8
    assert np.array_equal(_nnls(np.zeros((3, 0)), np.ones(3)), np.zeros(0))
    assert np.array_equal(_nnls(np.eye(3), np.full(3, np.nan)), np.zeros(3))  # no finite step: x stays 0


def test_nnls_from_a_support_guess_has_the_bits_of_the_empty_start():
    """A guessed support (right, partly wrong, everything, nothing) changes the path, not x."""
    rng = np.random.default_rng(11)
    for trial in range(100):
        n = rng.integers(1, 8)
        m = n + rng.integers(1, 8)
        M, d = rng.normal(size=(m, n)), rng.normal(size=m)
        x = _nnls(M, d)
        for start in (x > 0, rng.random(n) < 0.5, np.ones(n, bool), np.zeros(n, bool)):
            assert np.array_equal(_nnls(M, d, start=start), x), trial
    assert np.array_equal(_nnls(np.eye(3), np.full(3, np.nan), start=np.ones(3, bool)), np.zeros(3))


@pytest.mark.parametrize("name", ["biped7_heel_toe_walk", "solo12_trot"])
def test_guess_with_support_guesses_equals_the_empty_start(name, monkeypatch):
    """The force split starts each knot's NNLS from the previous knot's support: x0 keeps every
    bit of the guess whose every NNLS starts from nothing."""
    import gaitopt.force_split as fs
    from gaitopt.guess import automatic_guess
    from gaitopt.transcription import transcribe
    problem = go.load_problem(PROBLEMS / f"{name}.yaml")
    tr = transcribe(problem, robot_of(problem))
    x0 = automatic_guess(tr)
    plain = fs._nnls
    monkeypatch.setattr(fs, "_nnls", lambda M, d, start=None: plain(M, d))
    assert np.array_equal(automatic_guess(tr), x0)


def test_warm_starts_by_what_they_share_with_the_problem():
    """Three starts (gaitopt.gait.solve): a result of an NLP of the same shape (its signature)
    gives IPOPT its x and its multipliers (warm_start_init_point; the shipped problems at a
    neighbouring speed: 539 iterations cold, 181 so, to the same optima; docs/speed.md); a result
    on the same grid without multipliers (e.g. read from a trajectory.csv) is a point to start
    near (barrier 1e-5, bounds pushed 1e-6); a result on another grid is interpolated, missing
    the new grid's collocation rows, and starts as the automatic guess does (zero constraint
    multipliers, IPOPT's own push: 1× → 2× over the shipped problems 467 instead of 653
    iterations). Before 2026-11-24 every warm start was the second kind."""
    from gaitopt.guess import same_grid
    problem = go.load_problem(PROBLEMS / "rabbit_walk.yaml")
    coarse = go.solve(problem, print_level=0)
    assert coarse.success and coarse.multipliers is not None
    fine = problem.scaled_knots(2)
    assert same_grid(problem, coarse.trajectory) and not same_grid(fine, coarse.trajectory)
    renamed = problem.replace(phases=[dataclasses.replace(ph, name=ph.name + "_b") for ph in problem.phases])
    assert not same_grid(renamed, coarse.trajectory)  # phases the result lacks: not its grid
    with pytest.warns(UserWarning, match="no phase"):  # and they start from the automatic guess
        go.solve(renamed, warm_start=coarse, print_level=0)
    assert not same_grid(problem.replace(transcription="hermite_simpson"), coarse.trajectory)  # another rule

    faster = go.load_problem(PROBLEMS / "rabbit_walk.yaml", ["speed=0.63"])
    cold = go.solve(faster, print_level=0)
    dual = go.solve(faster, warm_start=coarse, print_level=0)
    assert dual.stats["ipopt_options"]["warm_start_init_point"] == "yes"
    no_duals = dataclasses.replace(coarse, multipliers=None)
    near = go.solve(faster, warm_start=no_duals, print_level=0)
    opts = near.stats["ipopt_options"]
    assert (opts["bound_push"], opts["bound_frac"], opts["mu_init"]) == (1e-6, 1e-6, 1e-5)
    assert "warm_start_init_point" not in opts and "constr_mult_init_max" not in opts
    assert cold.success and dual.success and near.success
    assert abs(dual.cost - cold.cost) < 1e-6 * cold.cost and abs(near.cost - cold.cost) < 1e-6 * cold.cost
    assert dual.stats["iterations"] < near.stats["iterations"]  # 9 against 14 when written

    refined = go.solve(fine, warm_start=coarse, print_level=0)
    opts = refined.stats["ipopt_options"]
    assert opts["constr_mult_init_max"] == 0.0 and not {"bound_push", "bound_frac", "mu_init"} & set(opts)
    assert "warm_start_init_point" not in opts
    assert refined.success and abs(refined.cost - coarse.cost) < 0.05 * coarse.cost
