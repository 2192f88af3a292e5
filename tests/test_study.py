"""Studies: grids of problems, results table, resume after a kill, motors, Robot.with_actuators."""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import yaml

import gaitopt as go
from gaitopt.dynamics import GRAVITY
from gaitopt.errors import InputError
from gaitopt.motors import load_motors
from gaitopt.study_return import RETURN_COLUMNS
from gaitopt.study import case_metrics, load_study, read_results, run_study, study_from_dict

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = ROOT / "problems" / "biped7_heel_toe_walk.yaml"
LIMITS_OFF = {"constraints.effort_limits": False, "constraints.velocity_limits": False}


def _study_file(tmp_path, parameters, **extra) -> Path:
    data = {"problem": str(PROBLEM), "overrides": LIMITS_OFF, "scale_knots": 0.5, "parameters": parameters, **extra}
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.fast
def test_with_actuators_replaces_only_the_named_joints():
    robot = go.load_robot("biped7")
    new = robot.with_actuators({"left_knee": robot.actuators["left_knee"].with_gear(100.0)})
    assert new.actuators["left_knee"].gear_ratio == 100.0
    assert new.actuators["right_knee"].gear_ratio == robot.actuators["right_knee"].gear_ratio
    assert robot.actuators["left_knee"].gear_ratio == 66.0  # the original is untouched
    # the copy's reflected rotor inertia follows the new gear; the original model is untouched
    i = robot.index("left_knee")
    assert new.model is not robot.model
    assert new.model.armature[i] == pytest.approx(100.0 ** 2 * robot.actuators["left_knee"].rotor_inertia)
    assert robot.model.armature[i] == pytest.approx(66.0 ** 2 * robot.actuators["left_knee"].rotor_inertia)
    with pytest.raises(InputError, match="not actuated"):
        robot.with_actuators({"base_x": robot.actuators["left_knee"]})


@pytest.mark.fast
def test_motor_catalogue_has_sources_and_the_20w_42v_motor():
    motors = load_motors()
    assert all(m.source.strip() for m in motors.values())
    assert any(m.rated_power == 20.0 and m.voltage == 42.0 for m in motors.values())
    # the 20 W / 42 V entry with a 66:1 gear is biped7's actuator
    act = motors["re25_20w_42v"].actuator(66.0, 0.7)
    ref = go.load_robot("biped7").actuators["left_knee"]
    assert act.torque_limit == pytest.approx(ref.torque_limit)
    assert act.stall_torque == pytest.approx(ref.stall_torque)


@pytest.mark.fast
def test_bad_motor_catalogue(tmp_path):
    path = tmp_path / "motors.yaml"
    path.write_text("motors:\n  m1: {motor: x, resistance: 1, torque_constant: 0.1, voltage: 12, "
                    "current_limit: 1, rated_power: 5, rotor_inertia: 0, source: s, colour: red}\n")
    with pytest.raises(InputError, match=r"motors\.yaml: motors\.m1\.colour: unknown key"):
        load_motors(path)


@pytest.mark.fast
@pytest.mark.parametrize("parameters, extra, match", [
    ({"gear_ratio.elbow": [50]}, {}, r"parameters\.gear_ratio\.elbow: not an actuated joint"),
    ({"motor": ["no_such_motor"]}, {}, r"unknown motor 'no_such_motor' \(allowed: re25"),
    ({"gear_ratio": [-3]}, {}, "gear ratio must be a positive number"),
    ({"speed": [-1.0]}, {}, r"parameters.speed: must be > 0, got -1 \(case speed=-1"),
    ({"speed": [0.3]}, {"colour": "red"}, r"study\.yaml: colour: unknown key"),
    ({}, {}, "at least one parameter"),
])
def test_bad_study_file(tmp_path, parameters, extra, match):
    from gaitopt.study import build_cases
    with pytest.raises(InputError, match=match):
        build_cases(load_study(_study_file(tmp_path, parameters, **extra)))


