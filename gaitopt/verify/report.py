"""Writing a replay: verify.json and a comparison figure, verify.png."""
from __future__ import annotations

import json
import math
from pathlib import Path

from .judge import FIGURE_NAMES

REPORT_FILE = "verify.json"
PLOT_FILE = "verify.png"


def _compare(ax, t, simulated, planned, labels, ylabel, title, **style) -> None:
    """Simulated (solid) and planned (dashed, same colour) columns of (T, k) arrays on one axis,
    a colour per column (`gaitopt.plot.series_colours`: the line style tells simulated from
    planned)."""
    from ..plot import series_colours  # why: matplotlib only when the figure is drawn
    colours = series_colours(len(labels))
    for i, label in enumerate(labels):
        ax.plot(t, simulated[:, i], label=label, color=colours[i], **style)
        ax.plot(t, planned[:, i], "--", color=colours[i], **style)
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
    e, key = r["energy"], r["energy"]["judged"][0]  # the figure the plan's cost priced
    fig.suptitle(f"{r['robot']}: {'VERIFIED' if r['verified'] else 'FAILED: ' + '; '.join(r['failures'])}\n"
                 f"distance {r['distance']['simulated_m']:.3f} m simulated vs {r['distance']['planned_m']:.3f} m "
                 f"planned, torque RMS difference {r['torque']['rms_difference_all_Nm']:.3g} N·m, {FIGURE_NAMES[key]} "
                 f"{e['executed'][key]:.3g} J executed vs {e['planned'][key]:.3g} J "
                 f"planned per cycle, feedback share {r['feedback_share']['all']:.2f}", fontsize=9)
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


def summary_text(r: dict) -> str:
    """The summary `gaitopt verify` prints of a report (verify.json): walking, energy per cycle,
    feedback share, peak torques against the limits, peak contact forces, perturbed runs."""
    e, lim = r["energy"], r["torque"]["limits"]
    worst = max(lim, key=lambda j: lim[j]["peak_simulated_over_limit"]) if lim else None
    lines = [f"{r['robot']}: {r['cycles']} cycles in MuJoCo: distance {r['distance']['simulated_m']:.4f} m simulated vs "
             f"{r['distance']['planned_m']:.4f} m planned ({100 * r['distance']['relative_error']:.1f} % off), "
             f"fell {r['fell']}, slipped {r['slipped']} (largest {1e3 * max(r['slip_m'].values()):.1f} mm), "
             f"torque RMS difference {r['torque']['rms_difference_all_Nm']:.3g} N·m"]
    h = r.get("heading")
    if h:  # a gait that moves sideways or turns
        lines.append(f"  heading: turned {math.degrees(h['simulated_rad']):.2f} deg vs {math.degrees(h['planned_rad']):.2f} deg "
                     f"planned ({100 * h['relative_error']:.1f} % off), direction of travel "
                     f"{math.degrees(h['direction_error_rad']):+.2f} deg off")
    fell_at = r.get("fell_at_s") if r.get("fell") else None
    if fell_at is not None:  # the replay stopped there: the figures below are not a whole run's
        lines.append(f"  energy below: over the {fell_at:.3g} s before the fall, per cycle; not judged")
    for key, label, unit in (("joule_loss_J", "Joule loss", "J"), ("abs_work_J", "absolute work", "J"),
                             ("mean_abs_power_W", "mean absolute power", "W"),
                             ("specific_resistance", "specific resistance", ""),
                             ("electrical_J", "electrical energy (no regeneration)", "J")):
        u = f" {unit}" if unit else ""
        judged = " (judged: the cost priced it)" if key in e.get("judged", ()) and fell_at is None else ""
        lines.append(f"  {label}{' per cycle' if unit == 'J' else ''}: executed {e['executed'][key]:.4g}{u} vs planned "
                     f"{e['planned'][key]:.4g}{u} ({100 * e['relative_error'][key]:+.1f} %){judged}")
    lines.append(f"  feedback share of joint torque (|τ_fb| RMS / |τ| RMS): {r['feedback_share']['all']:.2f}")
    if worst is not None:
        lines.append(f"  peak torque / limit: {lim[worst]['peak_simulated_over_limit']:.2f} simulated "
                     f"({worst}, limit {lim[worst]['limit_Nm']:.3g} N·m), "
                     f"{max(x['peak_planned_over_limit'] for x in lim.values()):.2f} planned; at the limit "
                     f"{100 * max(x['saturated_fraction'] for x in lim.values()):.1f} % of the time (worst joint)")
    lines.append(f"  peak normal contact force simulated / planned: "
                 f"{r['contact_forces']['peak_normal_simulated_over_planned']:.2f}")
    p = r.get("perturbed")
    if p:
        sp = p["energy"]["joule_loss_relative_error"]
        spread = (f"Joule loss vs plan {100 * sp['mean']:+.0f} % ± {100 * sp['std']:.0f} % "
                  f"(min {100 * sp['min']:+.0f} %, max {100 * sp['max']:+.0f} %)" if sp["mean"] is not None
                  else "every run fell")
        lines.append(f"  perturbed: {p['n']} runs (seed {p['seed']}): walked {100 * p['success_rate']:.0f} %, "
                     f"verified {100 * p['verified_rate']:.0f} %; {spread}")
    return "\n".join(lines)
