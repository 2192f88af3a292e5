"""Plots of an optimal gait. Each function takes a Result (from `gaitopt.solve` or
`gaitopt.export.load_result`) and returns a matplotlib Figure; none calls plt.show() and none
touches pyplot's global state (figures are built on their own Agg canvas, so they render
headless and display in notebooks).

    import gaitopt as go
    from gaitopt import plot
    fig = plot.joint_torques(result)
    fig.savefig("torques.png")
    plot.plot_all(result, "plots/")      # every plot as PNG

Curves are the transcription's interpolant sampled densely over one cycle (the knot times
included, and both sides of every phase junction); markers show the knots.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Polygon
from matplotlib.ticker import MaxNLocator

from . import quantities as Q
from .actuation import motor_voltage
from .energy import phase_integral
from .export.atomic import atomic_path
from .export.sampling import sample_table
from .terrain_io import surface_of

MODE_COLOURS = {"flat": "#2b6cb0", "stance": "#2b6cb0", "heel": "#dd6b20", "toe": "#38a169", "swing": "#ffffff"}
FLIGHT_COLOUR = "#d0d0d0"  # gait diagram: a phase with no foot on the ground
PHASE_COLOURS = ("#e2e8f0", "#fefcbf", "#c6f6d5", "#fed7e2", "#bee3f8", "#e9d8fd")


def new_figure(width: float = 8.0, height: float = 5.0) -> Figure:
    """A Figure on its own Agg canvas (no pyplot, no global figure registry)."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def cycle_samples(result, n: int = 400) -> dict:
    """`gaitopt.export.sample_table` over one cycle: n+1 uniform times, every knot time, and
    a time just before each phase end so that jumps at junctions show."""
    traj = result.trajectory
    T = traj.period
    extra = [p.t for p in traj.phases] + [np.array([p.t[-1] - 1e-9 * max(T, 1.0) for p in traj.phases])]
    t = np.unique(np.concatenate([np.linspace(0.0, T, n + 1)] + extra))
    return sample_table(result, times=t[(t >= 0.0) & (t <= T)])


def _base_name(phase: str) -> str:
    return phase.split(":")[0]


def shade_phases(ax, traj, labels: bool = True) -> None:
    """Shade each phase of the cycle on a time axis; mirrored halves hatched."""
    names = []
    for p in traj.phases:
        if _base_name(p.name) not in names:
            names.append(_base_name(p.name))
    for p in traj.phases:
        colour = PHASE_COLOURS[names.index(_base_name(p.name)) % len(PHASE_COLOURS)]
        ax.axvspan(p.t[0], p.t[-1], color=colour, alpha=0.6, lw=0, zorder=0,
                   hatch="//" if p.name.endswith(":mirrored") else None)
    if labels:  # inside the top of the axes: above it they ran into the subplot titles
        label_phases(ax, traj, rows=(0.98, 0.90), va="top",
                     bbox=dict(facecolor="white", alpha=0.6, lw=0, boxstyle="square,pad=0.1"))
    ax.set_xlim(0.0, traj.period)


PHASE_LABEL_PT = 6  # font size of the phase names


def label_phases(ax, traj, rows=(1.0,), va="bottom", **text_kw) -> list:
    """Name each phase at its centre on a time axis, at heights `rows` (axes fraction), a label
    going to the first row where it clears the previous one there and left out where none has
    room (short double-support phases side by side ran into one another). Returns the Texts."""
    width_in = ax.get_position().width * ax.figure.get_figwidth()
    per_char = 0.6 * PHASE_LABEL_PT / 72.0 / max(width_in, 1e-6) * traj.period  # [s] per character
    right = [-np.inf] * len(rows)
    out = []
    for p in traj.phases:
        name = p.name.replace(":mirrored", "*")
        half = 0.5 * (len(name) + 1) * per_char
        # at its phase's centre, moved inside the axis where it would run past an end
        centre = float(np.clip(0.5 * (p.t[0] + p.t[-1]), half, max(half, traj.period - half)))
        row = next((r for r in range(len(rows)) if centre - half > right[r]), None)
        if row is None:
            continue
        right[row] = centre + half
        out.append(ax.text(centre, rows[row], name, transform=ax.get_xaxis_transform(), ha="center", va=va,
                           fontsize=PHASE_LABEL_PT, clip_on=False, **text_kw))
    return out