@pytest.mark.fast
@pytest.mark.parametrize("parameters, groups, field", [
    ({"gear_ratio.left_knee": [100]}, None, "parameters.gear_ratio.left_knee"),
    ({"motor.knee": ["re30_60w_48v"]}, {"knee": ["left_knee"]}, "parameters.motor.knee"),
])
def test_one_joint_of_a_mirror_pair_swept_in_a_half_cycle_is_refused(tmp_path, parameters, groups, field):
    """A half cycle gives each joint, in the mirrored half, its partner's torques and motion: a
    gear or motor on one joint of a pair would price and limit that half with the wrong motor
    (a user's Go2 calf at G = 40 solved at 1.12× its voltage, cost 56 vs 91 J/m over the cycle)."""
    from gaitopt.study import build_cases
    extra = {"groups": groups} if groups else {}
    with pytest.raises(InputError, match="left_knee and right_knee have other actuators") as err:
        build_cases(load_study(_study_file(tmp_path, parameters, **extra)))
    assert err.value.field == field
    # both joints of the pair (a group) are fine, and so is a full cycle
    both = load_study(_study_file(tmp_path, {"gear_ratio.knee": [100]}, groups={"knee": ["left_knee", "right_knee"]}))
    assert len(build_cases(both)[0]) == 1


@pytest.mark.fast
def test_solve_refuses_a_half_cycle_whose_mirror_partners_have_other_actuators():
    from gaitopt.precheck import check_problem, mirror_actuator_mismatches
    problem = go.load_problem(PROBLEM)
    robot = go.load_robot("biped7")
    geared = robot.with_actuators({"left_knee": robot.actuators["left_knee"].with_gear(100.0)})
    assert mirror_actuator_mismatches(problem, geared) == [("left_knee", "right_knee", {"gear_ratio": (100.0, 66.0)})]
    with pytest.raises(InputError, match=r"gait\.cycle: a half cycle mirrors .* left_knee and right_knee") as err:
        go.solve(problem, robot=geared, print_level=0)
    assert err.value.file == str(PROBLEM) or err.value.file == problem.source
    check_problem(problem, robot)  # the shipped actuators: nothing to say
    both = robot.with_actuators({j: robot.actuators[j].with_gear(100.0) for j in ("left_knee", "right_knee")})
    assert mirror_actuator_mismatches(problem, both) == []
    # a full cycle mirrors nothing: any actuators
    assert mirror_actuator_mismatches(problem.replace(cycle="full"), geared) == []


@pytest.mark.fast
def test_grid_applies_motors_then_gears_per_group(tmp_path):
    from gaitopt.study import build_cases
    study = load_study(_study_file(tmp_path, {"motor.knee": ["re30_60w_48v"], "gear_ratio.knee": [100, 150],
                                              "speed": [0.3]}, groups={"knee": ["left_knee", "right_knee"]},
                                   gear_efficiency=0.8))
    cases, robot = build_cases(study)
    assert [c.values["gear_ratio.knee"] for c in cases] == [100, 150]
    act = cases[1].actuators["right_knee"]
    assert (act.gear_ratio, act.gear_efficiency, act.torque_constant) == (150.0, 0.8, 0.0538)
    assert set(cases[1].actuators) == {"left_knee", "right_knee"}
    assert cases[0].problem.speed.min == 0.3
    assert len({c.key for c in cases}) == len(cases)


@pytest.fixture(scope="module")
def serial_study(tmp_path_factory):
    out = tmp_path_factory.mktemp("serial")
    study = study_from_dict({"problem": str(PROBLEM), "overrides": LIMITS_OFF, "scale_knots": 0.5,
                             "parameters": {"gear_ratio": [66, 100], "speed": [0.3, 0.4]}}, "inline")
    rows = run_study(study, out, executor=None, progress=False)
    return study, out, rows


def test_study_rows_and_warm_starts(serial_study):
    study, out, rows = serial_study
    assert len(rows) == 4 and all(r["success"] for r in rows)
    assert rows[0]["warm_from"] == ""                      # the first case starts cold
    assert all(r["warm_from"] for r in rows[1:])          # every other one from a solved neighbour
    for r in rows:
        assert (out / "cases" / r["case"] / "trajectory.csv").is_file()
        assert r["speed"] == pytest.approx(r["param.speed"], rel=1e-6)
        assert r["max_violation"] < 1e-6
    # the cost is the Joule loss per metre as the trapezoid over the knots counts it; the table
    # integrates the exported motion (τ linear between the knots), whose ∫τ² is smaller by
    # h/6 (Δτ)² per interval: never above the cost, close to it (measured 4.4 % at half knots)
    for r in rows:
        assert r["joule_loss_per_m"] <= r["cost"] * (1 + 1e-9)
        assert r["joule_loss_per_m"] == pytest.approx(r["cost"], rel=0.08)
        assert r["energy_per_m"] >= r["joule_loss_per_m"] - 1e-9  # electrical ≥ copper loss (no regeneration)


