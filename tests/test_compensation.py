"""Jacobi compensation (gaitopt.compensation): the step against the formula with Pinocchio's own
Jacobians, the corrected gait's CoM moved by Δp with every contact point where it was planned,
a zero correction returning the plan exactly, and the CLI step."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import gaitopt as go
from gaitopt.compensation import Correction, compensate, jacobi_step
from gaitopt.export import load_result, save
from gaitopt.schedule import active_points

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "problems" / "biped7_static_walk.yaml"


def _point_jacobian(model, data, contact, q):
    """World-aligned linear Jacobian (3 × nv) of a contact point, from Pinocchio's frame Jacobian."""
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    J = pin.getFrameJacobian(model, data, contact.frame_id, pin.LOCAL_WORLD_ALIGNED)
    r = data.oMf[contact.frame_id].rotation @ contact.point
    return J[:3] - pin.skew(r) @ J[3:]


def _point_positions(model, data, robot, q):
    pin.framesForwardKinematics(model, data, q)
    return np.array([data.oMf[c.frame_id].act(c.point) for c in robot.contacts])


def _com(model, data, q):
    return pin.centerOfMass(model, data, q).copy()


@pytest.fixture(scope="module")
def static_walk():
    problem = go.load_problem(STATIC).scaled_knots(0.5)
    result = go.solve(problem, print_level=0)
    assert result.success, result.message
    return result


@pytest.mark.fast
def test_step_is_the_formula_with_pinocchio_jacobians():
    """Δq = N (J_com N)⁺ Δp: J_com Δq = Δp and J_c Δq = 0 with Pinocchio's Jacobians, the step is the
    minimum-norm solution of the stacked system, and moving by it changes the CoM by Δp to first
    order (the error shrinks as Δp²)."""
    robot = go.load_robot("biped7")
    model, data = robot.model, robot.model.createData()
    q = robot.standing_q.copy()
    q[robot.index("left_knee")] += 0.3  # a bent posture, away from straight-knee singularities
    held = ["left_heel", "left_toe"]
    dq = jacobi_step(robot, q, held, 1e-2, "com", "x")
    Jcom = pin.jacobianCenterOfMass(model, data, q)
    Jc = np.vstack([_point_jacobian(model, data, c, q)[[0, 2]] for c in robot.contacts if c.name in held])
    assert Jcom[0] @ dq == pytest.approx(1e-2, rel=1e-9)
    assert np.abs(Jc @ dq).max() < 1e-12
    A = np.vstack([Jc, Jcom[:1]])
    assert np.allclose(dq, np.linalg.pinv(A) @ np.r_[np.zeros(len(Jc)), 1e-2], atol=1e-12)
    errors = []
    for dp in (1e-3, 1e-4):
        step = jacobi_step(robot, q, held, dp, "com", "x")
        moved = _com(model, data, q + step) - _com(model, data, q)
        errors.append(abs(moved[0] - dp))
        feet = _point_positions(model, data, robot, q + step) - _point_positions(model, data, robot, q)
        assert np.abs(feet[:2][:, [0, 2]]).max() < 10 * dp ** 2
    assert errors[1] < errors[0] / 50  # second order: 100× smaller for 10× smaller Δp


@pytest.mark.fast
def test_zero_correction_is_the_identity(static_walk):
    out, report = compensate(static_walk, Correction(), "com", "x")
    for new, old in zip(out.trajectory.phases, static_walk.trajectory.phases):
        for key in ("q", "v", "a", "tau", "f"):
            assert np.array_equal(getattr(new, key), getattr(old, key)), (new.name, key)
        for key in ("q", "v", "a", "tau", "f"):
            assert np.array_equal(new.mid[key], old.mid[key]), (new.name, "mid", key)
    assert report.max_joint_change == 0.0 and report.contact_drift == 0.0


