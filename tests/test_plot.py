"""Every plot and the animation render headless (Agg) for a biped and a quadruped, return a
Figure without touching pyplot, and draw what they claim (one panel per joint, the limits,
the contact modes, the knots).

Two small solves, once for the module: biped7 heel-toe walk and Solo-12 trot (knots × 0.5).
"""
from __future__ import annotations

import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (only to check that plots leave pyplot alone)
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from PIL import Image  # noqa: E402  (Pillow comes with matplotlib)

import gaitopt as go  # noqa: E402
from gaitopt import animate as A  # noqa: E402
from gaitopt import plot as P  # noqa: E402
from gaitopt.errors import InputError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = {"biped": ROOT / "problems" / "biped7_heel_toe_walk.yaml",
            "quadruped": ROOT / "problems" / "solo12_trot.yaml"}


@pytest.fixture(scope="module")
def results():
    out = {}
    for name, path in PROBLEMS.items():
        res = go.solve(go.load_problem(path).scaled_knots(0.5), print_level=0)
        assert res.success, (name, res.status)
        out[name] = res
    return out


@pytest.fixture(params=list(PROBLEMS))
def result(request, results):
    return results[request.param]


@pytest.fixture(autouse=True)
def no_show(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("a plot called plt.show()")
    monkeypatch.setattr(plt, "show", refuse)
    plt.close("all")
    yield
    assert plt.get_fignums() == [], "a plot registered a pyplot figure"


def _render(fig) -> np.ndarray:
    """PNG bytes → RGB array; the figure must draw something besides the background."""
    assert isinstance(fig, Figure)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=50)
    img = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))
    assert img.shape[0] > 50 and img.shape[1] > 50
    assert (img < 250).any(axis=2).mean() > 0.01, "blank figure"
    return img


@pytest.mark.parametrize("name", list(P.PLOTS))
def test_every_plot_renders_headless(result, name):
    fig = P.PLOTS[name](result)
    _render(fig)
    assert fig.get_suptitle().startswith(result.robot.name)


def _visible_axes(fig):
    return [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]


def test_joint_panels_and_limits(result):
    robot = result.robot
    nu = len(robot.actuated)
    fig = P.joint_torques(result)
    axes = _visible_axes(fig)
    assert len(axes) == nu
    for ax, j in zip(axes, robot.actuated):
        assert ax.get_title().startswith(j)
        lim = robot.actuators[j].torque_limit
        levels = sorted(round(line.get_ydata()[0], 9) for line in ax.get_lines() if line.get_linestyle() == "--")
        assert levels == [round(-lim, 9), round(lim, 9)] or levels == sorted(
            round(x, 9) for x in (-robot.effort_limit[robot.index(j)], robot.effort_limit[robot.index(j)]))
    assert len(_visible_axes(P.torque_speed(result))) == nu
    assert len(_visible_axes(P.joint_power(result))) == nu
    # joint angles: one line per joint through the knot values (the dots)
    ax_q = P.joint_angles(result).axes[0]
    kn = result.trajectory.knots()
    dots = [line for line in ax_q.get_lines() if line.get_marker() == "."]
    assert len(dots) == nu
    for line, i in zip(dots, robot.actuated_index):
        np.testing.assert_array_equal(line.get_ydata(), kn["q"][:-1, i])


@pytest.mark.fast
@pytest.mark.parametrize("name", ["joint_torques", "joint_power", "joint_angles", "ground_reaction_forces",
                                  "gait_diagram"])
def test_phase_names_overlap_neither_each_other_nor_titles(result, name):
    """The phase names on a time axis (`label_phases`) clear one another and the panel titles:
    the heel–toe walk's short heel and toe phases side by side ran their names together, and the
    names sat on the torque panels' titles."""
    fig = P.PLOTS[name](result)
    phases = {p.name.replace(":mirrored", "*") for p in result.trajectory.phases}
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    shown = 0
    for ax in _visible_axes(fig):
        boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text() in phases]
        shown += len(boxes)
        for i, a in enumerate(boxes):
            assert not any(a.overlaps(b) for b in boxes[i + 1:]), (name, ax.get_title())
        if ax.get_title() and boxes:
            title = ax.title.get_window_extent(renderer)
            assert not any(title.overlaps(b) for b in boxes), (name, ax.get_title())
        # nor the legend (a new user's A1: the ground forces' legend covered the last phase's name)
        if ax.get_legend() is not None and boxes:
            legend = ax.get_legend().get_window_extent(renderer)
            assert not any(legend.overlaps(b) for b in boxes), (name, "legend", ax.get_title())
    assert shown > 0  # some names are drawn: the checks above can fail