def test_warm_cases_start_from_the_neighbours_point_and_multipliers(serial_study):
    """Each case's knots.npz keeps the solver's point and multipliers (docs/formats.md); a warm
    case of the same NLP shape starts from them (IPOPT's warm_start_init_point), which a speed
    sweep's csv-only warm starts did not: 27–32 iterations a case, more than cold (docs/speed.md)."""
    from gaitopt.study import warm_start_from_csv
    study, out, rows = serial_study
    first = warm_start_from_csv(out / "cases" / rows[0]["case"] / "trajectory.csv")
    assert first.x is not None and first.multipliers is not None
    assert len(first.multipliers.lam_x) == len(first.x) and len(first.multipliers.signature) == 20
    for r in rows[1:]:
        options = json.loads((out / "cases" / r["case"] / "result.json").read_text())["ipopt_options"]
        assert options.get("warm_start_init_point") == "yes", r["case"]
    # a knots.npz without them (written before 2026-11-24, or damaged): the trajectory alone
    d = out / "cases" / rows[0]["case"]
    with np.load(d / "knots.npz") as data:
        kept = {k: data[k] for k in data.files if not k.startswith("nlp.")}
    bare = out / "bare"
    bare.mkdir(exist_ok=True)
    np.savez(bare / "knots.npz", **{**kept, "nlp.x": np.zeros(3)})
    (bare / "trajectory.csv").write_bytes((d / "trajectory.csv").read_bytes())
    w = warm_start_from_csv(bare / "trajectory.csv")
    assert w.x is None and w.multipliers is None


def test_a_case_folder_reloads_with_its_own_gears(serial_study):
    """`gaitopt plot / export / verify OUTDIR/cases/<case>` read the case's swept actuators from
    its trajectory.csv header, not the robot folder's (a user's Go2 calf at G = 40 was drawn
    outside the shipped 12.134:1 envelope, and the replay would have had its rotor inertia)."""
    from gaitopt.export import load_result
    study, out, rows = serial_study
    shipped = go.load_robot("biped7")
    for r in rows:
        robot = load_result(out / "cases" / r["case"]).robot
        G = r["param.gear_ratio"]
        for j in robot.actuated:
            a = robot.actuators[j]
            assert a.gear_ratio == G and a.torque_constant == shipped.actuators[j].torque_constant
            assert robot.model.armature[robot.index(j)] == pytest.approx(G ** 2 * a.rotor_inertia, rel=1e-12)


def test_the_summary_names_the_actuator_limits_the_optimum_reaches(serial_study):
    """A sizing user's question: which motor limit bounds the gait. Here the supply voltage of
    one knee is lowered to the case's own peak: its torque–speed line is then reached."""
    import dataclasses
    from gaitopt.export import load_result
    from gaitopt.result_notes import joints_at_actuator_limits
    study, out, rows = serial_study
    r = rows[-1]
    result = load_result(out / "cases" / r["case"])
    before = joints_at_actuator_limits(result)
    assert "torque_speed.left_knee" not in before and before  # its ankles run on their lines already
    a = result.robot.actuators["left_knee"]
    tight = result.robot.with_actuators({"left_knee": dataclasses.replace(a, voltage=r["peak_voltage.left_knee"])})
    at = dataclasses.replace(result, robot=tight)
    assert set(joints_at_actuator_limits(at)) == set(before) | {"torque_speed.left_knee"}
    assert "at an actuator limit: torque_speed (left_knee, " in at.summary()


def test_a_rows_message_names_the_actuator_limits_its_optimum_reaches(serial_study):
    """A user's A1 motor sweep: a row whose calves ran at their 9.5 A limit said only "optimal
    solution found"; `gaitopt solve` said "at an actuator limit: current_limit (…)". The row
    says it too."""
    from gaitopt.export import load_result
    from gaitopt.result_notes import _grouped, joints_at_actuator_limits
    study, out, rows = serial_study
    named = 0
    for r in rows:
        limits = joints_at_actuator_limits(load_result(out / "cases" / r["case"]))
        if limits:
            named += 1
            assert r["message"] == f"optimal solution found; at an actuator limit: {_grouped(limits)}"
        else:
            assert r["message"] == "optimal solution found"
    assert named  # the biped's ankles run on their torque-speed lines


def test_case_metrics_respect_the_motor_limits(serial_study):
    study, out, rows = serial_study
    robot = go.load_robot("biped7")
    for r in rows:
        G = r["param.gear_ratio"]
        for j in robot.actuated:
            a = robot.actuators[j].with_gear(G)
            assert r[f"peak_current.{j}"] <= a.current_limit * (1 + 1e-6)
            assert r[f"peak_voltage.{j}"] <= a.voltage * (1 + 1e-6)
            assert r[f"peak_torque.{j}"] == pytest.approx(r[f"peak_current.{j}"] * a.gear_efficiency * G
                                                          * a.torque_constant, rel=1e-9)


