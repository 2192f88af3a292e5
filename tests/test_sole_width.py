"""Feet with a sole width (robot.yaml `feet.<foot>.width`): four corner points, the heel and the
toe each an edge. Checked on copies of the shipped HOAP-2 (3-D) with its Webots contact plate's
width (0.062 m): corner names, sides and the mirror map; refusals; the stance rows' rank; and a
small solved static walk whose stance corners rest on the ground with forces in their pyramids.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from types import SimpleNamespace

import casadi as ca
import numpy as np
import pinocchio as pin
import pytest

import gaitopt as go
from gaitopt.constraints.contact import ContactAtRest, sole_rows
from gaitopt.errors import InputError
from gaitopt.guess import automatic_guess
from gaitopt.transcription import transcribe

from gaitcheck import CONTACT_VEL_TOL, DRIFT_BOUND_TEST, FORCE_TOL, ROOT, TEST_SCALE, foothold_drift, quiet, solve_and_measure

WIDTH = 0.062  # m, HOAP-2's Webots foot contact plate (robots/hoap2/README.md)
LINE = "toe: [0.058, 0.0, 0.0]}"


def _copy(tmp, robot, old, new):
    """robots/<robot> copied under tmp with `old` replaced by `new` in its robot.yaml."""
    dst = tmp / robot
    shutil.copytree(ROOT / "robots" / robot, dst)
    text = (dst / "robot.yaml").read_text()
    assert old in text
    (dst / "robot.yaml").write_text(text.replace(old, new))
    return dst


@pytest.fixture(scope="module")
def sole_folder(tmp_path_factory):
    return _copy(tmp_path_factory.mktemp("sole"), "hoap2", LINE, LINE[:-1] + f", width: {WIDTH}}}")


@pytest.fixture(scope="module")
def robot(sole_folder):
    return go.load_robot(sole_folder)


@pytest.mark.fast
def test_corners_named_placed_and_mirrored(robot):
    """Four corners per foot at ±width/2 across the sole, inner nearer the sagittal plane at
    standing, and the mirror map pairs corners of the same role and side."""
    names = [c.name for c in robot.contacts]
    assert names == [f"{f}_{r}_{s}" for f in ("left", "right") for r in ("heel", "toe") for s in ("inner", "outer")]
    assert robot.feet["left"].contacts == tuple(names[:4])
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.standing_q)
    at = {c.name: data.oMf[c.frame_id].act(c.point) for c in robot.contacts}
    for foot in ("left", "right"):
        for role in ("heel", "toe"):
            inner, outer = at[f"{foot}_{role}_inner"], at[f"{foot}_{role}_outer"]
            assert abs(inner[1]) < abs(outer[1])
            np.testing.assert_allclose(np.linalg.norm(outer - inner), WIDTH, atol=1e-12)
            np.testing.assert_allclose([inner[2], outer[2]], 0.0, atol=1e-9)  # standing: sole on the ground
    partner = {names[i]: names[int(j)] for i, j in enumerate(robot.mirror.contact_perm)}
    assert partner["left_heel_outer"] == "right_heel_outer"
    assert partner["left_toe_inner"] == "right_toe_inner"
    assert all(partner[partner[n]] == n for n in names)
    for c in robot.contacts:  # the partner is the reflection y → −y at standing (symmetric posture)
        np.testing.assert_allclose(at[partner[c.name]], at[c.name] * [1, -1, 1], atol=1e-9)


@pytest.mark.fast
@pytest.mark.parametrize("robot_name, old, new, why", [
    ("hoap2_sagittal", LINE, LINE[:-1] + ", width: 0.06}", "3-D base"),
    ("bolt", None, None, "point foot"),
])
def test_width_refused(tmp_path, robot_name, old, new, why):
    """`width` on a sagittal robot or a point foot: one line naming file and field, exit 2."""
    if old is None:
        text = (ROOT / "robots" / robot_name / "robot.yaml").read_text()
        line = next(ln for ln in text.splitlines() if "point:" in ln and "{" in ln)
        old, new = line, line.replace("}", ", width: 0.02}", 1)
    folder = _copy(tmp_path, robot_name, old, new)
    if robot_name == "hoap2_sagittal":  # its URDF is ../hoap2/hoap2.urdf
        shutil.copytree(ROOT / "robots" / "hoap2", tmp_path / "hoap2")
    with pytest.raises(InputError) as err:
        go.load_robot(folder)
    msg = str(err.value)
    assert "\n" not in msg and "robot.yaml" in msg and ".width" in msg, msg
    run = subprocess.run([sys.executable, "-m", "gaitopt.cli", "robot", str(folder)], capture_output=True, text=True)
    assert run.returncode == 2, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and ".width" in run.stderr


@pytest.mark.fast
def test_soles_without_ankle_roll_warn(tmp_path, sole_folder):
    """Locking the ankle roll joints leaves the legs unable to turn one flat sole relative to
    the other about x: loading warns that the double-support rows are dependent (rank 11 of
    12); with the ankle roll free, no warning (every warning an error here)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        go.load_robot(sole_folder)
    folder = tmp_path / "hoap2"
    shutil.copytree(sole_folder, folder)
    text = (folder / "robot.yaml").read_text()
    text = text.replace("    - [LLEG_JOINT6, RLEG_JOINT6]\n", "").replace("LLEG_JOINT6, RLEG_JOINT6, ", "")
    (folder / "robot.yaml").write_text(text.replace("  LARM_JOINT5: 0.0\n", "  LARM_JOINT5: 0.0\n  LLEG_JOINT6: 0.0\n"
                                                    "  RLEG_JOINT6: 0.0\n"))
    with pytest.warns(UserWarning, match="rank 11 of 12"):
        go.load_robot(folder)


