"""Terrain geometry (gaitopt.terrain): heights, normals against finite differences, numpy and
CasADi agreeing, the step envelope above the true edges; the problem-file terrain section's
errors; contact on the surface read back from an exported trajectory.csv; MuJoCo's ground."""
from __future__ import annotations

import dataclasses

import casadi as ca
import numpy as np
import pytest

import gaitopt as go
from gaitopt import quantities as Q
from gaitopt.errors import InputError
from gaitopt.export import read_trajectory_csv, save
from gaitopt.export.sampling import sample_table
from gaitopt.export.summary import export_summary
from gaitopt.problem import problem_from_dict
from gaitopt.terrain import HeightMap, Plane, stair
from gaitopt.terrain_io import surface_from_description

RNG = np.random.default_rng(3)
GRID = RNG.normal(0.0, 0.01, (6, 5))
SURFACES = {
    "plane": Plane(np.deg2rad(10.0)),
    "stair": stair(0.03, 0.13, 5, -0.2, 0.01),
    "height_map": HeightMap((0.1, -0.2), (0.02, 0.1), tuple(map(tuple, GRID))),
}


@pytest.mark.fast
@pytest.mark.parametrize("name", SURFACES)
def test_normals_match_finite_differences_and_casadi(name):
    s = SURFACES[name]
    x, y = RNG.uniform(-0.3, 0.5, 50), RNG.uniform(-0.3, 0.3, 50)
    e = 1e-6
    hx = (s.height(x + e, y) - s.height(x - e, y)) / (2 * e)
    hy = (s.height(x, y + e) - s.height(x, y - e)) / (2 * e)
    n_fd = np.stack([-hx, -hy, np.ones_like(hx)], axis=-1)
    n_fd /= np.linalg.norm(n_fd, axis=-1, keepdims=True)
    np.testing.assert_allclose(s.normal(x, y), n_fd, atol=1e-6)
    X, Y = ca.SX.sym("x"), ca.SX.sym("y")
    f = ca.Function("f", [X, Y], [s.height(X, Y), s.normal(X, Y)])
    for xi, yi in zip(x[:5], y[:5]):
        h, n = f(xi, yi)
        assert float(h) == pytest.approx(float(s.height(xi, yi)), abs=1e-12)
        np.testing.assert_allclose(np.array(n).ravel(), s.normal(xi, yi), atol=1e-12)


@pytest.mark.fast
def test_height_map_is_exact_at_its_nodes_and_periodic():
    s = SURFACES["height_map"]
    xi = 0.1 + 0.02 * np.arange(6)
    yi = -0.2 + 0.1 * np.arange(5)
    np.testing.assert_allclose(s.height(xi[:, None], yi[None, :]), GRID, atol=1e-12)
    Lx, Ly = s.period
    np.testing.assert_allclose(s.height(0.137 + Lx, 0.05 - 2 * Ly), s.height(0.137, 0.05), atol=1e-12)


@pytest.mark.fast
def test_stair_heights_smoothing_and_envelope():
    s = SURFACES["stair"]
    assert s.grade == pytest.approx(0.03 / 0.13)
    # the true steps: 0 before the first edge, +rise after each edge
    np.testing.assert_allclose(s.exact_height(np.array([-0.3, -0.19, -0.06, 0.4]), 0.0), [0.0, 0.03, 0.06, 0.15])
    # smoothed: half the rise at an edge, within 0.5 % of the tread level 2.7 widths away
    assert s.height(-0.2, 0.0) == pytest.approx(0.015)
    assert abs(s.height(-0.2 + 0.027, 0.0) - 0.03) < 0.005 * 0.03
    # the envelope is above the true ground everywhere (to 0.3 % of a rise at an edge)
    x = np.linspace(-0.4, 0.6, 20001)
    assert np.all(s.envelope(x, 0.0) >= s.exact_height(x, 0.0) - 0.003 * 0.03)
    # the ramp for the base height band is a straight line over the stair
    xm = np.linspace(-0.1, 0.3, 9)
    np.testing.assert_allclose(np.diff(s.reference_height(xm, 0.0)) / np.diff(xm), s.grade, rtol=1e-9)