def test_case_metrics_match_a_direct_computation():
    problem = go.load_problem(PROBLEM, LIMITS_OFF).scaled_knots(0.5).replace(cost="specific_resistance")
    result = go.solve(problem, print_level=0)
    assert result.success
    m = case_metrics(result)
    # the table's specific resistance is the interpolated motion's (a dense direct integral) ...
    tr = result.trajectory
    t = np.linspace(0.0, tr.period, 40001)
    smp = result.sample(t)
    act = [tr.coordinates.index(j) for j in tr.actuated]
    work = np.trapezoid(np.abs(smp["tau"] * smp["v"][:, act]).sum(axis=1), t)
    assert m["specific_resistance"] == pytest.approx(work / (result.robot.total_mass * GRAVITY * tr.distance), rel=2e-3)
    # ... and the cost's (|τ q̇| through the slacks at the power nodes) within the sign changes
    # inside intervals that the nodes cannot see (measured 4 %); the knots alone read 48 % low
    assert m["specific_resistance"] == pytest.approx(result.cost, rel=0.08)
    kn = result.trajectory.knots()  # τ linear between the knots: the peaks are knot values
    assert max(m[f"peak_torque.{j}"] for j in result.robot.actuated) == pytest.approx(np.abs(kn["tau"]).max())
    # RMS torque and current over the cycle (a motor's thermal rating), against the dense integral
    # (the table's 8 trapezoids per interval read the convex τ² of a linear τ high, 0.34 % here)
    for i, j in enumerate(tr.actuated):
        rms = np.sqrt(np.trapezoid(smp["tau"][:, i] ** 2, t) / tr.period)
        assert m[f"rms_torque.{j}"] == pytest.approx(rms, rel=5e-3)
        a = result.robot.actuators[j]
        assert m[f"rms_current.{j}"] == pytest.approx(m[f"rms_torque.{j}"] / (a.gear_efficiency * a.gear_ratio * a.torque_constant))
    # per-joint energies per metre: each joint's Joule loss against the dense integral of its
    # R (τ/(G K))², and the joints' shares adding up to the table's totals
    joints = tr.actuated
    for i, j in enumerate(joints):
        a = result.robot.actuators[j]
        dense = np.trapezoid(a.resistance * (smp["tau"][:, i] / (a.gear_ratio * a.torque_constant)) ** 2, t) / tr.distance
        assert m[f"joule_loss_per_m.{j}"] == pytest.approx(dense, rel=5e-3)
        assert 0.0 <= m[f"joule_loss_per_m.{j}"] <= m[f"energy_per_m.{j}"] + 1e-12  # drawn ≥ copper loss
    for total in ("joule_loss_per_m", "energy_per_m"):
        assert sum(m[f"{total}.{j}"] for j in joints) == pytest.approx(m[total], rel=1e-12)
    # electrical peaks: each motor's V·i = R i² + K G q̇ i with i = τ/(η G K), from the dense samples
    drawn = []
    for i, j in enumerate(joints):
        a = result.robot.actuators[j]
        cur = smp["tau"][:, i] / (a.gear_efficiency * a.gear_ratio * a.torque_constant)
        qd = smp["v"][:, act[i]]
        drawn.append(np.maximum(a.resistance * cur ** 2 + a.torque_constant * a.gear_ratio * qd * cur, 0.0))
        assert m[f"peak_electrical_power.{j}"] == pytest.approx(drawn[-1].max(), rel=2e-2)
    total = np.sum(drawn, axis=0).max()
    assert m["peak_electrical_power"] == pytest.approx(total, rel=2e-2)
    assert max(m[f"peak_electrical_power.{j}"] for j in joints) <= m["peak_electrical_power"] + 1e-9


