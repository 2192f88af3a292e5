"""Exports that other programs read (issue 21, item 2), checked with the consumers' own tools:

* the MJCF model (`gaitopt export --format mjcf`), loaded by plain `mujoco.MjModel.from_xml_path`:
  its size, armature, torque limits and keyframes against the result; MuJoCo's inverse dynamics
  at the keyframes reproduces the planned torques; and the keyframes replayed with feedforward
  torque + a joint PD walk the planned distance without falling;
* the reference motion (`--format amp`), read by the motion_imitation format's rules: frame
  length, unit quaternions, FrameDuration × (frames − 1) = period, the wrap continuity with the
  cycle shift, and the root orientation against MuJoCo's for the same posture.

The checking code uses mujoco, json and numpy only (no gaitopt import) on the written files.
Solves at test size with Hermite–Simpson, whose knots are collocation points (trapezoidal
knots carry interval means, where the equations of motion are not imposed).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

ROOT = Path(__file__).resolve().parent.parent
CASES = {"biped7_static": "biped7_static_walk.yaml", "solo12_trot": "solo12_trot.yaml"}
# The file reproduces MuJoCo's own compile of the URDF digit for digit, and MuJoCo's mass matrix
# agrees with Pinocchio's to rounding on these robots: measured at the keyframes of the optimised
# phases 7e-16 (biped7), 4e-11 (Solo-12). (On bolt and ANYmal C MuJoCo's diagonalised link
# inertias leave 2e-4 and 3e-5: docs/export.md.)
INVERSE_RTOL = 1e-8
# the mirrored half of a left/right asymmetric robot holds the equations of motion only to its
# asymmetry (Solo-12's URDF: 1.4e-4, tests/test_export_selfcontained.py)
MIRRORED_RTOL = 1e-3
DISTANCE_RTOL = 0.10  # two cycles replayed with a 20 Hz PD: biped7 1.5 %, Solo-12 1.1 % measured


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """case → (Result, MJCF path, motion JSON path, trajectory.csv path)."""
    import gaitopt as go
    from gaitopt import export as E
    out = {}
    for case, problem in CASES.items():
        p = go.load_problem(ROOT / "problems" / problem).scaled_knots(0.5).replace(transcription="hermite_simpson")
        r = go.solve(p, print_level=0)
        assert r.success, (case, r.status)
        d = tmp_path_factory.mktemp(case)
        E.save(r, d)
        xml = E.export(r, "mjcf", outdir=d)["export"]
        motion = E.export(r, "amp", outdir=d, rate_hz=60.0)["export"]
        out[case] = (r, xml, motion, d / "trajectory.csv")
    return out


# ------------------------------------------------------------ reading the files as consumers do


def custom(m, kind: str, name: str):
    """A custom numeric (array) or text (str) field of an MjModel."""
    obj = {"numeric": mujoco.mjtObj.mjOBJ_NUMERIC, "text": mujoco.mjtObj.mjOBJ_TEXT}[kind]
    i = mujoco.mj_name2id(m, obj, name)
    assert i >= 0, name
    if kind == "numeric":
        return np.array(m.numeric_data[m.numeric_adr[i]:m.numeric_adr[i] + m.numeric_size[i]])
    raw = m.text_data[m.text_adr[i]:m.text_adr[i] + m.text_size[i] - 1]
    return raw.decode() if isinstance(raw, bytes) else bytes(raw).decode()


def knot_rows(csv_path):
    """trajectory.csv's knot rows as dicts of floats (phase kept as text)."""
    import csv
    lines = [ln for ln in Path(csv_path).read_text().splitlines() if not ln.startswith("#")]
    return [{k: (v if k in ("phase", "point") else float(v)) for k, v in r.items()}
            for r in csv.DictReader(lines) if r["point"] == "knot"]


def load(xml):
    m = mujoco.MjModel.from_xml_path(str(xml))
    return m, mujoco.MjData(m), json.loads(custom(m, "text", "gaitopt"))