def test_offset_moves_the_com_and_keeps_every_contact(static_walk):
    """A 1 cm CoM offset: at every knot the CoM (Pinocchio) is 1 cm ahead of the plan's, every
    contact point (stance and swing) where it was planned, the base attitude as planned; the
    state is continuous at the phase junctions, stance points are at rest, and the re-solved
    forces balance the unactuated rows of Pinocchio's equations of motion at the midpoints."""
    robot = static_walk.robot
    model, data = robot.model, robot.model.createData()
    out, report = compensate(static_walk, Correction(offset=0.01), "com", "x")
    assert report.task_error < 1e-9 and report.contact_drift < 1e-9 and report.base_residual < 1e-6
    pitch = robot.index("base_pitch")
    un = np.setdiff1d(np.arange(robot.nv), robot.actuated_index)
    for new, old in zip(out.trajectory.phases, static_walk.trajectory.phases):
        stance = [i for i, c in enumerate(robot.contacts) if c.name in active_points(robot, new.modes)]
        for k in range(len(new.t)):
            com = _com(model, data, new.q[k]) - _com(model, data, old.q[k])
            assert com[0] == pytest.approx(0.01, abs=1e-9)
            feet = _point_positions(model, data, robot, new.q[k]) - _point_positions(model, data, robot, old.q[k])
            assert np.abs(feet[:, [0, 2]]).max() < 1e-9
            assert new.q[k, pitch] == pytest.approx(old.q[k, pitch], abs=1e-12)
            for i in stance:
                vel = _point_jacobian(model, data, robot.contacts[i], new.q[k]) @ new.v[k]
                assert np.abs(vel[[0, 2]]).max() < 1e-8
        for k in range(len(new.t) - 1):  # the equations of motion hold at the trapezoidal midpoints
            m = {key: new.mid[key][k] for key in ("q", "v", "a", "f")}
            tau = pin.rnea(model, data, m["q"], m["v"], m["a"])
            for i in stance:
                tau -= _point_jacobian(model, data, robot.contacts[i], m["q"]).T @ m["f"][i]
            assert np.abs(tau[un]).max() < 1e-6
    phases, old = out.trajectory.phases, static_walk.trajectory.phases
    lift_offs = 0
    for a, b, a0, b0 in zip(phases[:-1], phases[1:], old[:-1], old[1:]):
        assert np.allclose(a.q[-1], b.q[0], atol=1e-12)
        if np.allclose(a0.v[-1], b0.v[0], atol=1e-9):  # no impact there: v stays continuous
            lift_offs += 1
            assert np.allclose(a.v[-1], b.v[0], atol=1e-4)  # to the time differencing of Δq
    assert lift_offs >= 1
    assert np.abs(phases[-1].q[-1] + 0 - (phases[0].q[0] + out.trajectory.base_shift)).max() < 1e-9


