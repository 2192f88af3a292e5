"""Any direction and turning (#18 item 3): solve the shipped sideways and turning Solo-12 trots,
measure what they achieve from their exported files, and replay them in MuJoCo; prints
docs/turning.md's tables.

    python bench/turning.py [--scales 1] [--cycles 2]
"""
from __future__ import annotations

import argparse
import dataclasses
import tempfile
from pathlib import Path

import numpy as np

import gaitopt as go
from gaitopt import verify
from gaitopt.export import load_result, read_trajectory_csv, save
from gaitopt.quantities import Poses

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "problems" / "solo12_trot_sideways.yaml", ROOT / "problems" / "solo12_trot_turn.yaml"]


def achieved(out: Path) -> dict:
    """Numbers read back from OUT/trajectory.csv (and the reloaded result for sampling)."""
    meta, cols = read_trajectory_csv(out / "trajectory.csv")
    result = load_result(out)
    traj, robot = result.trajectory, result.robot
    coords = list(robot.coordinates)
    ix, iy, iyaw = (coords.index(c) for c in ("base_x", "base_y", "base_yaw"))
    q = np.column_stack([cols[f"q.{c}"] for c in coords])
    v = np.column_stack([cols[f"v.{c}"] for c in coords])
    T, ct = meta["period"], meta["cycle_transform"]
    # chord → body-frame mean velocity: undo R(ψ/2)·sin(ψ/2)/(ψ/2)
    h = 0.5 * ct["yaw"]
    c, s, k = np.cos(h), np.sin(h), (h / np.sin(h) if h else 1.0)
    body = k * np.array([c * ct["x"] + s * ct["y"], -s * ct["x"] + c * ct["y"]]) / T

    def rot_body(row):
        cy, sy = np.cos(q[row, iyaw]), np.sin(q[row, iyaw])
        return np.array([[cy, sy], [-sy, cy]]) @ v[row, [ix, iy]]

    t = np.linspace(0.0, T, 401)
    smp = traj.sample(t)
    poses = Poses(robot)
    names = [cn.name for cn in robot.contacts]
    sep = []
    for qk in smp["q"]:  # lateral gap left − right foot in the body frame, front and hind pairs
        p = poses.evaluate(qk)["contacts"]
        cy, sy = np.cos(qk[iyaw]), np.sin(qk[iyaw])
        yb = -sy * (p[:, 0] - qk[ix]) + cy * (p[:, 1] - qk[iy])
        sep.append(min(yb[names.index("FL")] - yb[names.index("FR")], yb[names.index("HL")] - yb[names.index("HR")]))
    return {"forward": body[0], "sideways": body[1], "yaw_rate": ct["yaw"] / T,
            "residual_q": float(np.abs(q[-2] - q[-1]).max()),
            "residual_vbody": float(np.abs(rot_body(-1) - rot_body(0)).max()),
            "heading_dev": float(np.abs(smp["q"][:, iyaw] - ct["yaw"] / T * t).max()),
            "min_sep": float(min(sep)), "result": result}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=float, nargs="+", default=[1.0])
    ap.add_argument("--cycles", type=int, default=2)
    args = ap.parse_args()
    rows, vrows = [], []
    for path in FILES:
        for scale in args.scales:
            problem = go.load_problem(path).scaled_knots(scale)
            problem = problem.replace(solver=dataclasses.replace(problem.solver, print_level=0))
            result = go.solve(problem)
            tag = f"| {path.stem} | × {scale:g} |"
            if not result.success:
                rows.append(f"{tag} solve failed: {result.status} | | | | | | |")
                continue
            with tempfile.TemporaryDirectory() as d:
                save(result, d)
                a = achieved(Path(d))
            rows.append(f"{tag} {a['forward']:.4f} | {a['sideways']:.4f} | {a['yaw_rate']:.4f} | "
                        f"{a['residual_q']:.1e} | {a['residual_vbody']:.1e} | {np.degrees(a['heading_dev']):.2f} | "
                        f"{1e3 * a['min_sep']:.0f} | {result.cost:.4g} |")
            r = verify.replay(a["result"], cycles=args.cycles).report
            hd = r.get("heading") or {}
            vrows.append(f"{tag} {r['distance']['simulated_m']:.4f} / {r['distance']['planned_m']:.4f} "
                         f"({100 * r['distance']['relative_error']:.1f} %) | "
                         f"{np.degrees(hd.get('simulated_rad', 0.0)):.2f} / {np.degrees(hd.get('planned_rad', 0.0)):.2f} "
                         f"({100 * hd.get('relative_error', 0.0):.1f} %) | {np.degrees(hd.get('direction_error_rad', 0.0)):.2f} | "
                         f"{'at %.2f s' % r['fell_at_s'] if r['fell'] else 'no'} | {1e3 * max(r['slip_m'].values()):.1f} | "
                         f"{r['energy']['planned']['joule_loss_J']:.3g} → {r['energy']['executed']['joule_loss_J']:.3g} "
                         f"({100 * r['energy']['relative_error']['joule_loss_J']:+.0f} %) | {r['feedback_share']['all']:.2f} | "
                         f"{'yes' if r['verified'] else 'no'} |")
    print("| problem | knots | forward [m/s] | sideways [m/s] | yaw rate [rad/s] | periodicity |q| | "
          "body-frame v residual | heading − yaw_rate·t max [deg] | min left−right foot gap [mm] | Joule loss [J/m] |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print(f"| problem | knots | distance sim / plan [m] ({args.cycles} cycles) | turn sim / plan [deg] | "
          "direction error [deg] | fell | largest slip [mm] | Joule loss plan → executed [J/cycle] | feedback share | verified |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(vrows))


if __name__ == "__main__":
    main()