@pytest.mark.fast
@pytest.mark.parametrize("name", SURFACES)
def test_description_rebuilds_the_surface(name):
    s = SURFACES[name]
    back = surface_from_description(s.describe())
    x, y = RNG.uniform(-0.3, 0.5, 20), RNG.uniform(-0.3, 0.3, 20)
    np.testing.assert_allclose(back.height(x, y), s.height(x, y), atol=1e-12)


BASE = {"robot": "solo12", "gait": {"cycle": "full", "phases": [
    {"name": "a", "contacts": {"FL": "stance", "FR": "swing", "HL": "swing", "HR": "stance"}, "knots": 4,
     "duration": 0.22},
    {"name": "b", "contacts": {"FL": "swing", "FR": "stance", "HL": "stance", "HR": "swing"}, "knots": 4,
     "duration": 0.22}]}, "stride": 0.13}


@pytest.mark.fast
@pytest.mark.parametrize("terrain, field", [
    ({"stairs": {"rise": 0.03, "run": 0.13}}, "terrain.stairs.count"),
    ({"stairs": {"rise": 0.03, "run": 0.13, "count": 3, "width": 1}}, "terrain.stairs.width"),
    ({"slope_deg": 5, "stairs": {"rise": 0.03, "run": 0.13, "count": 3}}, "terrain.stairs"),
    ({"steps": [{"x": 0.3, "height": 0.1}, {"x": 0.2, "height": 0.0}]}, "terrain.steps"),
    ({"height_map": {"spacing": [0.1, 0.1], "heights": [[0, 1], [0]]}}, "terrain.height_map.heights"),
    ({"height_map": {"spacing": [0.0, 0.1], "heights": [[0, 0], [0, 0]]}}, "terrain.height_map.spacing"),
    ({"slope_deg": 5, "smoothing": 0.01}, "terrain.smoothing"),
    ({"cliff": 1}, "terrain.cliff"),
])
def test_bad_terrain_is_a_one_line_error(terrain, field):
    with pytest.raises(InputError) as err:
        problem_from_dict({**BASE, "terrain": terrain}, "p.yaml")
    assert err.value.field == field
    assert "\n" not in str(err.value) and "p.yaml" in str(err.value)


@pytest.mark.fast
@pytest.mark.parametrize("heights, says", [([[0, float("nan")], [0, 0]], "finite"), ([[0, 1e9], [0, 0]], "<= 10 m")])
def test_bad_height_map_values_are_named_not_called_a_shape(heights, says):
    # a NaN or a 1e9 m height in a well-shaped grid was reported as "got shape (2, 2)"
    with pytest.raises(InputError) as err:
        problem_from_dict({**BASE, "terrain": {"height_map": {"spacing": [0.1, 0.1], "heights": heights}}}, "p.yaml")
    assert err.value.field == "terrain.height_map.heights"
    assert says in str(err.value) and "shape" not in str(err.value).split("(allowed")[0]


@pytest.mark.fast
@pytest.mark.parametrize("stairs, field, says", [
    # run 0.1 m does not divide the 0.13 m stride
    ({"rise": 0.03, "run": 0.1, "count": 12, "start_x": -0.6}, "terrain.stairs.run", "not a whole number of runs"),
    # the stair ends inside the feet's path
    ({"rise": 0.03, "run": 0.13, "count": 3, "start_x": -0.52}, "terrain.stairs.count", "does not span"),
])
def test_a_stair_the_cycle_does_not_repeat_on_is_refused(stairs, field, says):
    problem = problem_from_dict({**BASE, "terrain": {"stairs": stairs}}, "p.yaml")
    with pytest.raises(InputError, match=says) as err:
        go.solve(problem)
    assert err.value.field == field
    # the hint (where the feet go) was cut off by the message's length limit
    assert "…" not in str(err.value) and "feet's path x = " in str(err.value)


