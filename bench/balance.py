"""HOAP-2 balance limits: the static tipping angle of each of the thesis's 16 protocol moves,
predicted with gaitopt.balance against the angle measured on the real robot; print markdown
tables (docs/balance.md).

    python bench/balance.py [--robot hoap2]

Table 1: no parameter fitted. Table 2: the same with the thesis's measured backlash (2° at hip
and ankle pitch) taken up towards the fall; nothing fitted. Table 3: one parameter (a uniform
inset of the support polygon) fitted with two-fold cross-validation (fit on the 8 arms-forward
moves, score on the 8 arms-lowered ones, and the other way round).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gaitopt import balance as B  # noqa: E402
from gaitopt.robot import load_robot  # noqa: E402


def print_table(rows, protocol) -> None:
    print("\n| move | joints | measured [deg] | predicted [deg] | error [deg] | falls (named / predicted) | "
          "CoM margin at the measured angle [mm] |\n|---|---|---|---|---|---|---|")
    for r in rows:
        pred = f"{r['predicted_deg']:.2f}" if r["tipped"] else f"no tip up to {r['limit_deg']:.0f}"
        err = f"{r['error_deg']:+.2f}" if r["tipped"] else f"≥ {abs(r['error_deg']):.2f}"
        print(f"| {r['move']} | {', '.join(r['joints'])} | {r['measured_deg']:.2f} | {pred} | {err} | "
              f"{r['falls']} / {r['edge'] or '—'} | {1e3 * r['margin_at_measured']:.1f} |")
    n_free = sum(not r["tipped"] for r in rows)
    bound = " (a lower bound: moves that do not tip count at their joint limit)" if n_free else ""
    print(f"\nmean absolute error {B.mean_abs_error(rows):.2f} deg over {len(rows)} moves{bound}; "
          + "; ".join(f"thesis {k}: {v:.2f} deg" for k, v in protocol.thesis_mae_deg.items()))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--robot", default="hoap2")
    args = ap.parse_args()
    robot = load_robot(args.robot)
    protocol = B.load_protocol(robot.folder)
    for backlash in (False, True):
        print_table(B.balance_table(robot, protocol, backlash=backlash), protocol)
    cv = B.cross_validated_margin(robot, protocol)
    print("\n| fitted on | inset [mm] | MAE on the fitting half [deg] | MAE on the other half [deg] |\n|---|---|---|---|")
    for f in cv["folds"]:
        half = "arms forward" if "L Arm" not in f["train"][0] else "arms lowered"
        print(f"| {half} (8 moves) | {1e3 * f['margin_m']:.0f} | {f['train_mae_deg']:.2f} | {f['test_mae_deg']:.2f} |")
    print(f"\nheld-out mean absolute error {cv['held_out_mae_deg']:.2f} deg")
    insets = np.array([f["margin_m"] for f in cv["folds"]])
    print(f"fitted insets {np.round(1e3 * insets, 1).tolist()} mm")


if __name__ == "__main__":
    main()