@pytest.mark.fast
def test_ground_track_draws_this_cycles_footholds_only(results):
    """The last sample (t = T) is the next cycle's first knot: its footholds, a stride ahead,
    were drawn as loose points beside the support polygons (a user's hexapod, 2026-11-25)."""
    from gaitopt import quantities as Q
    result = results["quadruped"]
    fig = P.ground_track(result)
    [line] = [ln for ln in fig.axes[0].lines if ln.get_label() == "contact points in contact"]
    drawn = np.column_stack(line.get_data())
    s = P.cycle_samples(result, n=200)
    g = Q.ground_track(result.robot, result.trajectory, s)
    within = s["time"] < result.trajectory.period
    cycle = g["contacts"][within][g["in_contact"][within]][:, :2]
    assert all(np.min(np.linalg.norm(cycle - p, axis=1)) < 1e-9 for p in drawn)
    plt.close(fig)


@pytest.mark.fast
def test_support_polygons_include_every_phase():
    """A G1 user's walk (single support 0.55 s, double support 0.05 s per step): the 8 even
    instants all fell in single support and no double-support polygon was drawn. Each phase's
    middle sample is an instant now; the last sample (t = T, the next cycle's) stays out."""
    labels = ["ss"] * 90 + ["ds"] * 8 + ["ss:mirrored"] * 90 + ["ds:mirrored"] * 8 + ["ss"]
    old = np.linspace(0, len(labels) - 1, 9).astype(int)[:-1]
    assert not any(labels[k].startswith("ds") for k in old)  # the bug: both double supports missed
    got = P.polygon_instants(labels, 8)
    assert {labels[k] for k in got} == {"ss", "ds", "ss:mirrored", "ds:mirrored"}
    assert set(old) <= set(got) and len(labels) - 1 not in got


def test_gait_diagram_shows_each_contact(result):
    fig = P.gait_diagram(result)
    ax = fig.axes[0]
    bars = [c for c in ax.collections]
    expected = sum(p.modes[f] != "swing" for p in result.trajectory.phases for f in result.robot.feet)
    assert len(bars) == expected
    assert [t.get_text() for t in ax.get_yticklabels()] == list(result.robot.feet)


def test_feasible_envelope_matches_the_motor_line(results):
    """The torque–speed envelope: stall torque at zero speed (or the current limit, if lower)
    and the no-load speed at zero torque."""
    res = results["biped"]
    a = res.robot.actuators[res.robot.actuated[0]]
    cons = res.problem.constraints
    w = np.array([0.0, 0.0, 0.999 * a.no_load_speed, 1.001 * a.no_load_speed])
    t = np.array([0.999 * min(a.torque_limit, a.stall_torque), 1.001 * min(a.torque_limit, a.stall_torque), 0.0, 0.0])
    assert list(P._feasible(a, cons, w, t)) == [True, False, True, False]


def test_plot_all_writes_pngs(results, tmp_path):
    """Every plot for the quadruped (stick_3d included); the biped's set (no stick_3d) is
    written by `gaitopt plot` in tests/test_cli_export.py."""
    paths = P.plot_all(results["quadruped"], tmp_path, dpi=40)
    assert [p.stem for p in paths] == list(P.PLOTS)
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_animation_gif(result, tmp_path):
    """One GIF frame per 1/fps of the cycle, each showing the robot where it is then (frames
    differ from one another; the first is drawn as the gait's start)."""
    path = A.save_animation(result, tmp_path / "walk.gif", fps=10, cycles=1, dpi=40)
    with Image.open(path) as im:
        assert im.n_frames == int(np.ceil(result.trajectory.period * 10))
        frames = []
        for k in range(im.n_frames):
            im.seek(k)
            frames.append(np.asarray(im.convert("RGB"), float))
    assert all(np.abs(a - b).mean() > 0.1 for a, b in zip(frames, frames[1:]))


