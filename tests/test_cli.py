"""`gaitopt` on the command line, in a subprocess: exit codes, files and their contracts
(README: exit codes, trajectory.csv format version 2, result.json)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
import yaml

from gaitopt.export import read_trajectory_csv

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "problems" / "biped7_static_walk.yaml"
HEEL_TOE = ROOT / "problems" / "biped7_heel_toe_walk.yaml"
# a small, fast solve: 8 + 3 intervals per half cycle (the file's knots × 0.5)
SMALL = ["--set", "gait.phases.0.knots=8", "--set", "gait.phases.1.knots=3", "--print-level", "0"]

HEADER_KEYS = ["format", "robot", "urdf", "base", "locked", "contacts", "friction", "slope_rad", "stride",
               "period", "transcription", "success", "versions", "units",
               # format 2 (2026-11-24): the model the optimiser used (tests/test_export_selfcontained.py)
               "gravity", "base_joints", "coordinates", "actuated", "passive", "armature", "actuators",
               "torque_bounds", "joint_limits", "limits", "feet", "terrain", "touchdown", "phases", "collocation",
               "equations_of_motion", "cycle_transform", "design"]
RESULT_KEYS = ["success", "status", "message", "cost", "cost_terms", "iterations", "solve_time_s", "setup_time_s",
               "function_eval_time_s", "nlp", "robot", "stride", "period", "speed", "max_violation", "violations",
               "problem", "versions", "returned_iteration", "ipopt_options", "compiled_blocks", "compile_time_s",
               "design", "binding_rules", "joints_at_position_limits", "compiled_own_blocks",  # appended 2026-11-25
               "feasibility_bands", "touchdowns"]  # appended 2026-11-25 (thirteenth session)


def gaitopt(*args, timeout=300):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "gaitopt.cli", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def assert_bad_input(proc, *fragments):
    """Exit 2, exactly one line on stderr starting `gaitopt: `, no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("gaitopt: "), lines[0]
    assert "Traceback" not in proc.stderr + proc.stdout
    for f in fragments:
        assert str(f) in lines[0], (f, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def solved_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "static"
    proc = gaitopt("solve", STATIC, "-o", out, *SMALL)
    return proc, out


def test_solve_exit_and_files(solved_dir):
    proc, out = solved_dir
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert (out / "trajectory.csv").is_file() and (out / "result.json").is_file()
    assert "SUCCESS" in proc.stdout


def test_summary_gives_the_cost_terms_units(solved_dir):
    """`cost 138.063 joule_loss 138.063` left a new user guessing J per cycle or per metre
    (verify prints J per cycle): the term's unit follows it; a weighted term shows its weight."""
    from gaitopt.problem_spec import COST_TERMS, COST_UNITS
    from gaitopt.result_notes import _term_text
    proc, _ = solved_dir
    assert "joule_loss" in proc.stdout and " J/m" in proc.stdout.split("cost ", 1)[1].splitlines()[0]
    assert set(COST_UNITS) == set(COST_TERMS)
    assert _term_text("abs_power", 0.5, 1.0) == "abs_power 0.5 W"
    assert _term_text("torque_rate_squared", 0.5, 0.1) == "torque_rate_squared 0.5 (0.1 × 5 N²·m²/s)"
    assert _term_text("specific_resistance", 0.2, 1.0) == "specific_resistance 0.2"
    assert _term_text("my_term", 3.0, None) == "my_term 3"


def test_trajectory_csv_contract(solved_dir):
    proc, out = solved_dir
    text = (out / "trajectory.csv").read_text(encoding="utf-8").splitlines()
    comments = [ln for ln in text if ln.startswith("#")]
    assert text[:len(comments)] == comments, "comment lines come first"
    keys = [ln[2:].split(": ", 1)[0] for ln in comments]
    assert keys == HEADER_KEYS
    meta, cols = read_trajectory_csv(out / "trajectory.csv")
    assert meta["format"] == "gaitopt-trajectory 2"
    assert meta["robot"] == "biped7" and meta["base"] == "sagittal" and meta["transcription"] == "trapezoidal"
    assert meta["success"] is True
    urdf = Path(meta["urdf"])
    assert urdf.is_absolute() and urdf.is_file()
    assert set(meta["versions"]) == {"gaitopt", "casadi", "pinocchio"}
    assert meta["friction"] == 0.7 and meta["slope_rad"] == 0.0
    robot_yaml = yaml.safe_load((ROOT / "robots" / "biped7" / "robot.yaml").read_text())
    contacts = {f"{foot}_{role}": {"frame": spec["frame"], "point": spec[role], "foot": foot, "role": role}
                for foot, spec in robot_yaml["feet"].items() for role in ("heel", "toe")}
    assert meta["contacts"] == contacts
    assert meta["locked"] == {}

    # columns: base coordinates, then URDF joints in model order (from Pinocchio, not gaitopt)
    model = pin.buildModelFromUrdf(str(urdf))
    joints = [n for n in list(model.names)[1:] if n not in meta["locked"]]
    coords = ["base_x", "base_z", "base_pitch"] + joints
    header = [ln for ln in text if not ln.startswith("#")][0].split(",")
    expected = ["time", "phase"] + [f"{k}.{c}" for k in ("q", "v", "a") for c in coords] \
        + [f"tau.{j}" for j in joints] + [f"f.{c}.{ax}" for c in contacts for ax in "xyz"]
    assert header == expected + ["point"]
    assert list(cols) == expected  # the knot rows, without the point column

    # format 2: a midpoint row between every two knots of a phase, at the interval's mid time
    _, every = read_trajectory_csv(out / "trajectory.csv", midpoints=True)
    point = list(every["point"])
    assert len(point) == 2 * ((8 + 8 + 1) + (3 + 3 + 1)) + 1 and point[:3] == ["knot", "mid", "knot"]
    is_mid = np.array(point) == "mid"
    assert np.allclose(every["time"][is_mid], 0.5 * (every["time"][np.flatnonzero(is_mid) - 1]
                                                     + every["time"][np.flatnonzero(is_mid) + 1]))
    assert meta["collocation"]["eom_rows"] == ["mid"]  # trapezoidal
    assert [p["name"] for p in meta["phases"]] == ["single_support", "double_support", "single_support:mirrored",
                                                   "double_support:mirrored"]
    assert meta["armature"]["left_knee"] == pytest.approx(robot_yaml["actuators"]["default"]["gear_ratio"] ** 2
                                                          * robot_yaml["actuators"]["default"]["rotor_inertia"])

    # knot rows: one per knot over a full cycle + the next cycle's first knot
    n_rows = len(cols["time"])
    assert n_rows == 2 * ((8 + 1) + (3 + 1)) + 1
    phases = list(cols["phase"])
    assert phases[:9] == ["single_support"] * 9 and phases[9:13] == ["double_support"] * 4
    assert phases[13:22] == ["single_support:mirrored"] * 9 and phases[22:26] == ["double_support:mirrored"] * 4
    assert phases[-1] == "single_support"
    t = cols["time"]
    assert t[0] == 0.0 and np.all(np.diff(t) >= 0.0)
    assert t[9] == t[8] and t[13] == t[12] and t[22] == t[21] and t[26] == t[25]  # junction pairs
    assert t[-1] == pytest.approx(meta["period"], rel=1e-12)

    # the last row is the first knot shifted by the stride
    stride, slope = meta["stride"], meta["slope_rad"]
    for name in cols:
        if name in ("time", "phase"):
            continue
        first, last = cols[name][0], cols[name][-1]
        if name == "q.base_x":
            assert last == pytest.approx(first + stride, abs=1e-12)
        elif name == "q.base_z":
            assert last == pytest.approx(first + stride * np.tan(slope), abs=1e-12)
        else:
            assert last == first, name
    # forces: zero rows for points not in contact (right foot swings in single_support), y = 0
    for ax in "xyz":
        assert np.all(cols[f"f.right_heel.{ax}"][:9] == 0.0)
    assert all(np.all(cols[f"f.{c}.y"] == 0.0) for c in contacts)


def test_result_json_contract(solved_dir):
    proc, out = solved_dir
    res = json.loads((out / "result.json").read_text(encoding="utf-8"))
    assert list(res) == RESULT_KEYS
    meta, cols = read_trajectory_csv(out / "trajectory.csv")
    assert res["success"] is True and res["status"] == "Solve_Succeeded" and res["message"]
    assert res["robot"] == "biped7"
    assert res["stride"] == meta["stride"] and res["period"] == meta["period"]
    assert res["speed"] == pytest.approx(res["stride"] / res["period"])
    assert res["speed"] == pytest.approx(0.25, rel=1e-6)  # the problem's speed
    assert res["cost"] == pytest.approx(sum(res["cost_terms"].values()))
    assert set(res["cost_terms"]) == {"joule_loss"}
    assert res["max_violation"] <= 1e-6
    assert 0 < len(res["violations"]) <= 10
    for v in res["violations"]:
        assert set(v) == {"term", "phase", "max_violation", "rows"}
    assert res["nlp"]["variables"] > 0 and res["nlp"]["constraints"] > 0
    assert res["iterations"] > 0 and res["returned_iteration"] == res["iterations"]
    # the options IPOPT ran with, gaitopt's defaults included (README "Speed")
    opts = res["ipopt_options"]
    assert opts["linear_solver"] == "mumps" and opts["mumps_pivtol"] == 1e-3 and opts["mumps_pivot_order"] == 5
    assert opts["tol"] == p_tol(res) and opts["max_iter"] == res["problem"]["solver"]["max_iter"]
    p = res["problem"]  # every default filled in
    assert [ph["knots"] for ph in p["phases"]] == [8, 3]
    assert p["constraints"]["friction"] == 0.7 and p["constraints"]["torque_speed"] is True
    assert p["solver"]["linear_solver"] == "mumps" and p["transcription"] == "trapezoidal"
    assert set(res["versions"]) == {"gaitopt", "casadi", "pinocchio"}


def p_tol(res):
    return res["problem"]["solver"]["tol"]


def test_failed_solve_exits_1(tmp_path):
    out = tmp_path / "failed"
    proc = gaitopt("solve", HEEL_TOE, "-o", out, "--set", "solver.max_iter=2", "--print-level", "0")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "solve failed" in proc.stderr and "Maximum_Iterations_Exceeded" in proc.stderr
    res = json.loads((out / "result.json").read_text())  # the best iterate is written
    assert res["success"] is False and res["status"] == "Maximum_Iterations_Exceeded" and res["iterations"] == 2
    assert 0 <= res["returned_iteration"] <= 2
    meta, cols = read_trajectory_csv(out / "trajectory.csv")
    assert meta["success"] is False and len(cols["time"]) > 2


@pytest.mark.fast
def test_bad_input_exits_2(tmp_path):
    out = tmp_path / "out"
    # a missing file
    assert_bad_input(gaitopt("solve", tmp_path / "nope.yaml", "-o", out), "nope.yaml")
    # an unknown key in the file: FILE: KEY: ... (allowed: ...)
    data = yaml.safe_load(STATIC.read_text())
    data["speeed"] = 0.3
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    line = assert_bad_input(gaitopt("solve", bad, "-o", out), f"gaitopt: {bad}: speeed: ", "(allowed: ", "speed")
    assert line.startswith(f"gaitopt: {bad}: speeed: unknown key")
    # bad values through --set
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "transcription=euler"),
                     str(STATIC), "transcription", "hermite_simpson, trapezoidal")
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "gait.phases.0.contacts.left=hop"),
                     "gait.phases[0].contacts.left", "swing")
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "gait.phases.9.knots=3"), "gait.phases.9.knots")
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "speed"), "--set")
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "cost=fast"), "cost", "joule_loss")
    # python tags: safe loader
    bad.write_text(STATIC.read_text().replace("robot: biped7", "robot: !!python/object/apply:os.system ['true']"))
    assert_bad_input(gaitopt("solve", bad, "-o", out), str(bad))
    # a mode the robot's feet do not have (found when the robot is known)
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "gait.phases.0.contacts.left=stance"),
                     "gait.phases[0].contacts.left")
    # IPOPT options that IPOPT rejects: named, not CasADi's "type mismatch" traceback
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "solver.options.no_such_option=1"),
                     str(STATIC), "solver.options.no_such_option", "no such IPOPT option")
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "solver.options.mumps_pivtol=5"),
                     "solver.options.mumps_pivtol", "rejects the value 5")
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "solver.options.max_iter=many"),
                     "solver.options.max_iter", "type")
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "solver.options.print_level=99"),
                     "solver.options.print_level", "rejects the value 99")
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "solver.options.linear_solver=ma57"),
                     "solver.options.linear_solver", "solver.linear_solver", "mumps, spral")
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "solver.print_level=99"),
                     "solver.print_level", "<= 12")
    # a misspelt foot in the first phase: blamed on that phase, the robot's feet allowed
    data = yaml.safe_load(STATIC.read_text())
    data["gait"]["phases"][0]["contacts"]["leftt"] = data["gait"]["phases"][0]["contacts"].pop("left")
    bad.write_text(yaml.safe_dump(data))
    line = assert_bad_input(gaitopt("solve", bad, "-o", out), "gait.phases[0].contacts", "(allowed: left, right)")
    assert "leftt," not in line.split("allowed")[-1]
    # a mapping given as a number: the allowed keys are listed
    assert_bad_input(gaitopt("solve", STATIC, "-o", out, "--set", "constraints.friction=0.5"),
                     "constraints.friction", "expected a mapping", "cone, mu")
    # an output path that cannot be a directory: refused before the solve, not after it
    not_a_dir = tmp_path / "a_file"
    not_a_dir.write_text("")
    for target in (not_a_dir, not_a_dir / "sub"):
        proc = gaitopt("solve", STATIC, "-o", target)
        assert_bad_input(proc, str(target), "cannot write")
        assert "solving" not in proc.stdout
    assert not out.exists()