@pytest.mark.fast
def test_a_stair_refused_for_its_run_names_the_strides_that_fit():
    """A new user's Go2 trot (half cycle, stride 0.225 m) up a 0.28 m-run stair: the error
    offered only runs of 0.1125 m / n, while the stair is the given and the stride the choice;
    it now names the strides that fit, and the full cycle's."""
    problem = go.load_problem(go.__path__[0] + "/../problems/go2_trot.yaml",
                              ["terrain={stairs: {rise: 0.09, run: 0.28, count: 10, start_x: -1.0}}"])
    with pytest.raises(InputError, match="not a whole number of runs") as err:
        go.solve(problem)
    assert "a stride of n × 0.56 m (gait.cycle: full: n × 0.28 m)" in str(err.value)
    full = problem_from_dict({**BASE, "terrain": {"stairs": {"rise": 0.03, "run": 0.1, "count": 12,
                                                            "start_x": -0.6}}}, "p.yaml")
    with pytest.raises(InputError, match=r"or a stride of n × 0\.1 m, over the feet's path"):
        go.solve(full)


def _quiet(problem):
    return problem.replace(solver=dataclasses.replace(problem.solver, print_level=0))


def test_stair_footholds_on_the_surface_from_the_exported_file(tmp_path):
    """solo12_stairs at test size: every stance point in trajectory.csv sits on the (exact)
    tread, the header rebuilds the terrain, and the base rises rise × steps per stride."""
    import pinocchio as pin
    problem = _quiet(go.load_problem(go.__path__[0] + "/../problems/solo12_stairs.yaml").scaled_knots(0.5))
    result = go.solve(problem)
    assert result.success, result.status
    save(result, tmp_path)
    meta, cols = read_trajectory_csv(tmp_path / "trajectory.csv")
    surface = surface_from_description(meta["terrain"]["surface"])
    robot = result.robot
    data = robot.model.createData()
    q = np.column_stack([cols[f"q.{c}"] for c in robot.coordinates])
    stance = 0
    for k in range(len(q)):
        pin.framesForwardKinematics(robot.model, data, q[k])
        for c in robot.contacts:
            f = np.array([cols[f"f.{c.name}.{a}"][k] for a in "xyz"])
            if np.linalg.norm(f) > 1e-6:
                p = data.oMf[c.frame_id].act(c.point)
                assert abs(p[2] - surface.exact_height(p[0], p[1])) < 2e-3, (c.name, k, p)
                stance += 1
    assert stance > 0
    # the summary's friction ratios are about the ground's normal under each point (the cones the
    # plan bounds, here from the exported terrain), so within μ; about world z they differ at the
    # smoothed edges
    mu = problem.constraints.friction
    peaks = [f["peak_friction_ratio"] for f in export_summary(result)["feet"].values()]
    assert 0.0 < max(peaks) <= mu * (1 + 1e-6)
    tb = sample_table(result)
    in_contact = Q.point_flags(robot, result.trajectory, tb["phase"])
    local = np.where(in_contact, Q.surface_friction_ratio(surface, Q.contact_points(robot, tb["q"]), tb["f"]), np.nan)
    assert max(peaks) == pytest.approx(np.nanmax(local), rel=1e-9)
    assert np.nanmax(np.abs(local - np.where(in_contact, Q.friction_ratio(tb["f"]), np.nan))) > 1e-3
    rise = q[:, robot.coordinates.index("base_z")]
    assert meta["terrain"]["periodic_slope_rad"] == pytest.approx(np.arctan(0.03 / 0.13))
    assert result.trajectory.base_shift[robot.coordinates.index("base_z")] == pytest.approx(0.03, abs=1e-9)
    assert np.isfinite(rise).all()