def test_animation_draws_the_height_map(results):
    """A height map's bumps are drawn (a wireframe through its nodes), not a flat plane: the
    wireframe spans the map's height range and passes through the nodes under the robot."""
    import dataclasses

    from mpl_toolkits.mplot3d.art3d import Line3DCollection

    res = results["quadruped"]
    grid = 0.01 * np.random.default_rng(1).normal(size=(8, 6))
    terrain = {"height_map": {"origin": [0.013, -0.02], "spacing": [0.05, 0.07], "heights": grid.tolist()}}
    bumpy = dataclasses.replace(res, problem=dataclasses.replace(res.problem, terrain=terrain))
    for r, drawn in ((res, 0), (bumpy, 1)):
        anim = A.gait_animation(r, view="3d")
        anim._func(0)
        anim._draw_was_started = True  # a frame drawn by hand: no "deleted without rendering" warning
        ax = anim._fig.axes[0]
        wires = [c for c in ax.collections if isinstance(c, Line3DCollection)]
        assert len(wires) == drawn
    segs = np.concatenate(wires[0]._segments3d)
    assert segs[:, 2].min() <= grid.min() + 1e-9 and segs[:, 2].max() >= grid.max() - 1e-9
    x_nodes = 0.013 + 0.05 * np.arange(-4, 12)
    x_nodes = x_nodes[(x_nodes > segs[:, 0].min()) & (x_nodes < segs[:, 0].max())]
    assert len(x_nodes) >= 5 and all(np.isclose(segs[:, 0], x).any() for x in x_nodes)


def test_side_views_draw_the_height_map_under_each_sides_feet(results):
    """On a height map the side views (stick figures, sagittal animation) draw the ground along
    the left and the right feet's y, where they stand, not along y = 0 (a new user's Go2 on a
    ±2 cm map: its feet were drawn on a profile up to 20 mm from their ground); elsewhere one
    profile along y = 0."""
    import dataclasses

    from gaitopt.terrain_io import surface_of

    res = results["quadruped"]
    grid = 0.01 * np.random.default_rng(1).normal(size=(8, 6))
    terrain = {"height_map": {"origin": [0.013, -0.02], "spacing": [0.05, 0.07], "heights": grid.tolist()}}
    bumpy = dataclasses.replace(res, problem=dataclasses.replace(res.problem, terrain=terrain))
    surface = surface_of(bumpy.problem)
    kn = res.trajectory.knots()
    feet_y = np.array([P.Q.Poses(res.robot).evaluate(q)["contacts"][:, 1] for q in kn["q"]])
    for r, sides in ((res, [0.0]), (bumpy, [feet_y[feet_y > 0].mean(), feet_y[feet_y < 0].mean()])):
        fig = P.stick_figures(r)
        anim = A.gait_animation(r, view="sagittal")
        anim._func(0)
        anim._draw_was_started = True
        for ax in (fig.axes[0], anim._fig.axes[0]):
            lines = [ln for ln in ax.get_lines() if ln.get_gid() == "ground"]
            assert len(lines) == len(sides)
            for ln, y in zip(lines, sides):
                x, z = ln.get_data()
                assert np.allclose(z, surface.exact_height(x, y + 0.0 * x) if r is bumpy else 0.0, atol=2e-3)
            if r is bumpy:
                assert all(ln.get_label().startswith("ground at y = ") for ln in lines)
        ln0 = [ln for ln in fig.axes[0].get_lines() if ln.get_gid() == "ground"]
        if r is bumpy:  # what y = 0 would have drawn is not the ground under the feet
            x, z = ln0[0].get_data()
            assert np.abs(z - surface.exact_height(x, 0.0 * x)).max() > 0.004


# leg joints' name prefixes: (left legs, all legs)
LEG_PREFIXES = {"biped7": (("left_",), ("left_", "right_")), "hoap2": (("LLEG",), ("LLEG", "RLEG")),
                "solo12": (("FL_", "HL_"), ("FL_", "FR_", "HL_", "HR_")), "hexapod": (("L",), ("L", "R"))}


