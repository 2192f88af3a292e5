"""Impact-aware gaits: the ImpactLoss cost term against an independent computation with
Pinocchio's mass matrix and contact Jacobians (the kinetic energy the rigid impact map takes),
the TouchdownSpeed bound on solved gaits at test size (checked with Pinocchio's point
velocities), and the problem-file key."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import gaitopt as go
from gaitopt.errors import InputError
from gaitopt.problem import problem_from_record
from gaitopt.schedule import active_points

ROOT = Path(__file__).resolve().parent.parent
HEEL_TOE = ROOT / "problems" / "biped7_heel_toe_walk.yaml"
TROT = ROOT / "problems" / "solo12_trot.yaml"


def _mass_matrix(model, q):
    """Rigid-body M(q) from Pinocchio's CRBA (armature zeroed) plus the reflected rotor
    inertias on the diagonal, said explicitly rather than trusting a version's convention."""
    rigid = pin.Model(model)
    rigid.armature[:] = 0.0
    data = rigid.createData()
    M = pin.crba(rigid, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    return M + np.diag(np.asarray(model.armature))


def _point_jacobian(model, data, contact, q):
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    J = pin.getFrameJacobian(model, data, contact.frame_id, pin.LOCAL_WORLD_ALIGNED)
    return J[:3] - pin.skew(data.oMf[contact.frame_id].rotation @ contact.point) @ J[3:]


def _touchdowns(result):
    """(phase, touching contact indices, q⁺, v⁻, v⁺, contact indices in contact after) of the
    optimised part of the cycle (a half cycle's first half)."""
    robot, traj = result.robot, result.trajectory
    n = len(result.problem.phases)
    out = []
    for i, p in enumerate(traj.phases[:n]):
        prev = traj.phases[i - 1]
        before = set(active_points(robot, prev.modes))
        now = active_points(robot, p.modes)
        touching = [j for j, c in enumerate(robot.contacts) if c.name in now and c.name not in before]
        if touching:
            after = [j for j, c in enumerate(robot.contacts) if c.name in now]
            out.append((p.name, touching, p.q[0], prev.v[-1], p.v[0], after))
    return out


@pytest.fixture(scope="module")
def heel_toe_impact_loss():
    problem = go.load_problem(HEEL_TOE, {"cost": {"joule_loss": 1.0, "impact_loss": 1.0},
                                         "constraints.touchdown_speed": None}).scaled_knots(0.5)
    result = go.solve(problem, print_level=0)
    assert result.success, result.message
    return result


def test_impact_loss_is_the_impact_maps_kinetic_energy_loss(heel_toe_impact_loss):
    """impact_loss = (1/s) Σ ½ Δvᵀ M Δv over the touchdowns, with M from Pinocchio; and that
    equals ½ v⁻ᵀ M v⁻ − ½ v⁺ᵀ M v⁺ with v⁺ the rigid impact map computed here in numpy
    (v⁺ = v⁻ − M⁻¹ Jᵀ (J M⁻¹ Jᵀ)⁺ J v⁻, J the Jacobian of the points in contact after it)."""
    result = heel_toe_impact_loss
    robot = result.robot
    model, data = robot.model, robot.model.createData()
    events = _touchdowns(result)
    assert events
    jump_sum = map_sum = 0.0
    for name, touching, q, vm, vp, after in events:
        M = _mass_matrix(model, q)
        dv = vp - vm
        jump_sum += 0.5 * dv @ M @ dv
        J = np.vstack([_point_jacobian(model, data, robot.contacts[j], q)[[0, 2]] for j in after])
        Minv = np.linalg.inv(M)
        v_plus = vm - Minv @ J.T @ np.linalg.pinv(J @ Minv @ J.T, rcond=1e-10) @ (J @ vm)
        map_sum += 0.5 * vm @ M @ vm - 0.5 * v_plus @ M @ v_plus
    s = result.trajectory.stride / 2  # the optimised half cycle's advance
    assert result.cost_terms["impact_loss"] == pytest.approx(jump_sum / s, rel=1e-8)
    assert map_sum / s == pytest.approx(jump_sum / s, rel=1e-4, abs=1e-6)
    assert result.cost_terms["impact_loss"] > 1e-3  # a real impact is in there (toe slap)


def test_touchdowns_reported_as_the_cost_prices_them(heel_toe_impact_loss, tmp_path):
    """Result.touchdowns (the summary's line, result.json's `touchdowns`): each touching point's
    speed is J v⁻ with J from Pinocchio's frame Jacobian here; the impacts' losses over the full
    cycle per metre are the impact_loss term the optimiser priced; the summary says so."""
    import json

    from gaitopt.export import save
    result = heel_toe_impact_loss
    robot, traj = result.robot, result.trajectory
    model, data = robot.model, robot.model.createData()
    rows = result.touchdowns()
    assert len(rows) == 2 * len(_touchdowns(result))  # the mirrored half's too
    names = [ph.name for ph in traj.phases]
    for row in rows:
        i = names.index(row["phase"])
        prev = traj.phases[i - 1]
        q_minus = prev.q[-1] - (traj.base_shift if i == 0 else 0.0)
        speeds = [np.linalg.norm(_point_jacobian(model, data, robot.contact(c), q_minus) @ prev.v[-1])
                  for c in row["points"]]
        assert row["speed_m_s"] == pytest.approx(max(speeds), rel=1e-9, abs=1e-12)
    assert sum(r["loss_J"] for r in rows) / traj.distance == pytest.approx(result.cost_terms["impact_loss"], rel=1e-8)
    line = next(line for line in result.summary().splitlines() if line.startswith("touchdowns:"))
    assert "(in the cost)" in line and f"{max(r['speed_m_s'] for r in rows):.3g} m/s" in line
    save(result, tmp_path / "out")
    assert json.loads((tmp_path / "out" / "result.json").read_text())["touchdowns"] == rows


def test_impact_loss_lowers_the_touchdown_speed(heel_toe_impact_loss):
    plain = go.solve(go.load_problem(HEEL_TOE, {"constraints.touchdown_speed": None}).scaled_knots(0.5),
                     print_level=0)
    assert plain.success
    from gaitopt.touchdowns import impact_summary
    with_term, without = impact_summary(heel_toe_impact_loss), impact_summary(plain)
    assert with_term["impact_loss_J_per_m"] < 0.5 * without["impact_loss_J_per_m"]
    assert with_term["touchdown_speed_m_s"] < without["touchdown_speed_m_s"]
    assert "J/m (not in the cost)" in plain.summary()  # what a Joule-loss optimum's impacts take


@pytest.mark.parametrize("path, bound, along", [(TROT, 0.2, "total"), (HEEL_TOE, 0.1, "normal")])
def test_touchdown_speed_bound_holds(path, bound, along):
    """Pinocchio's velocity of every touching point at the knot before touchdown is within the
    bound (total speed, or approach speed along the ground normal); without the bound it is not."""
    results = {}
    for key, value in (("bounded", {"max": bound, "along": along}), ("free", None)):
        problem = go.load_problem(path, {"constraints.touchdown_speed": value}).scaled_knots(0.5)
        res = go.solve(problem, print_level=0)
        assert res.success, (key, res.message)
        robot = res.robot
        model, data = robot.model, robot.model.createData()
        speeds = []
        for name, touching, q, vm, vp, after in _touchdowns(res):
            prev = res.trajectory.phases[[p.name for p in res.trajectory.phases].index(name) - 1]
            q_minus = prev.q[-1] - (res.trajectory.base_shift if name == res.trajectory.phases[0].name else 0)
            for j in touching:
                vel = _point_jacobian(model, data, robot.contacts[j], q_minus) @ vm
                speeds.append(-vel[2] if along == "normal" else np.linalg.norm(vel))
        results[key] = max(speeds)
    assert results["bounded"] <= bound + 1e-6
    assert results["free"] > 2 * bound


def test_touchdowns_of_a_turning_gait_at_the_cycles_start():
    """The touchdown at the cycle's start reads the previous cycle's last knot rotated back by the
    cycle's yaw (its base velocity too), not only shifted: a turning trot bounded at 1 m/s
    (total) meets the bound at both touchdowns, and each loss is ½ΔvᵀMΔv with that v⁻ (the
    plain shift reported 1.023 m/s and 0.192 J for 0.185 J at the first)."""
    problem = go.load_problem(ROOT / "problems" / "solo12_trot_turn.yaml",
                              {"gait.phases.0.knots": 8, "gait.phases.1.knots": 8,
                               "constraints.touchdown_speed": 1.0})
    result = go.solve(problem, print_level=0)
    assert result.success, result.message
    robot, traj = result.robot, result.trajectory
    assert abs(traj.turn) > 0.1
    model, data = robot.model, robot.model.createData()
    rows = result.touchdowns()
    assert [r["phase"] for r in rows] == [p.name for p in traj.phases]
    for i, row in enumerate(rows):
        prev, p = traj.phases[i - 1], traj.phases[i]
        q_minus, v_minus, _, _ = traj.cycle_state(-1, prev.q[-1], prev.v[-1]) if i == 0 else \
            (prev.q[-1], prev.v[-1], None, None)
        speeds = [np.linalg.norm(_point_jacobian(model, data, robot.contact(c), q_minus) @ v_minus)
                  for c in row["points"]]
        assert row["speed_m_s"] == pytest.approx(max(speeds), rel=1e-9)
        assert row["speed_m_s"] <= 1.0 + 1e-6
        dv = p.v[0] - v_minus
        assert row["loss_J"] == pytest.approx(0.5 * dv @ _mass_matrix(model, p.q[0]) @ dv, rel=1e-9)


@pytest.mark.fast
def test_touchdown_speed_key():
    p = go.load_problem(HEEL_TOE, {"constraints.touchdown_speed": 0.3})
    assert p.constraints.touchdown_speed == {"max": 0.3, "along": "total"}
    p = go.load_problem(HEEL_TOE, {"constraints.touchdown_speed": {"max": 0.2, "along": "normal"}})
    assert problem_from_record(p.to_dict()) == p
    for bad in (-1, 0, 50, "fast", {"max": 0.2, "along": "sideways"}, {"max": 0.2, "extra": 1}, float("nan")):
        with pytest.raises(InputError, match="touchdown_speed"):
            go.load_problem(HEEL_TOE, {"constraints.touchdown_speed": bad})
    with pytest.raises(InputError, match="cost"):
        go.load_problem(HEEL_TOE, {"cost": {"impact_losses": 1.0}})


@pytest.mark.fast
def test_impact_loss_alone_with_soft_touchdowns_is_refused():
    # a cost that is 0 for every gait: IPOPT "solved" it with cost 0 and an arbitrary feasible gait
    soft = {"constraints.touchdown": "soft", "constraints.touchdown_speed": None}
    with pytest.raises(InputError, match="0 with soft touchdowns") as err:
        go.load_problem(HEEL_TOE, {**soft, "cost": "impact_loss"})
    assert err.value.field == "cost"
    both = go.load_problem(HEEL_TOE, {**soft, "cost": {"joule_loss": 1.0, "impact_loss": 1.0}})
    assert set(both.cost) == {"joule_loss", "impact_loss"}
    assert go.load_problem(HEEL_TOE, {"cost": "impact_loss"}).cost == {"impact_loss": 1.0}


@pytest.mark.parametrize("path", [HEEL_TOE, TROT])
def test_impact_rows_are_a_shared_call_with_the_inline_rows_values(path, monkeypatch):
    """The impact map's rows M(q)(v⁺ − S v⁻) − Σ J_cᵀ Λ are one robot function per velocity map
    S (identity, or the half cycle's mirror), a shared block (its derivatives built once and
    compiled with the robot's), not part of the junction's inline rows; its rows' values and
    derivatives are the inline form's."""
    import casadi as ca

    from gaitopt.constraints import junction
    from gaitopt.gait import robot_of
    from gaitopt.guess import automatic_guess
    from gaitopt.nlp_functions import NlpEvaluator
    from gaitopt.transcription import transcribe

    problem = go.load_problem(path)
    robot = robot_of(problem)
    shared = transcribe(problem, robot)
    calls = [mr for mr in shared.assembly.maps if mr.shared and mr.fn.name().startswith("call_impact_rows")]
    assert calls and all(mr.index.shape[1] == 1 for mr in calls)
    monkeypatch.setattr(junction, "_incoming_velocity", lambda ctx, p: None)
    inline = transcribe(problem, robot)
    assert not [mr for mr in inline.assembly.maps if mr.fn.name().startswith("call_impact_rows")]
    assert shared.rows == inline.rows and np.array_equal(shared.lbg, inline.lbg)
    x = automatic_guess(shared) + np.random.default_rng(2).normal(scale=1e-2, size=shared.lbx.size)
    values = []
    for tr in (shared, inline):
        A = tr.assembly
        ev = NlpEvaluator(A.n, A.ng, A.row_blocks(), A.cost_blocks())
        g, jac = np.zeros(A.ng), np.zeros(ev.jac_sparsity.nnz())
        ev.g(x, g)
        ev.jac_g(x, jac)
        values.append((g, np.asarray(ca.DM(ev.jac_sparsity, jac).full())))
    (g1, J1), (g2, J2) = values
    assert np.allclose(g1, g2, rtol=1e-12, atol=1e-10)
    assert np.allclose(J1, J2, rtol=1e-12, atol=1e-10)
