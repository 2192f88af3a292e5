"""Animation of an optimal gait: the stick figure (Pinocchio forward kinematics of the robot's
model) walking over `cycles` gait cycles, the left and right legs in their own colours, contact
forces as arrows, the CoM as a dot.

Written as a GIF with matplotlib's PillowWriter (Pillow comes with matplotlib) or as an MP4
with ffmpeg when it is on PATH. No pyplot: the figure has its own Agg canvas.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
from matplotlib import animation as mpl_animation

from . import quantities as Q
from .errors import InputError
from .plot import draw_ground_3d, draw_ground_profiles, new_figure, side_view_3d
from .terrain_io import surface_of

VIEWS = ("auto", "sagittal", "3d")
FORMATS = (".gif", ".mp4")
MAX_FPS = 240.0  # frames per second of real time
MAX_CYCLES = 50  # gait cycles shown
MAX_FRAMES = 5000  # frames in all (a GIF of more takes minutes and hundreds of MB)
# stick colours: body; legs of each mirror pair's first foot (left) and second (right), so that
# the legs can be told apart where they cross (one colour for all hid which leg was which)
SEGMENT_COLOURS = {None: "#2d3748", 0: "#2b6cb0", 1: "#2f855a"}


def frame_count(period: float, fps: float, cycles: int) -> int:
    """Frames of an animation of `cycles` gait cycles at fps; InputError (naming the limit)
    beyond MAX_FPS, MAX_CYCLES or MAX_FRAMES."""
    if isinstance(fps, bool) or not isinstance(fps, (int, float, np.integer, np.floating)) \
            or not (np.isfinite(fps) and 0 < fps <= MAX_FPS):
        raise InputError(f"fps must be a positive number ≤ {MAX_FPS:g}, got {fps!r}", field="fps",
                         allowed=f"0 < fps ≤ {MAX_FPS:g}")
    if isinstance(cycles, bool) or not isinstance(cycles, (int, np.integer)) or not 1 <= cycles <= MAX_CYCLES:
        raise InputError(f"cycles must be a whole number from 1 to {MAX_CYCLES}, got {cycles!r}", field="cycles",
                         allowed=f"1 … {MAX_CYCLES}")
    n = max(2, int(np.ceil(cycles * period * fps)))
    if n > MAX_FRAMES:
        raise InputError(f"{n} frames ({cycles} cycles of {period:.4g} s at {fps:g} fps) exceed the limit "
                         f"of {MAX_FRAMES}; lower fps or cycles", field="fps", allowed=f"≤ {MAX_FRAMES} frames")
    return n


def ffmpeg_available() -> bool:
    return shutil.which("ffmpeg") is not None


def default_suffix() -> str:
    """.mp4 where ffmpeg is on PATH, else .gif."""
    return ".mp4" if ffmpeg_available() else ".gif"


def gait_animation(result, *, fps: float = 25.0, cycles: int = 1, view: str = "auto", force_scale: float | None = None):
    """A matplotlib FuncAnimation of the gait (not saved; see `save_animation`).

    fps: frames per second of real time; cycles: gait cycles shown (the base advances);
    view: sagittal (x–z), 3d, or auto (3d for 3-D robots); force_scale: arrow length per
    newton [m/N] (default: the body weight drawn as 0.3 × the robot's height)."""
    fig, draw, n = _frames(result, fps, cycles, view, force_scale)
    return mpl_animation.FuncAnimation(fig, draw, frames=n, interval=1000.0 / fps, blit=False)


def _frames(result, fps, cycles, view, force_scale):
    """(figure, draw(k) setting frame k's artists, number of frames) of the gait's animation."""
    if view not in VIEWS:
        raise InputError(f"unknown view {view!r}", field="view", allowed=VIEWS)
    traj, robot = result.trajectory, result.robot
    n = frame_count(traj.period, fps, cycles)
    if view == "auto":
        view = "3d" if robot.base == "3d" else "sagittal"
    poses = Q.Poses(robot)
    t = np.arange(n) / fps
    s = traj.sample(t)
    flags = Q.point_flags(robot, traj, s["phase"])
    frames = [poses.evaluate(q) for q in s["q"]]
    pts = np.array([poses.stack(e) for e in frames])  # (n, npts, 3)
    nj = robot.model.njoints - 1
    lo, hi = pts.reshape(-1, 3).min(axis=0), pts.reshape(-1, 3).max(axis=0)
    height = max(hi[2] - lo[2], 0.05)
    scale = force_scale or 0.3 * height / (robot.total_mass * 9.81)
    surface = surface_of(result.problem)
    segs = poses.segments
    colours = [SEGMENT_COLOURS[s] for s in poses.segment_sides()]

    fig = new_figure(8, 4.5 if view == "sagittal" else 6)
    if view == "3d":
        ax = fig.add_subplot(projection="3d")
        side_view_3d(ax)
        lines = [ax.plot([], [], [], color=c, lw=2)[0] for c in colours]
        forces = [ax.plot([], [], [], color="#e53e3e", lw=1.2)[0] for _ in robot.contacts]
        com, = ax.plot([], [], [], "o", color="k", ms=4)
        y_range = (min(lo[1], -0.1) - 0.1, max(hi[1], 0.1) + 0.1)
        draw_ground_3d(ax, surface, (lo[0] - 0.1, hi[0] + 0.1), y_range)
        span = np.maximum(np.array([hi[0] - lo[0] + 0.2, y_range[1] - y_range[0], height + 0.05]), 1e-3)
        ax.set_xlim(lo[0] - 0.1, hi[0] + 0.1)
        ax.set_ylim(*y_range)
        ax.set_zlim(min(lo[2], 0.0), lo[2] + span[2])
        ax.set_box_aspect(span / span.max())
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")
        ax.set_zlabel("z [m]")
    else:
        ax = fig.subplots()
        lines = [ax.plot([], [], color=c, lw=2)[0] for c in colours]
        forces = [ax.plot([], [], color="#e53e3e", lw=1.2)[0] for _ in robot.contacts]
        com, = ax.plot([], [], "o", color="k", ms=4)
        x0, x1 = lo[0] - 0.1, hi[0] + 0.1
        xg = np.linspace(x0, x1, 400)
        profiles = draw_ground_profiles(ax, surface, xg, np.array([e["contacts"][:, 1] for e in frames]))
        zg = np.concatenate([z for _, z in profiles])
        ax.set_xlim(x0, x1)
        ax.set_ylim(min(lo[2], zg.min()) - 0.02, hi[2] + 0.1 * height)
        ax.set_aspect("equal")
        ax.set_xlabel("x [m]")
        ax.set_ylabel("z [m]")
    label = ax.set_title("")
    turning = f", {traj.turn / traj.period:.3g} rad/s yaw" if traj.turn else ""
    fig.suptitle(f"{robot.name}: {cycles} cycle(s), {traj.distance / traj.period:.3g} m/s{turning}"
                 f"{_side_names(robot)}")

    def draw(k):
        p = pts[k]
        for line, (a, b) in zip(lines, segs):
            _set(line, p[[a, b]], view)
        for ci, line in enumerate(forces):
            if flags[k, ci]:
                c = p[nj + ci]
                _set(line, np.array([c, c + scale * s["f"][k, ci]]), view)
            else:
                _set(line, np.zeros((0, 3)), view)
        _set(com, frames[k]["com"][None, :], view)
        label.set_text(f"t = {t[k]:.3f} s   {s['phase'][k]}")
        return lines + forces + [com, label]

    return fig, draw, n


def _side_names(robot) -> str:
    """'; blue: FL, RL; green: FR, RR': the first and the second foot of every mirror pair (the
    colours of `Poses.segment_sides`), '' without a pair. Naming only the first pair told a
    quadruped's user that blue was FL alone while RL was drawn blue too."""
    pairs = robot.mirror.foot_pairs if robot.mirror else {}
    order = list(pairs)  # insertion order: each pair's first foot before its partner
    first = [f for f, p in pairs.items() if f != p and order.index(f) < order.index(p)]
    if not first:
        return ""
    return f"; blue: {', '.join(first)}; green: {', '.join(pairs[f] for f in first)}"


def _set(line, xyz, view):
    if view == "3d":
        line.set_data_3d(xyz[:, 0], xyz[:, 1], xyz[:, 2])
    else:
        line.set_data(xyz[:, 0], xyz[:, 2])


def save_animation(result, path: str | Path, *, fps: float = 25.0, cycles: int = 1, view: str = "auto",
                   dpi: int = 80) -> Path:
    """Write the animation to path: .gif (PillowWriter) or .mp4 (ffmpeg, which must be on PATH).
    Raises InputError for another suffix or an .mp4 without ffmpeg."""
    path = Path(path)
    if path.suffix not in FORMATS:
        raise InputError(f"unknown animation file type {path.suffix!r}", file=str(path), allowed=FORMATS)
    if path.suffix == ".mp4" and not ffmpeg_available():
        raise InputError("an .mp4 needs ffmpeg on PATH; write a .gif instead", file=str(path))
    fig, draw, n = _frames(result, fps, cycles, view, None)
    writer = mpl_animation.FFMpegWriter(fps=fps) if path.suffix == ".mp4" else mpl_animation.PillowWriter(fps=fps)
    path.parent.mkdir(parents=True, exist_ok=True)
    # The layout is computed once, on the first frame, then frozen: FuncAnimation.save drew
    # each frame three times and laid it out twice (a heel–toe GIF of 59 frames took 7.6 s;
    # docs/export.md), and a layout redone per frame made the axes jitter with the title's width.
    draw(0)
    fig.canvas.draw()
    fig.set_layout_engine("none")
    from .export.atomic import atomic_path  # why: an interrupted write never leaves half a file
    with atomic_path(path) as tmp:
        with writer.saving(fig, str(tmp), dpi):
            for k in range(n):
                draw(k)
                writer.grab_frame()
    return path