@pytest.mark.fast
def test_sole_rows_counts():
    """3 + 2 + 1 + 0 velocity components for four corners; a point on the line adds none."""
    a, b, c, d = (np.array(p, float) for p in ([0, 0, 0], [0, 0.06, 0], [0.1, 0, 0], [0.1, 0.06, 0]))
    assert [sole_rows([], a), sole_rows([a], b), sole_rows([a, b], c), sole_rows([a, b, c], d)] == [3, 2, 1, 0]
    assert sole_rows([a, b], 2 * b) == 0 and sole_rows([a], a) == 0


def _stance_jacobian(robot, q, points):
    """(Jacobian wrt v of the ContactAtRest rows of `points` all at rest, Jacobian of all
    their velocity components) at posture q (numeric, Pinocchio)."""
    model, data = robot.model, robot.model.createData()
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    names = [c.name for c in robot.contacts]
    v = ca.SX.sym("v", robot.nv)
    pos, vel, full = np.zeros((3, len(names))), ca.SX.zeros(3, len(names)), []
    for ci, c in enumerate(robot.contacts):
        M = data.oMf[c.frame_id]
        pos[:, ci] = M.act(c.point)
        J6 = pin.getFrameJacobian(model, data, c.frame_id, pin.LOCAL_WORLD_ALIGNED)
        J = J6[:3] - pin.skew(M.rotation @ c.point) @ J6[3:]
        vel[:, ci] = ca.mtimes(ca.DM(J), v)
        if c.name in points:
            full.append(J)
    ctx = SimpleNamespace(contact_names=names, robot=robot, comp=[0, 1, 2], sagittal=False)
    rows = ContactAtRest._rows(ctx, ca.DM(pos), vel, ContactAtRest._plan(ctx, points))
    return np.array(ca.evalf(ca.jacobian(rows, v))), np.vstack(full)


@pytest.mark.fast
@pytest.mark.parametrize("mode, n_rows", [("flat", 6), ("heel", 5), ("toe", 5)])
def test_stance_rows_independent(robot, mode, n_rows):
    """At standing, the velocity rows of a flat foot (heel edge, toe edge) have full row rank and
    imply all the corners' velocity components (rank of those = number of rows)."""
    points = [c.name for c in robot.contacts if c.foot == "left" and (mode == "flat" or c.role == mode)]
    J_rows, J_all = _stance_jacobian(robot, robot.standing_q, points)
    assert J_rows.shape[0] == n_rows
    assert np.linalg.matrix_rank(J_rows) == n_rows
    assert np.linalg.matrix_rank(J_all) == n_rows
    assert np.linalg.matrix_rank(np.vstack([J_rows, J_all])) == n_rows  # the same row space


