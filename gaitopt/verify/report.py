"""Writing a replay: verify.json and a comparison figure, verify.png."""
from __future__ import annotations

import json
from pathlib import Path

REPORT_FILE = "verify.json"
PLOT_FILE = "verify.png"


def _compare(ax, t, simulated, planned, labels, ylabel, title, **style) -> None:
    """Simulated (solid) and planned (dashed, same colour) columns of (T, k) arrays on one axis."""
    for i, label in enumerate(labels):
        line, = ax.plot(t, simulated[:, i], label=label, **style)
        ax.plot(t, planned[:, i], "--", color=line.get_color(), **style)
    ax.set_xlabel("time [s]")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{title}: simulated (solid), planned (dashed)")
    ax.legend(fontsize=6, ncol=2)


def plot_replay(rep: Replay):
    """A comparison figure (matplotlib Figure, Agg canvas): base position and orientation,
    joint torques and foot vertical forces, simulated (solid) against planned (dashed)."""
    from ..plot import new_figure  # why: matplotlib only when the figure is drawn
    s = rep.series
    t, coords = s["time"], s["coordinates"]
    fig = new_figure(11.0, 8.0)
    axes = fig.subplots(2, 2)
    for ax, names, unit, title in ((axes[0, 0], ("base_x", "base_y", "base_z"), "m", "base position"),
                                   (axes[0, 1], ("base_yaw", "base_pitch", "base_roll"), "rad", "base orientation")):
        idx = [coords.index(c) for c in names if c in coords]
        _compare(ax, t, s["q_sim"][:, idx], s["q_plan"][:, idx], [coords[i] for i in idx], unit, title)
    _compare(axes[1, 0], t, s["tau_sim"], s["tau_plan"], s["actuated"], "N·m", "joint torques", lw=0.8)
    _compare(axes[1, 1], t, s["force_sim"][:, :, 2], s["force_plan"][:, :, 2], s["feet"], "N",
             "foot vertical force", lw=0.8)
    r = rep.report
    fig.suptitle(f"{r['robot']}: {'VERIFIED' if r['verified'] else 'FAILED: ' + '; '.join(r['failures'])}\n"
                 f"distance {r['distance']['simulated_m']:.3f} m simulated vs {r['distance']['planned_m']:.3f} m "
                 f"planned, torque RMS difference {r['torque']['rms_difference_all_Nm']:.3g} N·m", fontsize=9)
    return fig


def write_replay(rep: Replay, outdir, result_dir=None) -> dict:
    """Write verify.json and verify.png into outdir; returns their paths."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    report = dict(rep.report)
    plot_path = outdir / PLOT_FILE
    report["files"] = {"report": REPORT_FILE, "plot": PLOT_FILE}
    if result_dir is not None:
        report["result_dir"] = str(result_dir)
    path = outdir / REPORT_FILE
    from ..export.atomic import atomic_open, atomic_write_text  # why: every writer is atomic
    atomic_write_text(path, json.dumps(report, indent=2) + "\n")
    with atomic_open(plot_path, "wb") as fh:
        plot_replay(rep).savefig(fh, format="png", dpi=110)
    return {"report": path, "plot": plot_path}