def test_a_killed_study_resumes_without_losing_or_redoing_cases(tmp_path):
    path = _study_file(tmp_path, {"gear_ratio": [50, 66, 100], "speed": [0.3, 0.4]})
    out = tmp_path / "out"
    env = dict(os.environ, OMP_NUM_THREADS="1")
    cmd = [sys.executable, "-m", "gaitopt.cli", "sweep", str(path), "-o", str(out), "-j", "1"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    table = out / "results.csv"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not table.is_file() or len(read_results(table)) < 2) \
            and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = read_results(table)
    assert 2 <= len(before) < 6, "the study should have been killed mid-way"
    # a row cut short by the kill must not corrupt the table
    with open(table, "a", encoding="utf-8") as fh:
        fh.write("gear_ratio=100_speed=0.4,100,0.4,Tr")  # no newline: as a kill leaves it
    stamps = {r["case"]: (out / "cases" / r["case"] / "result.json").stat().st_mtime_ns for r in before}
    with ProcessPoolExecutor(max_workers=2) as pool:
        rows = run_study(load_study(path), out, executor=pool, progress=False)
    assert len(rows) == 6 and len({r["case"] for r in rows}) == 6
    assert all(r["success"] for r in rows)
    for r in before:  # finished cases kept, not solved again
        assert (out / "cases" / r["case"] / "result.json").stat().st_mtime_ns == stamps[r["case"]]
        assert next(x for x in rows if x["case"] == r["case"])["cost"] == r["cost"]
    assert len(read_results(table)) == 6
    # a third run has nothing left to do, and says so on its progress bar
    bar = io.StringIO()
    again = run_study(load_study(path), out, executor=None, progress=bar)
    assert [r["case"] for r in again] == [r["case"] for r in rows]
    assert bar.getvalue().rstrip().endswith("6/6 cases (0 solved, 0 failed, 6 resumed) 0 s")


def test_codesign_case_in_a_study_reports_the_optimal_gears(tmp_path):
    design = {"gear_ratio": {"all": {"joints": ["left_hip", "right_hip", "left_knee", "right_knee", "left_ankle",
                                               "right_ankle"], "min": 100, "max": 600, "guess": 300}}}
    study = study_from_dict({"problem": str(PROBLEM), "scale_knots": 0.5,
                             "overrides": {**LIMITS_OFF, "design": design}, "parameters": {"speed": [0.8]}}, "inline")
    (row,) = run_study(study, tmp_path, executor=None, progress=False)
    assert row["success"]
    gears = set(json.loads(row["gear_ratios"]).values())
    assert len(gears) == 1 and 100 < gears.pop() < 600
    # the figures are those of the designed gear: the current and voltage limits hold at it
    assert max(row[k] for k in row if k.startswith("peak_voltage")) <= 42.0 * (1 + 1e-6)
    assert row["joule_loss_per_m"] <= row["cost"] * (1 + 1e-9)  # the exported motion vs the knots (see above)
    assert row["joule_loss_per_m"] == pytest.approx(row["cost"], rel=0.08)


@pytest.mark.fast
def test_bad_executor(tmp_path):
    with pytest.raises(InputError, match="executor must be"):
        run_study(load_study(_study_file(tmp_path, {"speed": [0.3]})), tmp_path / "o", executor="threads")


@pytest.mark.fast
def test_cli_sweep_bad_input_exit_code(tmp_path):
    from gaitopt.cli import main
    path = _study_file(tmp_path, {"motor": ["nope"]})
    assert main(["sweep", str(path), "-o", str(tmp_path / "o")]) == 2
    assert main(["sweep", str(tmp_path / "missing.yaml"), "-o", str(tmp_path / "o")]) == 2


@pytest.mark.fast
def test_shipped_study_files_load():
    from gaitopt.study import build_cases
    files = sorted((ROOT / "problems" / "studies").glob("*.yaml"))
    assert files
    for f in files:
        cases, _ = build_cases(load_study(f))
        assert cases


@pytest.mark.fast
def test_nearest_solved_case_ties_go_by_grid_order():
    """Among equally near solved cases the warm start comes from the earlier in grid order,
    whatever order they finished in (with several workers that order varies)."""
    from gaitopt.study import _nearest
    assert _nearest((1, 1), {"late": (1, 2), "early": (0, 1)}) == "early"
    assert _nearest((1, 1), {"early": (0, 1), "late": (1, 2)}) == "early"
    assert _nearest((1, 1), {"far": (0, 0), "near": (1, 2)}) == "near"
    assert _nearest((0, 0), {}) is None


@pytest.mark.fast
def test_cases_that_raised_run_again_on_resume(tmp_path, monkeypatch):
    import gaitopt.study as study_mod
    path = _study_file(tmp_path, {"speed": [0.3, 0.35]})
    real = study_mod.solve

    def broken(problem, **kw):
        if "0.35" in repr(problem.speed):
            raise RuntimeError("a crash in this case")
        return real(problem, **kw)

    monkeypatch.setattr(study_mod, "solve", broken)
    first = run_study(load_study(path), tmp_path / "o", executor=None, progress=False)
    assert [r["status"] for r in first][1] == "error" and first[0]["success"]
    monkeypatch.setattr(study_mod, "solve", real)
    table = tmp_path / "o" / "results.csv"
    kept = table.read_text(encoding="utf-8").splitlines()[1]
    again = run_study(load_study(path), tmp_path / "o", executor=None, progress=False)
    assert all(r["success"] for r in again) and len(read_results(table)) == 2
    # the row that solved is kept as written (not parsed and written again: 0.3 stays 0.3, 45 stays 45)
    assert table.read_text(encoding="utf-8").splitlines()[1] == kept