@pytest.mark.fast
def test_unknown_robot_names_the_problem_file():
    """README: `gaitopt: FILE: KEY: what is wrong (allowed: …)` — here FILE is the problem file."""
    line = assert_bad_input(gaitopt("solve", STATIC, "-o", "unused", "--set", "robot=no_such_robot"),
                            "robot", "no_such_robot", "biped7")
    assert line.startswith(f"gaitopt: {STATIC}: robot: "), line


@pytest.mark.fast
def test_a_study_and_a_problem_given_to_each_others_commands_say_which_command(tmp_path):
    """A study file given to `gaitopt compile` or `solve` (a new user compiles, then sweeps) and a
    problem file given to `sweep` name the command that takes them (they said 'robot: missing
    required key' and 'problem: missing required key')."""
    study = ROOT / "problems" / "studies" / "go2_calf_gear_sweep.yaml"
    for cmd in (["compile", study], ["solve", study, "-o", tmp_path / "out"]):
        assert_bad_input(gaitopt(*cmd), "study file", "gaitopt sweep")
    assert_bad_input(gaitopt("sweep", STATIC, "-o", tmp_path / "out"), "problem file", "gaitopt solve")


@pytest.mark.fast
def test_codegen_without_compiler_exits_2(tmp_path, monkeypatch):
    """solver.codegen with no C compiler: one line naming the problem file and solver.codegen."""
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    monkeypatch.setenv("GAITOPT_CACHE", str(tmp_path / "cache"))
    line = assert_bad_input(gaitopt("solve", STATIC, "-o", tmp_path / "out", "--set", "solver.codegen=true"),
                            "solver.codegen", "compiler")
    assert line.startswith(f"gaitopt: {STATIC}: solver.codegen: "), line