@pytest.fixture(scope="module")
def static_walk(sole_folder, tmp_path_factory):
    text = (ROOT / "problems" / "hoap2_static_walk.yaml").read_text()
    path = tmp_path_factory.mktemp("problem") / "static_walk.yaml"
    path.write_text(text.replace("\nrobot: hoap2\n", f"\nrobot: {sole_folder}\n"))
    return quiet(go.load_problem(path).scaled_knots(TEST_SCALE))


def test_nlp_stance_rows_full_rank(static_walk, robot):
    """In the NLP at the automatic guess: the contact_velocity and contact_ground rows together
    have full row rank (no dependent equality rows for IPOPT), and a flat touchdown of a sole
    adds three ground rows, not four."""
    tr = transcribe(static_walk, robot)
    x0 = automatic_guess(tr)
    picked = [(t, p, a, b) for t, p, a, b in tr.rows if t in ("contact_velocity", "contact_ground")]
    idx = np.concatenate([np.arange(a, b) for *_, a, b in picked])
    g = tr.nlp["g"]
    J = ca.Function("J", [tr.x], [ca.jacobian(g[idx.tolist()], tr.x)])(x0).full()
    assert np.linalg.matrix_rank(J) == len(idx)
    ground = sum(b - a for t, _, a, b in picked if t == "contact_ground")
    assert ground == 3  # the swing foot lands flat (soft) once per half cycle: three heights


def test_solved_static_walk_corners(static_walk):
    """The solved walk: stance corners at rest at every collocation point, on the ground,
    every active corner's force with f_n ≥ 0 inside its friction pyramid (|f_x|, |f_y| ≤ μ/√2 f_n)."""
    s = solve_and_measure("hoap2_sole_static_walk", static_walk)
    assert s.result.success, s.result.message
    worst = 0.0
    for q, v, a, tau, f, act, label in s.kinematic:
        _, vel = s.pm.points(q, v)
        for ci, c in enumerate(s.robot.contacts):
            if c.name in act:
                worst = max(worst, float(np.linalg.norm(vel[ci])))
    assert worst <= CONTACT_VEL_TOL
    mu = static_walk.constraints.friction / np.sqrt(2.0)
    for q, v, a, tau, f, act, label in s.dynamic:
        for ci, c in enumerate(s.robot.contacts):
            if c.name in act:
                fx, fy, fn = f[ci]
                assert fn >= -FORCE_TOL and abs(fx) <= mu * fn + FORCE_TOL and abs(fy) <= mu * fn + FORCE_TOL, \
                    f"{c.name} at {label}: {f[ci]}"
            else:
                assert np.all(f[ci] == 0.0)
    # on the ground (≤ 1e-6 m) where each stance starts; between knots the position drifts by the
    # integration's second-order error (velocity-level contact, as every foot: 1.7 mm here)
    drift = foothold_drift(s, DRIFT_BOUND_TEST)
    print(f"stance corner speed ≤ {worst:.1e} m/s, drift {drift * 1e3:.3f} mm")


@pytest.mark.fast
def test_sole_outline_drawn(robot):
    """Stick figures and animations draw each sole as its outline: heel edge, outer side, toe
    edge, inner side (four segments between the corners)."""
    from gaitopt.quantities import Poses
    segs = {tuple(sorted(s)) for s in Poses(robot).segments}
    nj = robot.model.njoints - 1
    for foot in ("left", "right"):
        hi, ho, ti, to = (nj + robot.contact_index(f"{foot}_{n}") for n in ("heel_inner", "heel_outer", "toe_inner",
                                                                           "toe_outer"))
        assert {tuple(sorted(p)) for p in ((hi, ho), (ho, to), (to, ti), (ti, hi))} <= segs