def _grid(fig, n: int, ncols: int | None = None, **kw):
    ncols = ncols or min(n, 3 if n > 4 else 2 if n > 1 else 1)
    nrows = int(np.ceil(n / ncols))
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return axes[:n]


def _knots(traj):
    kn = traj.knots()
    return kn["time"][:-1], {k: kn[k][:-1] for k in ("q", "v", "a", "tau", "f")}


def legend_beside(ax, fontsize: float = 7, **kw):
    """The axes' legend outside it, on its right, top-aligned: inside, it covered the curves and
    the phase names at the top of a time axis (a new user's A1, 2026-11-25). The figures'
    constrained layout makes room for it."""
    return ax.legend(fontsize=fontsize, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)


def series_colours(n: int) -> list:
    """A colour for each of n lines on one axis: matplotlib's default cycle (C0 … C9) up to 10,
    else tab20's 20 (its cycle repeats after 10: a quadruped's 12 joints drew FL_hip and RR_thigh
    alike, in joint_angles and in verify.png)."""
    return [f"C{i}" for i in range(n)] if n <= 10 else [colormaps["tab20"](i % 20) for i in range(n)]


def joint_angles(result) -> Figure:
    """Joint angles [rad] and velocities [rad/s] of the actuated joints over the cycle, with
    the phases shaded and the knots marked."""
    traj, robot = result.trajectory, result.robot
    s = cycle_samples(result)
    tk, kn = _knots(traj)
    fig = new_figure(9, 6)
    ax_q, ax_v = fig.subplots(2, 1, sharex=True)
    idx = robot.actuated_index
    for (i, j), colour in zip(zip(idx, robot.actuated), series_colours(len(idx))):
        ax_q.plot(s["time"], s["q"][:, i], lw=1.2, label=j, color=colour)
        ax_q.plot(tk, kn["q"][:, i], ".", ms=3, color=colour)
        ax_v.plot(s["time"], s["v"][:, i], lw=1.2, color=colour)
        ax_v.plot(tk, kn["v"][:, i], ".", ms=3, color=colour)
    for ax, label in ((ax_q, "angle [rad]"), (ax_v, "velocity [rad/s]")):
        shade_phases(ax, traj, labels=ax is ax_q)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    ax_v.set_xlabel("time [s]")
    legend_beside(ax_q, ncol=1 if len(robot.actuated) <= 12 else 2)
    fig.suptitle(f"{robot.name}: joint angles and velocities (dots: knots)")
    return fig


def _torque_limit(result, joint: str) -> float:
    """The torque bound of the problem: current limit and URDF effort limit, as transcribed
    (trajectory.csv's `torque_bounds`; inf where unbounded)."""
    from .export.model_header import torque_bounds  # numpy only
    bound = torque_bounds(result.robot, result.problem)[joint]
    return np.inf if bound is None else float(bound)


def joint_torques(result) -> Figure:
    """Joint torques [N·m] against their limits (current limit η·G·K·I_max and URDF effort),
    one panel per actuated joint."""
    traj, robot = result.trajectory, result.robot
    s = cycle_samples(result)
    tk, kn = _knots(traj)
    fig = new_figure(10, 7)
    axes = _grid(fig, len(robot.actuated), sharex=True)
    for i, (ax, j) in enumerate(zip(axes, robot.actuated)):
        shade_phases(ax, traj, labels=i < 3)
        ax.plot(s["time"], s["tau"][:, i], lw=1.2, color="k")
        ax.plot(tk, kn["tau"][:, i], ".", ms=3, color="k")
        lim = _torque_limit(result, j)
        if np.isfinite(lim):
            for sign in (1, -1):
                ax.axhline(sign * lim, color="r", ls="--", lw=1)
        peak = np.abs(s["tau"][:, i]).max()
        ax.set_title(f"{j}: peak {peak:.3g} of {lim:.3g} N·m", fontsize=8)
        ax.set_ylabel("τ [N·m]", fontsize=8)
        ax.grid(alpha=0.3)
    for ax in axes[-min(3, len(axes)):]:
        ax.set_xlabel("time [s]")
    fig.suptitle(f"{robot.name}: joint torques and limits (red dashed)")
    return fig