def test_compile_fills_the_cache_for_later_setups(tmp_path, monkeypatch):
    """`gaitopt compile PROBLEM` compiles the robot's blocks into the cache and says which; a
    second run finds them there (and, for a file with solver.codegen: false, that its solves do
    not use them); without a compiler it is one line and exit 2."""
    if shutil.which(os.environ.get("CC", "gcc")) is None and shutil.which("cc") is None:
        pytest.skip("no C compiler on this machine")
    monkeypatch.setenv("GAITOPT_CACHE", str(tmp_path / "cache"))
    first = gaitopt("compile", STATIC)
    assert first.returncode == 0, first.stderr
    assert "call_rigid_inverse_dynamics" in first.stdout and " s compiling" in first.stdout
    assert list((tmp_path / "cache").glob("*.so"))
    again = gaitopt("compile", STATIC)
    assert again.returncode == 0 and "all were there already" in again.stdout, again.stdout
    assert "auto, the default, loads them" in again.stdout
    # a file that turns code generation off is told that its solves will not use them
    off = gaitopt("compile", STATIC, "--set", "solver.codegen=false")
    assert off.returncode == 0 and "solver.codegen: false" in off.stdout, off.stdout
    assert "auto, the default, loads them" not in off.stdout
    monkeypatch.setenv("GAITOPT_CACHE", str(tmp_path / "other"))
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    assert_bad_input(gaitopt("compile", STATIC), "compiler")