@pytest.mark.fast
@pytest.mark.parametrize("robot_name", sorted(LEG_PREFIXES))
def test_legs_are_coloured_by_side(robot_name):
    """The stick figure's segments are on the left legs (0), the right legs (1) or the body
    (None, HOAP-2's arms and head too), as many on each side, and the animation draws the sides
    in their own colours (a new user's trial: one colour hid which leg was which)."""
    from gaitopt.quantities import Poses
    robot = go.load_robot(robot_name)
    poses = Poses(robot)
    sides = poses.segment_sides()
    left, legs = LEG_PREFIXES[robot_name]
    nj = robot.model.njoints - 1
    checked = 0
    for (_, b), side in zip(poses.segments, sides):
        if b < nj:  # a segment ending at a joint
            name = robot.model.names[b + 1]
            assert side == ((0 if name.startswith(left) else 1) if name.startswith(legs) else None), (name, side)
            checked += 1
    assert checked >= 2 * len(robot.feet)
    assert sides.count(0) == sides.count(1) > 0
    assert len({A.SEGMENT_COLOURS[s] for s in (None, 0, 1)}) == 3


@pytest.mark.fast
@pytest.mark.parametrize("robot_name, title", [("biped7", "; blue: left; green: right"),
                                               ("solo12", "; blue: FL, HL; green: FR, HR"),
                                               ("hexapod", "; blue: L1, L2, L3; green: R1, R2, R3")])
def test_animation_title_names_every_foot_of_each_colour(robot_name, title):
    """The title names the feet of every leg drawn blue and green, not only the first pair's
    (a new user's Go2 trial: 'blue: FL, green: FR' while RL and RR were drawn too)."""
    assert A._side_names(go.load_robot(robot_name)) == title


@pytest.mark.fast
def test_animation_bad_input(results, tmp_path):
    res = results["biped"]
    with pytest.raises(InputError, match="allowed: .gif, .mp4"):
        A.save_animation(res, tmp_path / "walk.avi")
    if not A.ffmpeg_available():
        with pytest.raises(InputError, match="ffmpeg"):
            A.save_animation(res, tmp_path / "walk.mp4")
    with pytest.raises(InputError, match="view"):
        A.gait_animation(res, view="top")
    with pytest.raises(InputError, match="cycles"):
        A.gait_animation(res, cycles=0)
    with pytest.raises(InputError, match="fps"):
        A.gait_animation(res, fps=-1.0)
    assert not list(tmp_path.iterdir())


def test_3d_views_look_from_the_side_without_perspective(results):
    """The 3-D stick view and the 3-D animation look at the gait from the side (x left to right,
    15° from above) orthographically: in matplotlib's default perspective view a G1 walk's
    periodic CoM track looked as if it fell 15 cm per cycle."""
    stick = P.stick_3d(results["quadruped"]).axes[0]
    anim = A._frames(results["quadruped"], 5, 1, "3d", None)[0].axes[0]
    for ax in (stick, anim):
        assert (ax.elev, ax.azim) == (15, -70)
        assert np.isinf(ax._focal_length)  # matplotlib's record of set_proj_type("ortho")


def test_locked_joints_are_drawn():
    """A robot whose robot.yaml locks joints (the G1's waist and arms) draws them: a stick from
    each locked joint's URDF parent joint, so the arms and the torso show in the stick views and
    the animation (its reduced model keeps their frames, not their tree). Without locked joints
    nothing is added."""
    import pinocchio as pin

    from gaitopt import quantities as Q
    from gaitopt.robot import load_robot

    g1 = load_robot("g1")
    poses = Q.Poses(g1)
    assert len(poses.locked_frames) == len(g1.locked) == 17
    q = g1.standing_q
    points = poses.points(q)
    m = g1.model
    d = m.createData()
    pin.forwardKinematics(m, d, q)
    pin.updateFramePlacements(m, d)
    node = {m.frames[f].name: len(points) - len(poses.locked_frames) + k for k, f in enumerate(poses.locked_frames)}
    segs = set(poses.segments)
    assert (node["left_shoulder_yaw_joint"], node["left_elbow_joint"]) in segs
    assert (node["waist_roll_joint"], node["waist_pitch_joint"]) in segs
    elbow = d.oMf[m.getFrameId("left_elbow_joint")].translation
    assert np.allclose(points[node["left_elbow_joint"]], elbow)
    assert 0.9 < points[node["left_shoulder_pitch_joint"]][2] < 1.2  # shoulders above the pelvis (0.76 m)
    assert len(poses.segment_sides()) == len(poses.segments)
    biped = Q.Poses(load_robot("biped7"))
    nodes = len(biped.points(load_robot("biped7").standing_q))
    assert biped.locked_frames == [] and nodes == max(max(s) for s in biped.segments) + 1