def _feasible(actuator, cons, w, tau):
    """Boolean grid: (ω, τ) inside the motor's torque–speed envelope as the transcription
    states it (voltage |R·τ/(η·G·K) + K·G·ω| ≤ V, current |τ| ≤ η·G·K·I_max, |τ·ω| ≤ P)."""
    a = actuator
    ok = np.ones_like(w, dtype=bool)
    if cons.torque_speed:
        volt = motor_voltage(a, tau, w, a.gear_ratio)
        ok &= np.abs(volt) <= a.voltage
    if cons.current_limit:
        ok &= np.abs(tau) <= a.torque_limit
    if cons.power_limit and np.isfinite(a.rated_power):
        ok &= np.abs(tau * w) <= a.rated_power
    return ok


def torque_speed(result) -> Figure:
    """Each actuated joint's path in the torque–speed plane over its actuator's envelope
    (shaded: voltage line of the DC motor, current limit, power limit when enforced)."""
    robot, cons = result.robot, result.problem.constraints
    s = cycle_samples(result)
    tk, kn = _knots(result.trajectory)
    w = Q.joint_speed(robot, s["v"])
    wk = kn["v"][:, robot.actuated_index]
    fig = new_figure(10, 7)
    axes = _grid(fig, len(robot.actuated))
    for i, (ax, j) in enumerate(zip(axes, robot.actuated)):
        a = robot.actuators[j]
        wmax = 1.15 * max(a.no_load_speed, np.abs(w[:, i]).max())
        tmax = 1.15 * max(min(a.stall_torque, a.torque_limit * 1.5), np.abs(s["tau"][:, i]).max())
        W, T = np.meshgrid(np.linspace(-wmax, wmax, 241), np.linspace(-tmax, tmax, 241))
        ax.contourf(W, T, _feasible(a, cons, W, T).astype(float), levels=[0.5, 1.5], colors=["#c6f6d5"])
        ax.contour(W, T, _feasible(a, cons, W, T).astype(float), levels=[0.5], colors=["#2f855a"], linewidths=0.8)
        ax.plot(w[:, i], s["tau"][:, i], lw=1.0, color="k")
        ax.plot(wk[:, i], kn["tau"][:, i], ".", ms=3, color="k")
        ax.set_title(j, fontsize=8)
        ax.set_xlabel("ω [rad/s]", fontsize=8)
        ax.set_ylabel("τ [N·m]", fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{robot.name}: torque–speed paths inside the actuator envelopes (green)")
    return fig


def joint_power(result) -> Figure:
    """Joint mechanical power τ·ω [W] split into its positive (motoring, red) and negative
    (braking, blue) parts, with each part's energy per cycle."""
    traj, robot = result.trajectory, result.robot
    s = cycle_samples(result)
    p = Q.mechanical_power(robot, s["tau"], s["v"])
    t = s["time"]
    whole = [slice(None)]  # the samples hold both sides of every phase junction, 1e-9 s apart
    fig = new_figure(10, 7)
    axes = _grid(fig, len(robot.actuated), sharex=True)
    for i, (ax, j) in enumerate(zip(axes, robot.actuated)):
        shade_phases(ax, traj, labels=i < 3)
        pos, neg = np.maximum(p[:, i], 0.0), np.minimum(p[:, i], 0.0)
        ax.fill_between(t, 0, pos, color="#e53e3e", alpha=0.7, lw=0)
        ax.fill_between(t, 0, neg, color="#3182ce", alpha=0.7, lw=0)
        ax.plot(t, p[:, i], lw=0.6, color="k")
        ax.set_title(f"{j}: +{phase_integral(pos, t, whole):.3g} J, {phase_integral(neg, t, whole):.3g} J",
                     fontsize=8)
        ax.set_ylabel("P [W]", fontsize=8)
        ax.grid(alpha=0.3)
    for ax in axes[-min(3, len(axes)):]:
        ax.set_xlabel("time [s]")
    fig.legend(handles=[Patch(color="#e53e3e", label="positive"), Patch(color="#3182ce", label="negative")],
               loc="lower right", fontsize=7)
    fig.suptitle(f"{robot.name}: joint power τ·ω, positive and negative parts (energy per cycle)")
    return fig


def ground_reaction_forces(result) -> Figure:
    """Ground reaction forces per foot (normal and tangential, sums of the foot's contact
    points) [N], and each contact point's friction ratio |f_t|/f_n against μ (in the sagittal
    plane its foot's total force's, the force the cone bounds: `quantities.cone_friction_ratio`)."""
    traj, robot, problem = result.trajectory, result.robot, result.problem
    s = cycle_samples(result)
    t = s["time"]
    flags = Q.point_flags(robot, traj, s["phase"])
    mu = problem.constraints.friction
    fig = new_figure(9, 7)
    ax_n, ax_t, ax_r = fig.subplots(3, 1, sharex=True)
    # normal and tangents of the ground under each contact point (a plane's, or the local
    # surface's on steps and height maps), the frame the friction cones are written in
    surface = surface_of(problem)
    points = Q.contact_points(robot, s["q"])
    n, t1, t2 = Q.ground_frames(surface, points)
    for foot in robot.feet.values():
        idx = [robot.contact_index(c) for c in foot.contacts]
        F = s["f"][:, idx, :]
        line, = ax_n.plot(t, (F * n[:, idx]).sum(axis=(1, 2)), lw=1.2, label=foot.name)
        ax_t.plot(t, (F * t1[:, idx]).sum(axis=(1, 2)), lw=1.2, color=line.get_color(), label=f"{foot.name} x")
        if robot.base == "3d":
            ax_t.plot(t, (F * t2[:, idx]).sum(axis=(1, 2)), lw=1.0, ls=":", color=line.get_color(),
                      label=f"{foot.name} y")
    ratio = Q.cone_friction_ratio(robot, surface, points, s["f"], flags)
    for ci, c in enumerate(robot.contacts):
        ax_r.plot(t, ratio[:, ci], lw=1.0, label=c.name)
    ax_r.axhline(mu, color="r", ls="--", lw=1, label=f"μ = {mu:g}")
    weight = robot.total_mass * 9.81
    ax_n.axhline(weight, color="gray", ls=":", lw=1, label="m g")
    for ax, label in ((ax_n, "normal [N]"), (ax_t, "tangential [N]"), (ax_r, "|f_t| / f_n")):
        shade_phases(ax, traj, labels=ax is ax_n)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        legend_beside(ax, fontsize=6, ncol=1 if len(ax.get_lines()) <= 12 else 2)
    ax_r.set_ylim(0.0, 1.2 * mu)
    ax_r.set_xlabel("time [s]")
    fig.suptitle(f"{robot.name}: ground reaction forces and friction ratio against μ")
    return fig


def ground_profiles(surface, x: np.ndarray, contacts_y: np.ndarray) -> list:
    """The ground's sagittal profiles z(x) [m] to draw under side views: [(y [m], z (len(x),))].
    One along y = 0 for ground whose height does not vary with y (a plane, a slope, steps); on
    a height map one along each side's feet, at the mean y of the contact points drawn on that
    side (y > 0, y < 0; `contacts_y`, any shape), since the profile at y = 0 is not the ground
    the feet stand on (a new user's Go2 on a ±2 cm map: feet drawn on the y = 0 profile while
    standing up to 20 mm from it)."""
    y = np.asarray(contacts_y, float).ravel()
    sides = [float(y[m].mean()) for m in (y > 1e-3, y < -1e-3) if m.any()] \
        if surface.kind == "height_map" else []
    return [(yy, np.asarray(surface.exact_height(x, yy + 0.0 * x), float)) for yy in sides or [0.0]]


def draw_ground_profiles(ax, surface, x: np.ndarray, contacts_y: np.ndarray) -> list:
    """`ground_profiles` on a side view: solid along y = 0 or the left feet, dashed along the
    right feet (labelled with their y on a height map); returns the profiles."""
    profiles = ground_profiles(surface, x, contacts_y)
    for (y, z), style in zip(profiles, ("-", "--")):
        label = f"ground at y = {y:.3g} m" if len(profiles) > 1 else None
        ax.plot(x, z, style, color="#744210", lw=1.5, zorder=1, gid="ground", label=label)
    if len(profiles) > 1:
        ax.legend(loc="upper left", fontsize=7)
    return profiles


def _ground_line(ax, x0, x1, problem, contacts_y):
    """The ground's profile under the feet (true step edges, the height map's surface)."""
    draw_ground_profiles(ax, surface_of(problem), np.linspace(x0, x1, 400), contacts_y)


def _snapshots(result, n: int):
    """n evenly spaced instants of the cycle: yields (colour, poses dict of `Poses.evaluate`,
    stacked stick-figure points, contact points in contact (nc,) bool), and the segments."""
    traj, robot = result.trajectory, result.robot
    poses = Q.Poses(robot)
    s = traj.sample(np.linspace(0.0, traj.period, n, endpoint=False))
    flags = Q.point_flags(robot, traj, s["phase"])
    cmap = colormaps["viridis"]
    out = []
    for k in range(n):
        e = poses.evaluate(s["q"][k])
        out.append((cmap(k / max(n - 1, 1)), e, poses.stack(e), flags[k]))
    return out, poses.segments


def stick_figures(result, n: int = 8) -> Figure:
    """Sagittal (x–z) stick-figure snapshots at n instants of the cycle, each drawn where the
    robot is (the base advances), from Pinocchio's forward kinematics of the robot's model;
    contact points in contact are filled, the CoM is a cross."""
    fig = new_figure(11, 4)
    ax = fig.subplots()
    snaps, segments = _snapshots(result, n)
    for colour, e, pts, flags in snaps:
        ax.add_collection(LineCollection([pts[[a, b]][:, [0, 2]] for a, b in segments], colors=[colour], lw=1.5))
        c = e["contacts"]
        ax.plot(c[flags, 0], c[flags, 2], "o", color=colour, ms=4)
        ax.plot(c[~flags, 0], c[~flags, 2], "o", mfc="none", color=colour, ms=4)
        ax.plot(e["com"][0], e["com"][2], "x", color=colour, ms=6)
    xs = np.concatenate([pts[:, 0] for _, _, pts, _ in snaps])
    _ground_line(ax, xs.min() - 0.05, xs.max() + 0.05, result.problem,
                 np.concatenate([e["contacts"][:, 1] for _, e, _, _ in snaps]))
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.grid(alpha=0.3)
    fig.suptitle(f"{result.robot.name}: {n} snapshots over one cycle (filled: in contact, ×: CoM)")
    return fig


def ground_mesh(surface, x_range: tuple, y_range: tuple) -> tuple:
    """(xx, yy, zz) [m] of the true ground over x_range × y_range: 60 × 20 points, or for a
    height map the range's ends and every node of the map between them (at most 120 a side),
    so that its bumps are neither skipped nor aliased."""
    if surface.kind != "height_map":
        xx, yy = np.meshgrid(np.linspace(*x_range, 60), np.linspace(*y_range, 20))
        return xx, yy, surface.exact_height(xx, yy)
    axes = []
    for (a, b), o, d in zip((x_range, y_range), surface.origin, surface.spacing):
        nodes = o + d * np.arange(np.floor((a - o) / d) + 1, np.ceil((b - o) / d))
        nodes = nodes[(nodes > a) & (nodes < b)]
        axes.append(np.concatenate([[a], nodes[:: int(np.ceil(len(nodes) / 118)) or 1], [b]]))
    xx, yy = np.meshgrid(*axes)
    return xx, yy, surface.exact_height(xx, yy)


def draw_ground_3d(ax, surface, x_range: tuple, y_range: tuple) -> None:
    """The ground on a 3-D axis: a translucent surface, and for a height map a dark wireframe
    through its nodes (millimetre bumps under a robot of tens of centimetres read as a flat
    plane on the translucent surface alone)."""
    xx, yy, zz = ground_mesh(surface, x_range, y_range)
    ax.plot_surface(xx, yy, zz, color="#d6bcfa", alpha=0.25)
    if surface.kind == "height_map":
        ax.plot_wireframe(xx, yy, zz, color="#744210", lw=0.4, alpha=0.8)


def stick_3d(result, n: int = 5) -> Figure:
    """3-D stick view (Pinocchio forward kinematics) of n instants of the cycle; contact
    points in contact filled, swinging ones open, the CoM track as a line."""
    fig = new_figure(9, 6)
    ax = fig.add_subplot(projection="3d")
    side_view_3d(ax)
    snaps, segments = _snapshots(result, n)
    for colour, e, pts, flags in snaps:
        for a, b in segments:
            ax.plot(*pts[[a, b]].T, color=colour, lw=1.5)
        c = e["contacts"]
        ax.scatter(*c[flags].T, color=colour, s=15)
        ax.scatter(*c[~flags].T, facecolors="none", edgecolors=[colour], s=15)
    poses = Q.Poses(result.robot)
    com = np.array([poses.evaluate(q)["com"] for q in cycle_samples(result, n=100)["q"]])
    ax.plot(*com.T, color="k", lw=0.8, label="CoM")
    allp = np.vstack([pts for _, _, pts, _ in snaps] + [com])
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    draw_ground_3d(ax, surface_of(result.problem), (lo[0] - 0.05, hi[0] + 0.05),
                   (min(lo[1], -0.1) - 0.05, max(hi[1], 0.1) + 0.05))
    span = np.maximum(hi - lo, 1e-3)
    ax.set_box_aspect(span / span.max())
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_zlabel("z [m]")
    ax.legend(fontsize=7)
    fig.suptitle(f"{result.robot.name}: 3-D stick view, {n} instants of one cycle")
    return fig


def side_view_3d(ax) -> None:
    """Look at a 3-D gait from the side, 15° above and 20° in front of the sagittal plane, without
    perspective: x then runs left to right and a level CoM track looks level. Matplotlib's default
    view (azimuth −60°, perspective) drew a G1 walk's periodic CoM as falling 15 cm per cycle."""
    ax.set_proj_type("ortho")
    ax.view_init(elev=15, azim=-70)
    # y runs nearly along the line of sight: its default 5–9 tick labels ran into one another
    # (a new user's A1 bound, 2026-11-25)
    ax.yaxis.set_major_locator(MaxNLocator(3))


def ground_track(result) -> Figure:
    """Centre of mass ground projection, centre of pressure (= ZMP on level ground; = FRI
    only while the feet are flat) and support polygon (convex hull of the contact points in
    contact). 3-D robots: the x–y ground track with polygons at several instants; sagittal
    robots: x over time with the support interval shaded."""
    traj, robot = result.trajectory, result.robot
    s = cycle_samples(result, n=200)
    g = Q.ground_track(robot, traj, s)
    fig = new_figure(10, 5)
    ax = fig.subplots()
    t = s["time"]
    if robot.base == "3d":
        for k in polygon_instants(s["phase"], 8):
            hull = g["support"][k]
            if len(hull) >= 3:
                ax.add_patch(Polygon(hull, closed=True, fill=True, alpha=0.12, color="#2b6cb0"))
                ax.add_patch(Polygon(hull, closed=True, fill=False, lw=0.8, color="#2b6cb0"))
            elif len(hull) == 2:
                ax.plot(hull[:, 0], hull[:, 1], color="#2b6cb0", lw=2, alpha=0.5)
        # the sample at t = T is the next cycle's first, its footholds a stride on: left out
        within = t < traj.period
        pts = g["contacts"][within][g["in_contact"][within]]
        ax.plot(pts[:, 0], pts[:, 1], ".", color="#2b6cb0", ms=3, label="contact points in contact")
        ax.plot(g["com"][:, 0], g["com"][:, 1], color="k", lw=1.5, label="CoM ground projection")
        cop = np.where(_phase_breaks(s["phase"])[:, None], np.nan, g["cop"])
        ax.plot(cop[:, 0], cop[:, 1], color="#e53e3e", lw=1.0, label="CoP = ZMP (FRI while flat)")
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")
        ax.set_aspect("equal")
    else:
        xs = g["contacts"][:, :, 0]
        lo = np.where(g["in_contact"], xs, np.inf).min(axis=1)
        hi = np.where(g["in_contact"], xs, -np.inf).max(axis=1)
        shade_phases(ax, traj)
        ax.fill_between(t, lo, hi, color="#2b6cb0", alpha=0.25, lw=0, label="support polygon (x extent)")
        ax.plot(t, g["com"][:, 0], color="k", lw=1.5, label="CoM x")
        ax.plot(t, np.where(_phase_breaks(s["phase"]), np.nan, g["cop"][:, 0]), color="#e53e3e", lw=1.0,
                label="CoP = ZMP x (FRI while flat)")
        ax.set_xlabel("time [s]")
        ax.set_ylabel("x [m]")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.suptitle(f"{robot.name}: CoM, centre of pressure and support polygon")
    return fig


def polygon_instants(labels, n: int) -> np.ndarray:
    """Sample indices at which `ground_track` draws the support polygon: n instants evenly over
    the samples (the last, t = T, left out) and the middle sample of each phase (each run of
    equal labels). Why the middles: a G1 user's walk with a 0.05 s double support in a 1.2 s
    cycle fell between the even instants, so no two-foot polygon was drawn and the CoP of the
    double supports showed outside every polygon."""
    labels = np.asarray(labels)
    even = np.linspace(0, len(labels) - 1, n + 1).astype(int)[:-1]
    starts = np.flatnonzero(np.concatenate([[True], labels[1:] != labels[:-1]]))
    ends = np.concatenate([starts[1:], [len(labels)]])
    middles = (starts + ends - 1) // 2
    return np.unique(np.concatenate([even, middles[middles < len(labels) - 1]]))


def _phase_breaks(labels) -> np.ndarray:
    """(T,) bool: True at the first sample of a new phase (to break lines that jump there)."""
    labels = np.asarray(labels)
    return np.concatenate([[False], labels[1:] != labels[:-1]])


def gait_diagram(result) -> Figure:
    """Which foot is in which contact mode when: one row per foot over the cycle, bars
    coloured by mode (flat/stance, heel, toe; blank: swing), phase boundaries marked; a flight
    phase (every foot swinging) shaded across all rows."""
    traj, robot = result.trajectory, result.robot
    feet = list(robot.feet)
    fig = new_figure(9, 1.2 + 0.45 * len(feet))
    ax = fig.subplots()
    used = set()
    for p in traj.phases:
        if all(p.modes[foot] == "swing" for foot in feet):
            ax.axvspan(p.t[0], p.t[-1], color=FLIGHT_COLOUR, zorder=0)
            used.add("flight")
        for r, foot in enumerate(feet):
            mode = p.modes[foot]
            if mode != "swing":
                ax.broken_barh([(p.t[0], p.t[-1] - p.t[0])], (r - 0.4, 0.8), color=MODE_COLOURS[mode],
                               edgecolor="k", lw=0.5)
                used.add(mode)
        ax.axvline(p.t[0], color="gray", lw=0.5)
    label_phases(ax, traj)
    ax.set_yticks(range(len(feet)), feet)
    ax.set_ylim(-0.6, len(feet) - 0.4)
    ax.set_xlim(0.0, traj.period)
    ax.invert_yaxis()
    ax.set_xlabel("time [s]")
    colours = {**MODE_COLOURS, "flight": FLIGHT_COLOUR}
    ax.legend(handles=[Patch(color=colours[m], label=m) for m in ("flat", "stance", "heel", "toe", "flight") if m in used],
              fontsize=7, loc="upper right", bbox_to_anchor=(1.0, -0.25), ncol=4)
    # label_phases marks a mirrored phase's name with *: explain the mark only where it is used
    mirrored = any(":mirrored" in p.name for p in traj.phases)
    fig.suptitle(f"{robot.name}: gait diagram" + (" (* mirrored half)" if mirrored else ""))
    return fig


# Every plot `plot_all` writes: a literal, read-only table (name → function).
PLOTS = {
    "joint_angles": joint_angles,
    "joint_torques": joint_torques,
    "torque_speed": torque_speed,
    "joint_power": joint_power,
    "ground_reaction_forces": ground_reaction_forces,
    "stick_figures": stick_figures,
    "stick_3d": stick_3d,
    "ground_track": ground_track,
    "gait_diagram": gait_diagram,
}


def plot_all(result, outdir: str | Path, dpi: int = 110) -> list:
    """Write every plot of PLOTS as OUTDIR/<name>.png (stick_3d only for 3-D robots); returns
    the paths."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, fn in PLOTS.items():
        if name == "stick_3d" and result.robot.base != "3d":
            continue
        fig = fn(result)
        path = outdir / f"{name}.png"
        with atomic_path(path) as tmp:  # never a half-written PNG where a good one was
            fig.savefig(tmp, dpi=dpi, format="png")
        paths.append(path)
    return paths