@pytest.mark.fast
def test_usage_errors_exit_2():
    for args in (["solve", str(STATIC)], ["frobnicate"], [], ["solve", str(STATIC), "-o", "x", "--print-level", "lots"]):
        proc = gaitopt(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("gaitopt: ") and len(lines[0]) <= 400, (args, lines)


def test_list_and_robot():
    proc = gaitopt("list")
    assert proc.returncode == 0, proc.stderr
    for p in sorted((ROOT / "problems").glob("*.yaml")):
        line = next((ln for ln in proc.stdout.splitlines() if ln.strip().startswith(p.name)), None)
        assert line is not None and "(invalid" not in line, (p.name, proc.stdout)
    assert "biped7" in proc.stdout
    proc = gaitopt("robot", "biped7")
    assert proc.returncode == 0, proc.stderr
    assert "left_knee" in proc.stdout and "torque limit" in proc.stdout
    assert_bad_input(gaitopt("robot", "no_such_robot"), "no_such_robot")


@pytest.mark.fast
def test_robot_lists_the_urdf_limits_beside_the_actuators(capsys):
    """`gaitopt robot` shows the URDF effort and velocity limits too: they bind as well
    (constraints.effort_limits), and a gear sweep keeps them (a new user's hexapod sweep was
    capped at the URDF's 2.1 N·m while the actuator allowed 4.2)."""
    from gaitopt.cli import main
    assert main(["robot", "hexapod"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.strip().startswith("L1_femur:"))
    assert "torque limit 1.5 N·m" in line and "URDF effort 1.5 N·m, velocity 6.18 rad/s" in line, line


def test_robot_lists_the_standing_posture_and_the_locked_joints(capsys):
    """`gaitopt robot` shows the standing posture gaitopt computed (its base height) and the joints
    robot.yaml holds (`locked`), which the coordinates leave out: a new user's G1 (17 of 29
    joints locked) could not see either."""
    from gaitopt.cli import main
    from gaitopt.robot import load_robot

    assert main(["robot", "g1"]) == 0
    out = capsys.readouterr().out.splitlines()
    robot = load_robot("g1")
    standing = next(ln for ln in out if ln.strip().startswith("standing:"))
    assert f"base_z {robot.standing_q[robot.index('base_z')]:.4g}" in standing
    locked = next(ln for ln in out if ln.strip().startswith("locked ("))
    assert locked.strip().startswith(f"locked ({len(robot.locked)}):") and "left_shoulder_roll_joint 0.15" in locked
    assert main(["robot", "biped7"]) == 0
    assert not any(ln.strip().startswith("locked") for ln in capsys.readouterr().out.splitlines())


def test_no_iterative_refinement_by_default_same_path():
    """gaitopt asks IPOPT for no iterative refinement of a KKT solve unless its residual needs it
    (min_refinement_steps 0; IPOPT refines once by default): on the static walk both take the same
    iterations to the same optimum (docs/speed.md, "Eleventh session")."""
    import gaitopt as go

    problem = go.load_problem(STATIC)
    ours = go.solve(problem, print_level=0)
    assert ours.stats["ipopt_options"]["min_refinement_steps"] == 0
    refined = go.solve(problem.replace(solver={"options": {"min_refinement_steps": 1}}), print_level=0)
    assert ours.success and refined.success
    assert ours.stats["iterations"] == refined.stats["iterations"]
    assert ours.cost == pytest.approx(refined.cost, rel=1e-9)
    assert np.max(np.abs(ours.x - refined.x)) < 1e-5  # one optimum, each to IPOPT's tolerance