def test_anymal_trot_up_a_stair_whose_run_is_the_stride():
    """ANYmal C trotting up a stair with run = stride (0.2 m, rise 0.04 m): its diagonal feet
    are 0.715 m apart, so the standing posture put footholds on the smoothed risers and IPOPT
    reported the problem infeasible (foothold_grade violated by 0.27); the guess now shifts each
    foot onto a tread and the solve succeeds, every foothold within the grade bound."""
    from gaitopt.constraints.contact import FOOTHOLD_GRADE
    from gaitopt.guess import NominalGait
    from gaitopt.schedule import Schedule

    phases = [{"name": n, "contacts": dict(zip(["LF", "RF", "LH", "RH"], m)), "knots": 6, "duration": 0.27}
              for n, m in (("a", ["stance", "swing", "swing", "stance"]), ("b", ["swing", "stance", "stance", "swing"]))]
    problem = _quiet(problem_from_dict({
        "robot": "anymal_c", "gait": {"cycle": "full", "phases": phases}, "stride": 0.2,
        "terrain": {"stairs": {"rise": 0.04, "run": 0.2, "count": 12, "start_x": -1.0}},
        "constraints": {"friction": {"mu": 0.7, "cone": "pyramid"}, "clearance": 0.08, "touchdown": "soft"},
        "cost": "joule_loss", "solver": {"max_iter": 300}}, "anymal_stairs.yaml"))
    robot = go.load_robot("anymal_c")
    nominal = NominalGait(robot, problem, Schedule(robot, problem))
    for foot, runs in nominal.runs.items():
        for a, b in runs:
            x = nominal.targets(0.5 * (a + b))[[i for i, c in enumerate(robot.contacts) if c.foot == foot], 0]
            assert np.abs(nominal.surface.gradient(x, 0.0 * x)[0]).max() <= 0.5 * FOOTHOLD_GRADE, (foot, x)
    result = go.solve(problem, robot=robot)
    assert result.success, (result.status, result.max_violation)


@pytest.mark.parametrize("name", ["stair", "height_map"])
def test_mujoco_ground_matches_the_surface(name):
    """A ray cast down onto MuJoCo's ground hits the surface's height (boxes: the true steps;
    height field: its samples, bilinear between them)."""
    mujoco = pytest.importorskip("mujoco")
    from gaitopt.verify import build_model
    s = SURFACES[name]
    sim = build_model(go.load_robot("solo12"), surface=s, check=False)
    mujoco.mj_forward(sim.model, sim.data)
    geomid = np.zeros(1, np.int32)
    for x, y in RNG.uniform([-0.3, -0.25], [0.5, 0.25], (20, 2)):
        if name == "stair" and np.min(np.abs(np.array(s.edges) - x)) < 1e-3:
            continue
        d = mujoco.mj_ray(sim.model, sim.data, np.array([x, y, 1.0]), np.array([0.0, 0.0, -1.0]), None, 1, -1,
                          geomid)
        want = s.exact_height(x, y) if name == "stair" else s.height(x, y)
        # the height field is piecewise linear between 5 mm samples: 1 mm on this very rough test map
        assert 1.0 - d == pytest.approx(float(want), abs=1e-3), (x, y)