@pytest.mark.fast
def test_an_older_results_csv_without_the_rms_columns_resumes(tmp_path):
    """The rms_* columns were appended on 2026-11-25: an OUTDIR an older gaitopt wrote resumes
    with its own columns instead of being refused as another study's."""
    path = _study_file(tmp_path, {"speed": [0.3, 0.35]})
    run_study(load_study(path), tmp_path / "o", executor=None, progress=False)
    table = tmp_path / "o" / "results.csv"
    with open(table, newline="", encoding="utf-8") as fh:
        header, first = list(csv.reader(fh))[:2]
    n = header.index("message") + 1
    r = header.index(RETURN_COLUMNS[0])
    rms = header[n:r]   # then the return pass's and the per-joint energies (appended 2026-11-25)
    assert rms and all(c.startswith("rms_") for c in rms) and tuple(header[r:r + len(RETURN_COLUMNS)]) == RETURN_COLUMNS
    per_joint = header[r + len(RETURN_COLUMNS):]
    assert per_joint and all(c.startswith(("joule_loss_per_m.", "energy_per_m.", "peak_electrical_power"))
                             for c in per_joint)
    with open(table, "w", newline="", encoding="utf-8") as fh:   # the first case, as an older gaitopt wrote it
        csv.writer(fh).writerows([header[:n], first[:n]])
    rows = run_study(load_study(path), tmp_path / "o", executor=None, progress=False)
    assert all(r["success"] for r in rows) and len(rows) == 2
    with open(table, newline="", encoding="utf-8") as fh:
        assert [len(r) for r in csv.reader(fh)] == [n, n, n]   # the second case written in the file's columns


@pytest.mark.fast
def test_sweep_with_codegen_and_no_compiler_is_bad_input(tmp_path, monkeypatch):
    from gaitopt.cli import main
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    path = _study_file(tmp_path, {"speed": [0.3]}, overrides={**LIMITS_OFF, "solver.codegen": True})
    assert main(["sweep", str(path), "-o", str(tmp_path / "o")]) == 2
    assert not (tmp_path / "o" / "results.csv").exists()


@pytest.mark.fast
class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_line_ends_when_a_sweep_stops_early():
    """After a Ctrl-C the bar's line was left open and the shell's prompt followed it (a helper's
    trial, 2026-11-24)."""
    from gaitopt.study import _Progress
    out = _Terminal()
    bar = _Progress(3, 0, out)
    bar.update(True)
    bar.close()
    assert out.getvalue().endswith("\n") and out.getvalue().count("\n") == 1
    done = _Terminal()
    bar = _Progress(1, 0, done)
    bar.update(True)
    bar.close()
    assert done.getvalue().count("\n") == 1  # a finished bar ends its line once


@pytest.mark.fast
def test_progress_is_a_line_per_case_in_a_log():
    """Where stderr is not a terminal (a log, a CI job) the bar's carriage-return updates ran
    together on one line (a new user's sizing study): there each finished case is a line of its
    own, and stopping early adds no empty line."""
    from gaitopt.study import _Progress
    log = io.StringIO()
    bar = _Progress(3, 0, log)
    bar.update(True)
    bar.update(False)
    bar.close()
    lines = log.getvalue().split("\n")
    assert "\r" not in log.getvalue() and lines[-1] == "" and len(lines) == 4
    assert [ln.split("] ")[1].split(" cases")[0] for ln in lines[:3]] == ["0/3", "1/3", "2/3"]
    assert "1 solved, 1 failed" in lines[2]