@pytest.mark.parametrize("feet", [("left",), ("left", "right")], ids=["one_sole", "two_soles"])
def test_impact_map_on_soles_matches_pinocchio(robot, feet):
    """SymbolicDynamics.impact_map on a sole's four corners (one foot; both feet) keeps 6 rows
    per sole (3 + 2 + 1, `rigid_points.sole_rows`) and gives Pinocchio's impulseDynamics v⁺ with
    an independent (SVD-selected) set of the stacked corner rows; with 2 rows for each further
    corner its KKT matrix was singular (9 rows for a sole's 6 degrees of freedom)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_dynamics import close, contact_frame_model, random_states

    dyn = go.SymbolicDynamics.of_robot(robot)
    idx = [robot.contact_index(n) for f in feet for n in robot.feet[f].contacts]
    assert dyn.independent_contact_rows(idx).shape[0] == 6 * len(feet)
    fn = dyn.impact_map(idx)
    model, data, frames = contact_frame_model(robot)
    for k, (q, v, _, _) in enumerate(random_states(robot, 3, 7)):
        J = np.vstack([pin.computeFrameJacobian(model, data, q, frames[i], pin.LOCAL_WORLD_ALIGNED)[:3] for i in idx])
        U, s, _ = np.linalg.svd(J)
        Jr = U[:, :int(np.sum(s > 1e-9 * s[0]))].T @ J
        v_ref = pin.impulseDynamics(model, data, q, v, Jr, 0.0, 0.0).copy()
        v_plus = np.asarray(fn(q, v)[0]).ravel()
        close(v_plus, v_ref, f"impact_map v+ on soles {feet} state {k}", 1e-6)


@pytest.mark.fast
@pytest.mark.parametrize("bump, rows", [(0.004, 4), (0.0, 3)])
def test_sole_on_height_map_sets_all_four_corner_heights(sole_folder, tmp_path, robot, bump, rows):
    """On a height map three corners on the ground do not put a rigid sole's fourth there (the
    surface under it is curved; a strider trial, 2026-11-25, rested one corner 1.1 mm inside):
    a flat touchdown adds four independent ground rows there; three on a constant map, as on a
    plane (above), where the fourth would be a dependent row."""
    text = (ROOT / "problems" / "hoap2_static_walk.yaml").read_text()
    # varies across the walk only (periodic for any advance), symmetric in y (the mirror map)
    bumps = ("terrain:\n  height_map: {origin: [0.0, -0.1], spacing: [0.1, 0.05], "
             f"heights: [[0.0, {bump}, 0.0, {bump}], [0.0, {bump}, 0.0, {bump}]]}}\ncost:")
    path = tmp_path / "static_walk_map.yaml"
    path.write_text(text.replace("\nrobot: hoap2\n", f"\nrobot: {sole_folder}\n").replace("\ncost:", "\n" + bumps, 1))
    problem = quiet(go.load_problem(path).scaled_knots(TEST_SCALE))
    tr = transcribe(problem, robot)
    x0 = automatic_guess(tr)
    picked = [(a, b) for t, _, a, b in tr.rows if t == "contact_ground"]
    assert sum(b - a for a, b in picked) == rows
    idx = np.concatenate([np.arange(a, b) for a, b in picked]).tolist()
    J = ca.Function("J", [tr.x], [ca.jacobian(tr.nlp["g"][idx], tr.x)])(x0).full()
    assert np.linalg.matrix_rank(J) == rows


@pytest.mark.fast
def test_sole_on_stairs_keeps_its_corners_on_one_tread(sole_folder, tmp_path, robot):
    """On steps every corner of a landing sole is on the tread of the foot's first point (rows
    foothold_tread, |Δh| ≤ ½ rise): each corner on the ground and on a flat tread is not enough (a
    strider trial, 2026-11-25, stood a 0.22 m sole on a 0.2 m run, heel on one tread and toe on
    the next, through the nose). Here the run (37.5 mm) is shorter than the sole (≈ 0.1 m): the
    automatic guess's soles straddle edges, which the rows measure."""
    text = (ROOT / "problems" / "hoap2_static_walk.yaml").read_text()
    stair = "terrain:\n  stairs: {rise: 0.01, run: 0.0375, count: 40, start_x: -0.75}\ncost:"
    path = tmp_path / "static_walk_stairs.yaml"
    path.write_text(text.replace("\nrobot: hoap2\n", f"\nrobot: {sole_folder}\n").replace("\ncost:", "\n" + stair, 1))
    tr = transcribe(quiet(go.load_problem(path).scaled_knots(TEST_SCALE)), robot)
    picked = [(a, b) for t, _, a, b in tr.rows if t == "foothold_tread"]
    assert sum(b - a for a, b in picked) == 3  # one flat touchdown per half cycle: three corners vs the first
    idx = np.concatenate([np.arange(a, b) for a, b in picked])
    np.testing.assert_allclose(tr.ubg[idx], 0.005)
    g = np.asarray(ca.Function("g", [tr.x], [tr.nlp["g"]])(automatic_guess(tr))).ravel()[idx]
    assert np.max(np.abs(g)) > 0.005  # a straddling sole violates them