@pytest.mark.fast
@pytest.mark.parametrize("terrain", [
    "{stairs: {rise: 0.03, run: 0.13, count: 0}}",
    "{height_map: {spacing: [0.1, 0.1], heights: [[0, .nan], [0, 0]]}}",
    "{stairs: {rise: 0.03, run: 0.1, count: 12, start_x: -0.6}}",     # does not repeat with the stride
])
def test_cli_bad_terrain_exit_2(terrain, tmp_path, capsys):
    from gaitopt.cli import main
    text = (go.__path__[0] + "/../problems/solo12_stairs.yaml")
    lines = [ln for ln in open(text, encoding="utf-8").read().splitlines() if not ln.startswith(("  stairs", "  smoothing"))]
    body = "\n".join(ln if ln != "terrain:" else f"terrain: {terrain}" for ln in lines)
    path = tmp_path / "bad.yaml"
    path.write_text(body, encoding="utf-8")
    code = main(["solve", str(path), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("gaitopt: ") and "bad.yaml" in err and "terrain" in err and len(err.strip().splitlines()) == 1


@pytest.mark.fast
def test_problem_record_keeps_the_terrain():
    from gaitopt.problem import problem_from_record
    problem = go.load_problem(go.__path__[0] + "/../problems/solo12_stairs.yaml")
    back = problem_from_record(problem.to_dict())
    assert back.terrain == problem.terrain and back.terrain["stairs"]["run"] == 0.13


@pytest.mark.fast
def test_a_list_of_steps():
    from gaitopt.terrain_io import surface_from_terrain
    s = surface_from_terrain({"steps": [{"x": 0.2, "height": 0.05}, {"x": 0.6, "height": -0.02}]})
    np.testing.assert_allclose(s.exact_height(np.array([0.0, 0.3, 0.7]), 0.0), [0.0, 0.05, -0.02])
    x = np.linspace(-0.5, 1.5, 4001)
    assert np.all(s.envelope(x, 0.0) >= s.exact_height(x, 0.0) - 0.003 * 0.07)   # a down step too
    assert s.reference_height(-1.0, 0.0) == 0.0 and s.reference_height(2.0, 0.0) == pytest.approx(-0.02)


def test_level_body_on_the_slope():
    """hexapod_slope_level at test size: base roll and pitch within ±0.02 rad of the world's
    horizontal while the ground rises 10°, so the legs take up the slope: in the base frame
    the front feet stand higher than the rear ones by about their distance × tan 10°."""
    import pinocchio as pin
    problem = _quiet(go.load_problem(go.__path__[0] + "/../problems/hexapod_slope_level.yaml").scaled_knots(0.5))
    result = go.solve(problem)
    assert result.success, result.status
    robot, traj = result.robot, result.trajectory
    q = np.concatenate([p.q for p in traj.phases])
    for c in ("base_roll", "base_pitch"):
        assert np.abs(q[:, robot.index(c)]).max() <= 0.02 + 1e-6
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.standing_q)
    x_stand = {c.name: data.oMf[c.frame_id].act(c.point)[0] for c in robot.contacts}
    pin.framesForwardKinematics(robot.model, data, q[0])
    base_z = q[0, robot.index("base_z")]
    rel = {c.name: data.oMf[c.frame_id].act(c.point)[2] - base_z for c in robot.contacts}
    # L1/R1 front, L3/R3 rear (x ±0.2 m standing): 0.4 m × tan 10° = 0.07 m
    front, rear = np.mean([rel["L1"], rel["R1"]]), np.mean([rel["L3"], rel["R3"]])
    dx = np.mean([x_stand["L1"], x_stand["R1"]]) - np.mean([x_stand["L3"], x_stand["R3"]])
    assert front - rear == pytest.approx(dx * np.tan(np.deg2rad(10.0)), abs=0.03)


def test_mjcf_export_carries_the_stair(tmp_path):
    """The MJCF export of a stairs gait holds the same treads as the replay (one box per tread,
    tops at the stair's levels)."""
    mujoco = pytest.importorskip("mujoco")
    from gaitopt.export.mjcf import write_mjcf
    from gaitopt.terrain_io import surface_of
    problem = _quiet(go.load_problem(go.__path__[0] + "/../problems/solo12_stairs.yaml").scaled_knots(0.5))
    result = go.solve(problem)
    path = write_mjcf(result, tmp_path / "stairs.xml")
    model = mujoco.MjModel.from_xml_path(str(path))
    tops = sorted(float(model.geom_pos[i][2] + model.geom_size[i][2]) for i in range(model.ngeom)
                  if model.geom(i).name.startswith("tread_"))
    levels = [0.0] + list(surface_of(problem).levels)
    np.testing.assert_allclose(tops, levels, atol=1e-9)


@pytest.mark.fast
@pytest.mark.parametrize("start_x, count", [(-0.52, 3), (-0.05, 12), (-1.2, 6)])
def test_a_short_stairs_error_names_the_bounds_the_check_accepts(start_x, count):
    """A new user's Go1 stair (run = stride 0.2 m): the error said start_x <= -0.256 m and
    count >= 11, while start_x -0.1 m and count 10 were accepted. The named start_x and count
    must be accepted, and a centimetre later (the smoothing width) or one step fewer refused."""
    import re

    from gaitopt.terrain_io import check_terrain

    robot = go.load_robot("solo12")

    def check(x0, n):
        stairs = {"rise": 0.03, "run": 0.13, "count": n, "start_x": x0}
        check_terrain(problem_from_dict({**BASE, "terrain": {"stairs": stairs}}, "p.yaml"), robot)

    with pytest.raises(InputError) as err:
        check(start_x, count)
    latest, _ = re.search(r"start_x <= (-?[\d.]+) m and count >= (\d+)", str(err.value)).groups()
    latest = float(latest)
    x0 = min(start_x, latest)
    need = int(re.search(r"count >= (\d+)", str(_first_error(check, x0, 1))).group(1))
    check(latest, 40)            # the latest start named, a long stair: accepted
    check(x0, need)              # the count named from an accepted start: accepted
    with pytest.raises(InputError):
        check(latest + 0.01, 40)
    with pytest.raises(InputError):
        check(x0, need - 1)


def _first_error(check, *args):
    with pytest.raises(InputError) as err:
        check(*args)
    return err.value


@pytest.mark.fast
@pytest.mark.parametrize("cycle, says", [("full", "a stride of n × 0.2 m"),
                                         ("half", "a stride of n × 0.4 m (gait.cycle: full: n × 0.2 m)")])
def test_a_height_map_refused_for_its_period_names_the_period(cycle, says):
    """A new user's Go1 on a 4 × 0.05 m map at a 0.15 m stride was told "the map's x period
    dividing the advance" without the period; the error now names it and the strides that fit."""
    from gaitopt.terrain_io import check_terrain

    grid = [[0.0, 0.01], [0.01, 0.0], [0.0, -0.01], [-0.01, 0.0]]
    phases = BASE["gait"]["phases"]
    spec = {**BASE, "gait": {"cycle": cycle, "phases": phases if cycle == "full" else phases[:1]}, "stride": 0.15,
            "terrain": {"height_map": {"origin": [0.0, -0.2], "spacing": [0.05, 0.2], "heights": grid}}}
    with pytest.raises(InputError) as err:
        check_terrain(problem_from_dict(spec, "p.yaml"), go.load_robot("solo12"))
    assert err.value.field == "terrain.height_map"
    assert "x period, 0.2 m" in str(err.value) and says in str(err.value) and "…" not in str(err.value)


def test_a_replay_past_the_stairs_end_is_refused_with_the_cycles_that_fit():
    """A new user's Go1 stair trot (ten steps) replayed for 8 cycles reached the top landing in
    the fifth while the plan went on climbing, and verify blamed the gait (slip 51.6 mm,
    12.2 % short, +240 % Joule loss). The replay now refuses cycles whose footholds leave the
    stair (or the replay's ground), naming how many fit; those that fit are replayed."""
    from gaitopt.terrain_io import surface_of
    from gaitopt import verify
    from gaitopt.verify.settings import CannotReplay
    from gaitopt.terrain_reach import terrain_reach
    from gaitopt.verify.terrain_geoms import TERRAIN_EXTENT

    problem = _quiet(go.load_problem(go.__path__[0] + "/../problems/solo12_stairs.yaml").scaled_knots(0.5))
    result = go.solve(problem)
    assert result.success, result.status
    reach = terrain_reach(result, surface_of(problem), 50)
    # ten steps from x = -0.52 m, last edge at 0.65 m: the shipped replays of 2 and 4 cycles fit
    assert 4 <= reach.cycles < 50 and reach.cycle == reach.cycles + 1
    assert reach.x > 0.65 - 1e-9 and reach.h == pytest.approx(0.3) and reach.z > reach.h + 0.02
    assert terrain_reach(result, surface_of(problem), reach.cycles).cycles == reach.cycles
    with pytest.raises(CannotReplay, match=rf"at most --cycles {reach.cycles} \(a longer stair"):
        verify.replay(result, cycles=reach.cycles + 1)
    longer = problem.replace(terrain={**problem.terrain, "stairs": {**problem.terrain["stairs"], "count": 60}})
    far = terrain_reach(result, surface_of(longer), 50, extent=TERRAIN_EXTENT)   # the replay's ground ends
    assert far.cycles > reach.cycles and far.h is None and far.x > TERRAIN_EXTENT[0][1]
    assert terrain_reach(result, surface_of(longer), 50).cycles == 50   # no extent: the plan's own stair


def test_export_and_animation_past_the_stairs_end_warn(tmp_path):
    """The same Go1 stair trot exported or animated for 8 cycles ended 0.2 m above the top
    landing, silently: both now warn, naming the cycles that fit."""
    import warnings

    from gaitopt.cli_output import warn_beyond_terrain

    problem = _quiet(go.load_problem(go.__path__[0] + "/../problems/solo12_stairs.yaml").scaled_knots(0.5))
    result = go.solve(problem)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_beyond_terrain(result, 4)
        assert not caught
        warn_beyond_terrain(result, 8)
    assert len(caught) == 1 and "at most --cycles 4 (a longer stair" in str(caught[0].message)