# ------------------------------------------------------------------------------------ MJCF


@pytest.mark.parametrize("case", list(CASES))
def test_mjcf_model_matches_the_result(exported, case):
    r, xml, _, _ = exported[case]
    m, d, info = load(xml)
    robot, kn = r.robot, r.trajectory.knots()
    assert m.nq == m.nv == robot.nv and m.nu == len(robot.actuated) and m.nkey == len(kn["time"])
    assert [m.actuator(i).name for i in range(m.nu)] == robot.actuated
    for i, j in enumerate(robot.actuated):
        dof = m.jnt_dofadr[m.joint(j).id]
        assert m.dof_armature[dof] == pytest.approx(robot.actuators[j].reflected_inertia, rel=1e-12)
        bound = info["torque_bounds"][j]
        assert np.allclose(m.actuator_ctrlrange[i], [-bound, bound]) and m.actuator_ctrllimited[i]
        assert np.allclose(m.actuator_forcerange[i], [-bound, bound]) and m.actuator_forcelimited[i]
    # the file holds every digit: it loads into the very model MuJoCo compiles from the URDF
    # (gaitopt.verify's, with these motors)
    from gaitopt.export.mjcf import mjcf_spec
    _, compiled = mjcf_spec(r)
    for field in ("body_mass", "body_inertia", "body_ipos", "body_iquat", "body_pos", "body_quat", "jnt_axis",
                  "dof_armature", "geom_pos", "site_pos", "actuator_ctrlrange"):
        np.testing.assert_array_equal(getattr(m, field), getattr(compiled, field), err_msg=field)
    assert custom(m, "numeric", "gaitopt_period")[0] == pytest.approx(r.trajectory.period, rel=1e-12)
    np.testing.assert_allclose(custom(m, "numeric", "gaitopt_key_time"), kn["time"], rtol=0, atol=1e-12)
    qadr = [m.jnt_qposadr[m.joint(c).id] for c in robot.coordinates]
    dadr = [m.jnt_dofadr[m.joint(c).id] for c in robot.coordinates]
    np.testing.assert_allclose(m.key_qpos[:, qadr], kn["q"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(m.key_qvel[:, dadr], kn["v"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(m.key_ctrl, kn["tau"], rtol=0, atol=1e-12)
    # the floor's friction is the problem's; at key 0 the contact spheres of the stance points
    # touch it (gap below a micrometre), the others are not below it (their spheres are placed
    # for the foot's stance orientation: a point foot's sphere may dip tens of µm while it swings).
    # A micrometre: MuJoCo's XML writer keeps 6 significant digits of the body placements
    assert m.geom("floor").friction[0] == pytest.approx(r.problem.constraints.friction)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    stance = info["phases"][0]["contacts"]
    for c in info["contacts"]:
        gap = mujoco.mj_geomDistance(m, d, m.geom("floor").id, m.geom(f"foot_{c}").id, 1.0, None)
        if c in stance:
            assert abs(gap) < 1e-6, (c, gap)  # the sphere touches the floor at the contact point
        else:  # a swinging point (at key 0 maybe just lifting off) is not below the floor
            normal = np.array(info["terrain"]["normal"])
            assert normal @ d.site_xpos[m.site(f"contact_{c}").id] > -1e-6, c


def inverse_residuals(xml, csv_path) -> dict:
    """{False: optimised phases, True: mirrored half} → the largest residual, relative to the
    key's largest generalised force, of mj_inverse (contacts off) at each keyframe with the
    planned acceleration, minus the planned contact forces through MuJoCo's site Jacobians,
    against the keyframe's ctrl."""
    m, d, info = load(xml)
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    rows = knot_rows(csv_path)
    assert len(rows) == m.nkey
    mirrored = {p["name"] for p in info["phases"] if p["mirror_of"]}
    act_dof = [m.jnt_dofadr[m.actuator_trnid[i, 0]] for i in range(m.nu)]
    jac = np.zeros((3, m.nv))
    worst = {False: 0.0, True: 0.0}
    for k, row in enumerate(rows):
        mujoco.mj_resetDataKeyframe(m, d, k)
        for c in info["coordinates"]:
            d.qacc[m.jnt_dofadr[m.joint(c).id]] = row[f"a.{c}"]
        mujoco.mj_inverse(m, d)
        contact = np.zeros(m.nv)
        for c in info["contacts"]:
            mujoco.mj_jacSite(m, d, jac, None, m.site(f"contact_{c}").id)
            contact += jac.T @ np.array([row[f"f.{c}.{ax}"] for ax in "xyz"])
        tau = np.zeros(m.nv)
        tau[act_dof] = m.key_ctrl[k]
        scale = max(np.abs(d.qfrc_inverse).max(), np.abs(contact).max(), 1.0)
        rel = np.abs(d.qfrc_inverse - contact - tau).max() / scale
        worst[row["phase"] in mirrored] = max(worst[row["phase"] in mirrored], rel)
    return worst


@pytest.mark.parametrize("case", list(CASES))
def test_mjcf_inverse_dynamics_reproduces_planned_torques(exported, case):
    _, xml, _, csv_path = exported[case]
    worst = inverse_residuals(xml, csv_path)
    print(f"\n{case}: mj_inverse vs planned torques, max relative residual {worst[False]:.2e} "
          f"(mirrored half {worst[True]:.2e})")
    assert worst[False] < INVERSE_RTOL and worst[True] < MIRRORED_RTOL


def replay(m, d, cycles: int, pd_hz: float = 20.0):
    """Step from key 0 with ctrl = keyframe torque + PD on the keyframe qpos/qvel (linear between
    keyframes, the base advancing by the stride each cycle), gains on the mass matrix diagonal at
    key 0. Returns (base height (steps,), base x advance [m])."""
    T, stride = custom(m, "numeric", "gaitopt_period")[0], custom(m, "numeric", "gaitopt_stride")[0]
    kt = custom(m, "numeric", "gaitopt_key_time")
    act_q = np.array([m.jnt_qposadr[m.actuator_trnid[i, 0]] for i in range(m.nu)])
    act_v = np.array([m.jnt_dofadr[m.actuator_trnid[i, 0]] for i in range(m.nu)])
    ix, iz = (m.jnt_qposadr[m.joint(n).id] for n in ("base_x", "base_z"))
    mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    w = 2 * np.pi * pd_hz
    kp, kd = np.diag(M)[act_v] * w ** 2, 2 * np.diag(M)[act_v] * w
    x0, heights = d.qpos[ix], []
    for _ in range(int(round(cycles * T / m.opt.timestep))):
        n, tc = divmod(d.time, T)
        k = int(np.clip(np.searchsorted(kt, tc, side="right") - 1, 0, len(kt) - 2))
        s = (tc - kt[k]) / (kt[k + 1] - kt[k]) if kt[k + 1] > kt[k] else 0.0
        q, v, u = ((1 - s) * a[k] + s * a[k + 1] for a in (m.key_qpos, m.key_qvel, m.key_ctrl))
        d.ctrl[:] = u + kp * (q[act_q] - d.qpos[act_q]) + kd * (v[act_v] - d.qvel[act_v])
        mujoco.mj_step(m, d)
        heights.append(d.qpos[iz])
    return np.array(heights), d.qpos[ix] - x0, n * stride


@pytest.mark.parametrize("case", list(CASES))
def test_mjcf_replay_walks_the_plan(exported, case):
    r, xml, _, _ = exported[case]
    m, d, _ = load(xml)
    heights, advance, _ = replay(m, d, cycles=2)
    planned = 2 * r.trajectory.stride
    z_plan = r.trajectory.knots()["q"][:, r.robot.index("base_z")]
    print(f"\n{case}: 2 cycles replayed from the MJCF: advance {advance:.4f} m vs planned {planned:.4f} m, "
          f"base height {heights.min():.4f}..{heights.max():.4f} m (plan {z_plan.min():.4f}..{z_plan.max():.4f})")
    assert heights.min() > 0.8 * z_plan.min()  # did not fall
    assert abs(advance - planned) < DISTANCE_RTOL * planned


# ---------------------------------------------------------------------------- motion JSON


@pytest.mark.parametrize("case", list(CASES))
def test_motion_json_follows_the_format_rules(exported, case):
    r, xml, motion, _ = exported[case]
    clip = json.loads(Path(motion).read_text())
    assert clip["LoopMode"] == "Wrap" and clip["MotionWeight"] == 1.0
    assert clip["EnableCycleOffsetPosition"] is True and clip["EnableCycleOffsetRotation"] is True
    frames = np.array(clip["Frames"])
    joints = clip["gaitopt"]["columns"][7:]
    assert joints == list(r.robot.joints) and frames.shape[1] == 3 + 4 + len(joints)
    # the readers' duration: FrameDuration × (frames − 1) is the period; about 60 frames per second
    assert clip["FrameDuration"] * (len(frames) - 1) == pytest.approx(r.trajectory.period, rel=1e-12)
    assert len(frames) - 1 == round(60.0 * r.trajectory.period)
    np.testing.assert_allclose(np.linalg.norm(frames[:, 3:7], axis=1), 1.0, atol=1e-12)
    assert np.all(frames[:, 6] >= 0)
    # wrap: the last frame is the first one moved by the cycle shift (the stride along x; the
    # readers' cycle offset is this horizontal delta) with the same orientation and joints
    shift = frames[-1] - frames[0]
    assert shift[0] == pytest.approx(r.trajectory.stride, abs=1e-9)
    np.testing.assert_allclose(shift[1:], 0.0, atol=1e-9)
    # frames are the gait: the joint angles at frame i are the plan at i·dt
    t = np.arange(len(frames)) * clip["FrameDuration"]
    q = r.sample(t)["q"]
    np.testing.assert_allclose(frames[:, 7:], q[:, [r.robot.index(j) for j in joints]], rtol=0, atol=1e-12)
    # the root pose against MuJoCo's root body for the same qpos (MJCF export, quaternion w, x, y, z)
    m, d, _ = load(xml)
    root = m.body(m.jnt_bodyid[m.joint("base_x").id]).id
    for i in range(0, len(frames), 7):
        d.qpos[[m.jnt_qposadr[m.joint(c).id] for c in r.robot.coordinates]] = q[i]
        mujoco.mj_kinematics(m, d)
        np.testing.assert_allclose(frames[i, :3], d.xpos[root], atol=1e-12)
        quat = frames[i, [6, 3, 4, 5]]
        assert min(np.abs(quat - d.xquat[root]).max(), np.abs(quat + d.xquat[root]).max()) < 1e-12


def test_motion_json_cycles(exported, tmp_path):
    """--cycles N: N·round(period·rate) + 1 frames, the last one N strides ahead of the first."""
    from gaitopt import export as E
    r = exported["solo12_trot"][0]
    clip = json.loads(E.export(r, "amp", tmp_path / "m.json", rate_hz=40.0, cycles=3)["export"].read_text())
    frames = np.array(clip["Frames"])
    assert len(frames) == 3 * round(40.0 * r.trajectory.period) + 1 and clip["gaitopt"]["cycles"] == 3
    assert clip["FrameDuration"] * (len(frames) - 1) == pytest.approx(3 * r.trajectory.period, rel=1e-12)
    assert frames[-1, 0] - frames[0, 0] == pytest.approx(3 * r.trajectory.stride, abs=1e-9)
    np.testing.assert_allclose(frames[-1, 1:], frames[0, 1:], atol=1e-9)
