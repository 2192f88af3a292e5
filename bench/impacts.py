"""Impact-aware gaits (docs/modelling.md, "Impacts"): for each problem, the shipped settings and
variants with the `impact_loss` cost term and a `touchdown_speed` bound — planned cost, largest
touchdown speed, impact loss per distance, and in a MuJoCo replay (gaitopt.verify, 2 cycles)
executed vs planned Joule loss and the feedback share of the joint torque. Prints a Markdown table.

    python bench/impacts.py [--scale 1] [--cycles 2] [--problems biped7_heel_toe_walk solo12_trot]
"""
from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path


import gaitopt as go
from gaitopt import verify
from gaitopt.touchdowns import impact_summary

PROBLEMS = ("biped7_heel_toe_walk", "bolt_walk", "solo12_trot", "anymal_c_trot")
IMPACT = {"constraints.touchdown": "impact", "constraints.touchdown_speed": None}
VARIANTS = {
    "shipped": {},
    "impact, no bound": IMPACT,
    "+impact_loss": {**IMPACT, "cost": {"joule_loss": 1.0, "impact_loss": 1.0}},
    "touchdown_speed 0.3": {**IMPACT, "constraints.touchdown_speed": 0.3},
    "touchdown_speed 0.2": {**IMPACT, "constraints.touchdown_speed": 0.2},
    "touchdown_speed 0.1": {**IMPACT, "constraints.touchdown_speed": 0.1},
    "touchdown_speed 0.05": {**IMPACT, "constraints.touchdown_speed": 0.05},
    "touchdown_speed 0.4": {**IMPACT, "constraints.touchdown_speed": 0.4},
}

ROOT = Path(__file__).resolve().parent.parent


def replay_figures(result, rep) -> dict:
    """From the replay's report (gaitopt.verify): executed and planned Joule loss per cycle [J]
    (the joule_loss index ∫ Σ R (τ/(G K))² dt), its relative error, the feedback share
    RMS(τ − τ_ff)/RMS(τ) of the applied joint torque over all joints and samples."""
    e = rep.report["energy"]
    return {"joule_executed": e["executed"]["joule_loss_J"], "joule_planned": e["planned"]["joule_loss_J"],
            "joule_error": e["relative_error"]["joule_loss_J"], "feedback_share": rep.report["feedback_share"]["all"]}


def run(name: str, variant: dict, scale: float, cycles: int) -> dict:
    problem = go.load_problem(ROOT / "problems" / f"{name}.yaml", variant)
    problem = problem.scaled_knots(scale) if scale != 1 else problem
    problem = problem.replace(solver=dataclasses.replace(problem.solver, print_level=0))
    result = go.solve(problem)
    row = {"success": result.success, "cost": result.cost, **impact_summary(result)}
    if result.success:
        rep = verify.replay(result, cycles=cycles)
        r = rep.report
        row.update(replay_figures(result, rep), verified=rep.verified, fell=r["fell"],
                   distance_error=r["distance"]["relative_error"],
                   walked=not (r["fell"] or r["slipped"]
                               or r["distance"]["relative_error"] > verify.ReplaySettings().distance_rtol))
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--cycles", type=int, default=2)
    ap.add_argument("--problems", nargs="*", default=list(PROBLEMS))
    ap.add_argument("--variants", nargs="*", default=list(VARIANTS))
    args = ap.parse_args()
    print("| problem | variant | solved | cost | touchdown speed [m/s] (normal) | impact loss [J/m] | "
          "Joule loss executed / planned [J per cycle] | feedback share | distance error | walked | verified |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.problems:
        for v in args.variants:
            r = run(name, VARIANTS[v], args.scale, args.cycles)
            tail = (f"{r['joule_executed']:.3g} / {r['joule_planned']:.3g} ({100 * r['joule_error']:+.0f} %) | "
                    f"{r['feedback_share']:.2f} | {100 * r['distance_error']:.0f} %{' fell' if r['fell'] else ''} | "
                    f"{'yes' if r['walked'] else 'no'} | {'yes' if r['verified'] else 'no'}") \
                if r["success"] else "– | – | – | – | –"
            print(f"| {name} | {v} | {'yes' if r['success'] else 'no'} | {r['cost']:.4g} | "
                  f"{r['touchdown_speed_m_s']:.2f} ({r['touchdown_normal_m_s']:.2f}) | "
                  f"{r['impact_loss_J_per_m']:.3g} | {tail}", flush=True)


if __name__ == "__main__":
    main()