@pytest.mark.fast
def test_resume_refuses_another_studys_outdir(tmp_path):
    """Resuming into an OUTDIR whose rows another study wrote (other overrides, another base
    problem file's content) is refused before anything there is written, so that results.csv
    never mixes two studies' rows (a new user's trial: an edited friction resumed 25 old rows);
    the same study resumes."""
    problem = tmp_path / "walk.yaml"
    problem.write_bytes(PROBLEM.read_bytes())
    data = {"problem": str(problem), "overrides": LIMITS_OFF, "scale_knots": 0.5, "parameters": {"speed": [0.3]}}
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    out = tmp_path / "o"
    run_study(load_study(path), out, executor=None, progress=False)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    edited = dict(data, overrides={**LIMITS_OFF, "constraints.friction.mu": 0.3})
    path.write_text(yaml.safe_dump(edited), encoding="utf-8")
    with pytest.raises(InputError, match="another study .*differs in overrides") as err:
        run_study(load_study(path), out, executor=None, progress=False)
    assert err.value.field == "-o"
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before  # study.json kept too
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    problem.write_text(problem.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    with pytest.raises(InputError, match="differs in the files problem"):
        run_study(load_study(path), out, executor=None, progress=False)
    problem.write_bytes(PROBLEM.read_bytes())
    rows = run_study(load_study(path), out, executor=None, progress=False)  # the same study: resumed
    assert len(rows) == 1


@pytest.mark.fast
def test_values_that_share_a_case_name_are_refused(tmp_path):
    path = _study_file(tmp_path, {"speed": [0.3, 0.3000001]})
    with pytest.raises(InputError, match="one case name") as err:
        run_study(load_study(path), tmp_path / "o", executor=None, progress=False)
    assert err.value.field == "parameters.speed" and not (tmp_path / "o").exists()


@pytest.mark.fast
def test_a_bad_override_is_named_in_the_study_file(tmp_path):
    path = _study_file(tmp_path, {"speed": [0.3]}, overrides={"constraints.friction.mu": -1})
    with pytest.raises(InputError) as err:
        load_study(path) and run_study(load_study(path), tmp_path / "o", executor=None, progress=False)
    assert err.value.field == "overrides.constraints.friction.mu" and err.value.file == str(path)


def test_sweep_summary_says_which_cases_an_earlier_run_solved(tmp_path):
    """Run again into the same OUTDIR, `gaitopt sweep` solves nothing and said "2 solved" as if it
    had: the summary counts the rows an earlier run wrote."""
    from contextlib import redirect_stdout
    from io import StringIO

    from gaitopt import cli
    path = _study_file(tmp_path, {"speed": [0.3, 0.35]})
    out = tmp_path / "o"
    said = []
    for _ in range(2):
        buf = StringIO()
        with redirect_stdout(buf):
            assert cli.main(["sweep", str(path), "-o", str(out), "-q"]) == 0
        said.append(buf.getvalue().strip().splitlines()[-1])
    assert said[0].endswith("2 cases, 2 solved, 0 failed")
    assert said[1].endswith(f"2 cases (2 from an earlier run into {out}), 2 solved, 0 failed")


def test_sweep_summary_does_not_count_earlier_solved_cases_among_the_failed(tmp_path, monkeypatch):
    """A user's motor sweep, interrupted after 2 solved cases and resumed, ended "12 cases, 9
    solved, 3 failed (2 of them from an earlier run …)": read as 2 of the 3 failures when the 2
    earlier cases had solved. The earlier count goes with the cases."""
    from contextlib import redirect_stdout
    from io import StringIO

    import gaitopt.study as study_mod
    from gaitopt import cli
    path = _study_file(tmp_path, {"speed": [0.3, 0.35]})
    out = tmp_path / "o"
    run_study(load_study(path), out, executor=None, progress=False)
    table = out / "results.csv"
    lines = table.read_text(encoding="utf-8").splitlines()
    table.write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")  # the second case not yet run
    real = study_mod.solve

    def failing(problem, **kw):  # the new case's solve fails (a weak motor, say)
        return dataclasses.replace(real(problem, **kw), success=False, status="Infeasible_Problem_Detected")

    monkeypatch.setattr(study_mod, "solve", failing)
    buf = StringIO()
    with redirect_stdout(buf):
        assert cli.main(["sweep", str(path), "-o", str(out), "-q", "-j", "1"]) == 1
    said = buf.getvalue().strip().splitlines()[-1]
    assert said.endswith(f"2 cases (1 from an earlier run into {out}), 1 solved, 1 failed"), said


@pytest.mark.fast
def test_a_cases_warnings_reach_the_caller_from_a_worker_process(tmp_path):
    """A new user's A1 sweep (2026-11-25): warnings raised while a case solved in a worker
    process (the default with 2 or more cores) were lost; with -j 1 they showed. They come back in
    the row and are raised again in the caller, and stay out of results.csv. Here the warning is
    the half cycle's on a biped7 whose left thigh weighs twice the right (gaitopt.precheck)."""
    import re
    import shutil
    import warnings

    shutil.copytree(ROOT / "robots" / "biped7", tmp_path / "biped7")
    urdf = tmp_path / "biped7" / "biped7.urdf"
    text = urdf.read_text(encoding="utf-8")
    heavy = re.sub(r'(<link name="left_thigh">.*?<mass value=)"([^"]*)"', lambda m: f'{m.group(1)}"{2 * float(m.group(2))}"',
                   text, count=1, flags=re.S)
    assert heavy != text
    urdf.write_text(heavy, encoding="utf-8")
    problem = yaml.safe_load(PROBLEM.read_text(encoding="utf-8"))
    problem["robot"] = "./biped7"
    (tmp_path / "walk.yaml").write_text(yaml.safe_dump(problem), encoding="utf-8")
    study = {"problem": "walk.yaml", "overrides": {**LIMITS_OFF, "solver.max_iter": 2}, "scale_knots": 0.5,
             "parameters": {"speed": [0.3, 0.4]}}
    (tmp_path / "study.yaml").write_text(yaml.safe_dump(study), encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ProcessPoolExecutor(max_workers=2) as pool:
            rows = run_study(load_study(tmp_path / "study.yaml"), tmp_path / "out", executor=pool, progress=False)
    assert len(rows) == 2
    texts = [str(w.message) for w in caught]
    assert any("masses are not mirror images" in t and "walk.yaml" in t for t in texts), texts
    header = (tmp_path / "out" / "results.csv").read_text(encoding="utf-8").splitlines()[0]
    assert "_warnings" not in header and all("_warnings" not in r for r in rows)


def test_a_failed_case_says_its_actuators_sit_on_their_limits(tmp_path):
    """A user's A1 calf motor sweep (2026-11-25): a maxon RE 40 at G = 9.1 gives the calf 3.71 N·m
    where the solved gaits need 10–11; the row said only "the constraints look infeasible" (the
    dynamics rows violated) although the returned iterate held all four calves on their current
    limit at 14 of 26 points. The row and the summary now say so. Here the Go2's calves get their
    own motor with 4 % of its current limit (1.8 N·m at the shipped gear)."""
    from gaitopt.export import load_result
    from gaitopt.result_notes import failure_hint
    robot = go.load_robot("go2")
    calves = [j for j in robot.actuated if "calf" in j]
    a = robot.actuators[calves[0]]
    weak = {"motor": "the Go2 calf motor at 4 % of its current limit", "resistance": a.resistance,
            "torque_constant": a.torque_constant, "voltage": a.voltage, "current_limit": 0.04 * a.current_limit,
            "rated_power": 100.0, "rotor_inertia": a.rotor_inertia, "source": "test"}
    (tmp_path / "motors.yaml").write_text(yaml.safe_dump({"motors": {"weak": weak}}), encoding="utf-8")
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({
        "problem": str(ROOT / "problems" / "go2_trot.yaml"), "scale_knots": 0.5, "motors": "motors.yaml",
        "overrides": {**LIMITS_OFF, "solver.max_iter": 200}, "groups": {"calf": calves},
        "parameters": {"motor.calf": ["weak"]}}), encoding="utf-8")
    row, = run_study(load_study(path), tmp_path / "o", executor=None, progress=False)
    assert not row["success"]
    said = "hint: the returned iterate holds current_limit (FL_calf_joint, FR_calf_joint, RL_calf_joint, RR_calf_joint)"
    assert said in row["message"] and "torque_speed" not in row["message"]
    result = load_result(tmp_path / "o" / "cases" / row["case"])
    assert said in failure_hint(result) and said in result.summary()
    assert said not in failure_hint(dataclasses.replace(result, success=True))  # an optimum: the summary's own line


def test_warm_start_from_a_saved_case_keeps_its_impact_impulses(tmp_path):
    """A study's neighbour read back from disk carries the impact impulses knots.npz holds (it
    gave none: a warm start on an NLP of another shape then guessed them)."""
    from gaitopt.export import save
    from gaitopt.study import warm_start_from_csv
    problem = go.load_problem(ROOT / "problems" / "biped7_heel_toe_walk.yaml").scaled_knots(0.5)
    result = go.solve(problem, print_level=0)
    assert result.success and result.impulses
    save(result, tmp_path / "case")
    warm = warm_start_from_csv(tmp_path / "case" / "trajectory.csv")
    assert set(warm.impulses) == set(result.impulses)
    for name, lam in result.impulses.items():
        np.testing.assert_array_equal(warm.impulses[name], np.asarray(lam, float))