def test_first_order_agrees_with_the_step(static_walk):
    """For a small Δp, the corrected posture at a knot is the plan's plus jacobi_step's Δq (every
    contact point held, the attitude held)."""
    robot = static_walk.robot
    dp = 1e-5
    out, _ = compensate(static_walk, Correction(offset=dp), "com", "x")
    names = [c.name for c in robot.contacts]
    for new, old in zip(out.trajectory.phases[:2], static_walk.trajectory.phases[:2]):
        for k in (0, len(new.t) // 2):
            step = jacobi_step(robot, old.q[k], names, dp, "com", "x", hold_attitude=True)
            assert np.allclose(new.q[k] - old.q[k], step, rtol=0, atol=1e-3 * np.abs(step).max())


def _digest(d: Path) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.iterdir())}


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "gaitopt.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_cli_writes_a_new_result_and_refuses_bad_input(static_walk, tmp_path):
    src, out = tmp_path / "plan", tmp_path / "compensated"
    save(static_walk, src)
    before = _digest(src)
    proc = _cli("compensate", src, "--point", "base", "--axis", "x", "--amplitude", "0.005", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert _digest(src) == before
    res = load_result(out)
    assert (out / "compensation.json").is_file()
    # not the solver's point: the reloaded result carries no x, multipliers or impulses of the plan
    assert res.x is None and res.multipliers is None and res.impulses == {}
    robot = res.robot
    dx = [p.q[:, robot.index("base_x")] - o.q[:, robot.index("base_x")]
          for p, o in zip(res.trajectory.phases, static_walk.trajectory.phases)]
    times = np.concatenate([p.t for p in res.trajectory.phases])
    want = 0.005 * np.sin(2 * np.pi * times / res.trajectory.period)
    assert np.allclose(np.concatenate(dx), want, atol=1e-9)
    bad_samples = tmp_path / "dp.csv"
    bad_samples.write_text("0, 0.001\n0.0, 0.002\n")
    for args, field in ((["--axis", "w"], "--axis"), (["--offset", "nan"], "--offset"),
                        (["--offset", "0.5"], "--offset"), (["--axis", "y"], "axis"),
                        (["--point", "no_such_frame"], "point"), (["--samples", bad_samples], "--samples"),
                        (["--harmonic", "0"], "--harmonic")):
        proc = _cli("compensate", src, *args, "-o", tmp_path / "x")
        assert proc.returncode == 2, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1 and field in proc.stderr, (args, proc.stderr)
    proc = _cli("compensate", src, "--offset", "0.01", "-o", src)
    assert proc.returncode == 2 and "overwrite" in proc.stderr
    assert _digest(src) == before


def test_hermite_simpson_midpoints_are_corrected_too():
    """Hermite–Simpson keeps its midpoint states: they are corrected like the knots (the CoM
    1 cm ahead, the stance points where planned), and Δp = 0 returns the plan exactly."""
    problem = go.load_problem(STATIC, {"transcription": "hermite_simpson"}).scaled_knots(0.5)
    result = go.solve(problem, print_level=0)
    assert result.success, result.message
    robot = result.robot
    model, data = robot.model, robot.model.createData()
    same, _ = compensate(result, Correction(), "com", "x")
    out, report = compensate(result, Correction(offset=0.01), "com", "x")
    assert report.contact_drift < 1e-9
    for new, old, zero in zip(out.trajectory.phases, result.trajectory.phases, same.trajectory.phases):
        for key in ("q", "v", "a", "tau", "f"):
            assert np.array_equal(zero.mid[key], old.mid[key])
        stance = [i for i, c in enumerate(robot.contacts) if c.name in active_points(robot, new.modes)]
        for k in range(len(new.t) - 1):
            com = _com(model, data, new.mid["q"][k]) - _com(model, data, old.mid["q"][k])
            assert com[0] == pytest.approx(0.01, abs=1e-9)
            feet = (_point_positions(model, data, robot, new.mid["q"][k])
                    - _point_positions(model, data, robot, old.mid["q"][k]))
            assert np.abs(feet[stance][:, [0, 2]]).max() < 1e-9


@pytest.mark.fast
def test_friction_use_is_the_plans_cone_about_the_local_normal():
    """friction_use judges a force as constraints.contact.friction_rows does, in the terrain
    frame at the foothold: the pyramid's corner (|f_t1| = |f_t2| = μ/√2 · f_n) and the cone's
    rim are 1; a tangential force μ f_n along t1 is √2 of the 3-D pyramid and 1 of the cone
    and of the sagittal bound; on a height map the frame is the surface's, not the plane's."""
    from gaitopt.quantities import friction_use
    from gaitopt.terrain import HeightMap

    grid = np.array([[0.0, 0.02], [0.03, -0.01], [0.01, 0.0]])
    surface = HeightMap((0.0, 0.0), (0.1, 0.1), tuple(map(tuple, grid)))
    p = np.array([0.137, 0.05, 0.0])
    n = surface.normal(p[0], p[1])
    assert abs(n[0]) > 0.05  # a tilted foothold: the plane's normal would judge it wrongly
    t1 = np.array([n[2], 0.0, -n[0]]) / np.hypot(n[0], n[2])
    t2 = np.cross(n, t1)
    mu, fn = 0.7, 40.0
    corner = fn * n + mu / np.sqrt(2) * fn * (t1 - t2)
    along = fn * n + mu * fn * t1
    assert friction_use(surface, p, corner, mu, "pyramid") == pytest.approx(1.0, rel=1e-12)
    assert friction_use(surface, p, corner, mu, "cone") == pytest.approx(1.0, rel=1e-12)
    assert friction_use(surface, p, along, mu, "pyramid") == pytest.approx(np.sqrt(2), rel=1e-12)
    assert friction_use(surface, p, along, mu, "cone") == pytest.approx(1.0, rel=1e-12)
    assert friction_use(surface, p, along, mu, "pyramid", sagittal=True) == pytest.approx(1.0, rel=1e-12)
    assert friction_use(surface, p, 5.0 * t1, mu) == np.inf and friction_use(surface, p, 0.0 * t1, mu) == 0.0
    # about the world z axis the same force reads differently (the old check's error)
    plane_ratio = np.hypot(along[0], along[1]) / along[2]
    assert abs(plane_ratio / mu - 1.0) > 0.05


def test_compensation_reports_friction_use_of_the_plans_cone(static_walk, tmp_path):
    """The plan itself (Δp = 0) is inside its own cone (use ≤ 1 to the solver's tolerance);
    μ scaled down so that the same forces need 1.5 of it: the use is 1.5, the report has a
    note and the CLI prints it, exit 0."""
    from dataclasses import replace

    _, report = compensate(static_walk, Correction(), "com", "x")
    assert 0.1 < report.friction_use <= 1.0 + 1e-6
    cons = static_walk.problem.constraints
    scale = report.friction_use / 1.5
    low_mu = replace(static_walk, problem=replace(static_walk.problem,
                                                  constraints=replace(cons, friction=cons.friction * scale)))
    _, low = compensate(low_mu, Correction(), "com", "x")
    assert low.friction_use == pytest.approx(1.5, rel=1e-9)
    assert low.friction_ratio == pytest.approx(report.friction_ratio, rel=1e-12)
    assert not report.notes and any("friction_use" in note for note in low.notes)
    src = tmp_path / "plan"
    save(low_mu, src)
    proc = _cli("compensate", src, "--offset", "0", "-o", tmp_path / "out")
    # written, with the notes, and exit 1: the gait leaves the friction the plan allows
    assert proc.returncode == 1, proc.stderr
    assert "150 % of the plan's friction pyramid" in proc.stdout
    assert "note: the forces leave the plan's friction pyramid" in proc.stdout
    assert "not physically consistent (friction_use" in proc.stderr and (tmp_path / "out" / "compensation.json").is_file()
    assert report.broken() == [] and low.broken() == ["friction_use"]


def test_friction_use_is_of_the_forces_written():
    """The report judges the forces the compensated gait holds, not the re-solved ones before
    the plan's are added back: a hexapod tripod (trapezoidal: knot forces are interval means, so
    the re-solve moves them) at zero correction is its plan, inside its pyramid, not broken
    (it read 104 % and exit 1); a 1 mm shift that leaves it says so with four digits."""
    from gaitopt.quantities import friction_use
    from gaitopt.terrain_io import surface_of

    plan = go.solve(go.load_problem(ROOT / "problems" / "hexapod_tripod.yaml").scaled_knots(0.5), print_level=0)
    assert plan.success, plan.message
    out, report = compensate(plan, Correction(), "com", "x")
    assert report.broken() == [] and report.friction_use <= 1.0 + 1e-6
    robot, cons = plan.robot, plan.problem.constraints
    model, data = robot.model, robot.model.createData()
    written = 0.0
    for p in out.trajectory.phases:
        stance = [j for j, c in enumerate(robot.contacts) if c.name in active_points(robot, p.modes)]
        for q, f in zip(np.concatenate([p.q, p.mid["q"]]), np.concatenate([p.f, p.mid["f"]])):
            pos = _point_positions(model, data, robot, q)[stance]
            written = max(written, friction_use(surface_of(plan.problem), pos, f[stance], cons.friction,
                                                cons.cone).max())
    assert report.friction_use == pytest.approx(written, rel=1e-6)
    _, shifted = compensate(plan, Correction(offset=0.001), "com", "x")
    if shifted.broken() == ["friction_use"]:
        assert f"{100 * shifted.friction_use:.4g} %" in shifted.notes[0]


def test_report_is_strict_json_when_a_stance_point_pulls():
    """A correction the contacts cannot follow (a new user's `--point FL_foot` on a Go2 bound)
    leaves a stance point with tangential but no normal force: friction ratio and use are
    infinite, and compensation.json held `Infinity`, which strict JSON readers refuse. They
    are null now."""
    import json

    from gaitopt.compensation import CompensationReport
    rep = CompensationReport("FL_foot", "x", 0.01, 1e-15, 1e-14, 681.0, float("inf"), 1.04, 0.78,
                             friction_use=np.float64(np.inf))
    d = rep.to_dict()
    assert d["friction_ratio"] is None and d["friction_use"] is None and d["base_residual"] == 681.0
    assert rep.broken() == ["friction_use", "limit_excess", "base_residual"]
    json.dumps(d, allow_nan=False)