def test_gait_diagram_explains_the_mirror_mark_only_for_a_half_cycle(results):
    """The title's "(* mirrored half)" explains the * label_phases puts on a mirrored phase; a
    full cycle (a bound: not left/right symmetric) has none, and said so anyway (a new user's
    Go2 bound, 2026-11-25)."""
    half = P.gait_diagram(results["quadruped"])
    assert half.get_suptitle().endswith("(* mirrored half)")
    problem = go.load_problem(PROBLEMS["quadruped"], ["gait={pattern: bound, period: 0.44, knots: 8}"])
    full = go.solve(problem, print_level=0)
    assert full.problem.cycle == "full"
    fig = P.gait_diagram(full)
    assert "mirrored" not in fig.get_suptitle()
    assert not any("*" in t.get_text() for t in fig.axes[0].texts)


def test_joint_angles_tell_every_joint_apart(results):
    """Twelve joints, ten default colours: FL_hip and RR_thigh were drawn alike."""
    fig = P.joint_angles(results["quadruped"])
    lines = [ln for ln in fig.axes[0].get_lines() if not ln.get_label().startswith("_")]
    assert len(lines) == len(results["quadruped"].robot.actuated) == 12
    looks = {(ln.get_color(), ln.get_linestyle()) for ln in lines}
    assert len(looks) == len(lines)


@pytest.mark.parametrize("name", ["go2", "solo12", "biped7", "hexapod"])
def test_a_link_carrying_a_foot_is_drawn_to_the_foot_only(name):
    """A link with no joint below ends at its CoM in the stick figure (a torso, a head), but a
    link that carries a contact point is already drawn to it: the Go2's bent calves grew a spur
    from the knee to their CoM beside the knee → foot stick (a new user's bound, 2026-11-25)."""
    from gaitopt import quantities as Q
    from gaitopt.robot import load_robot
    robot = load_robot(name)
    poses = Q.Poses(robot)
    m = robot.model
    feet_links = {m.frames[c.frame_id].parentJoint for c in robot.contacts}
    assert not feet_links & set(poses.com_joints)
    nj, nc = m.njoints - 1, len(robot.contacts)
    # each foot-carrying joint's node has sticks to its contact points and to nothing else below it
    for j in feet_links:
        below = {b for a, b in poses.segments if a == j - 1}
        assert below and all(nj <= b < nj + nc for b in below), (name, m.names[j])


@pytest.mark.fast
@pytest.mark.parametrize("span", [(1.23, 0.46, 0.34), (0.6, 0.4, 0.4), (2.0, 0.6, 1.2)])
def test_3d_views_label_few_y_ticks(span):
    """From the side the y axis runs nearly along the line of sight, foreshortened: its default
    ticks (11 over a new user's A1 bound, x over 1.23 m and y over ±0.23 m) ran their labels
    into one another. At most four are drawn."""
    fig = P.new_figure(8, 6)
    ax = fig.add_subplot(projection="3d")
    P.side_view_3d(ax)
    ax.set_xlim(-0.47, -0.47 + span[0])
    ax.set_ylim(-span[1] / 2, span[1] / 2)
    ax.set_zlim(0.0, span[2])
    ax.set_box_aspect(np.array(span) / max(span))
    fig.canvas.draw()
    lo, hi = ax.get_ylim()
    drawn = [v for v in ax.get_yticks() if lo <= v <= hi]
    assert 2 <= len(drawn) <= 4, drawn
