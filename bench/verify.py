"""Replay every shipped problem in MuJoCo (gaitopt.verify, default settings) and print the tables
of docs/verification.md (its short table, and the full ones): walking, executed against planned
energy, feedback share, peak torques against the limits, peak contact forces; with --perturb N,
N perturbed replays per gait (success rate, spread of the executed Joule loss). Needs the `sim`
extra (mujoco).

    python bench/verify.py [--scales 1] [--cycles 2] [--perturb 20] [--one-factor 10] [--seed 0] [--problems FILE ...]
"""
from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import gaitopt as go
from gaitopt import verify
from gaitopt.problem import shipped_problems
from gaitopt.verify.judge import FIGURE_NAMES
from gaitopt.verify.perturb import PerturbationRanges, perturbed_replays

# one perturbation at a time (--one-factor): the default range of one, the others off
FACTORS = {"mass ±10 %": PerturbationRanges(0.10, 0.0, 0.0, 0.0), "CoM 1 cm": PerturbationRanges(0.0, 0.01, 0.0, 0.0),
           "μ ±30 %": PerturbationRanges(0.0, 0.0, 0.30, 0.0), "delay 0–3 ms": PerturbationRanges(0.0, 0.0, 0.0, 0.003),
           "delay 0–1 ms": PerturbationRanges(0.0, 0.0, 0.0, 0.001)}


def _energy_row(name: str, scale: float, r: dict) -> str:
    e, lim = r["energy"], r["torque"]["limits"]
    d = r["distance"]
    walk = f"fell at {r['fell_at_s']:.2f} s" if r["fell"] else (
        f"{d['simulated_m']:.3f} / {d['planned_m']:.3f}" + (", slipped" if r["slipped"] else ""))
    peak_sim = max(x["peak_simulated_over_limit"] for x in lim.values())
    peak_plan = max(x["peak_planned_over_limit"] for x in lim.values())
    return (f"| {name} | × {scale:g} | {walk} | {e['planned']['joule_loss_J']:.3g} → {e['executed']['joule_loss_J']:.3g} "
            f"({100 * e['relative_error']['joule_loss_J']:+.0f} %) | {e['planned']['abs_work_J']:.3g} → "
            f"{e['executed']['abs_work_J']:.3g} ({100 * e['relative_error']['abs_work_J']:+.0f} %) | "
            f"{r['feedback_share']['all']:.2f} | {peak_plan:.2f} / {peak_sim:.2f} | "
            f"{r['contact_forces']['peak_normal_simulated_over_planned']:.2f} | {'yes' if r['verified'] else 'no'} |")


def _readme_row(name: str, r: dict) -> str:
    """The gait's row: each energy figure its cost priced (the ones judged), planned → executed."""
    e, lim = r["energy"], r["torque"]["limits"]
    judged = "; ".join(f"{FIGURE_NAMES[k]} {e['planned'][k]:.3g} → {e['executed'][k]:.3g} "
                       f"({100 * e['relative_error'][k]:+.0f} %)" for k in e["judged"])
    return (f"| {name} | {judged} | {r['feedback_share']['all']:.2f} | "
            f"{max(x['peak_simulated_over_limit'] for x in lim.values()):.2f} | {'yes' if r['verified'] else 'no'} |")


def _perturbed_row(name: str, p: dict) -> str:
    e = p["energy"]["joule_loss_relative_error"]
    spread = "all fell" if e["mean"] is None else (
        f"{100 * e['mean']:+.0f} % ± {100 * e['std']:.0f} % ({100 * e['min']:+.0f} … {100 * e['max']:+.0f} %)")
    return (f"| {name} | {p['n']} | {100 * p['success_rate']:.0f} % | {100 * p['verified_rate']:.0f} % | {spread} | "
            f"{p['feedback_share']['mean']:.2f} |" if e["mean"] is not None else
            f"| {name} | {p['n']} | {100 * p['success_rate']:.0f} % | {100 * p['verified_rate']:.0f} % | {spread} | |")


def _factor_row(name: str, result, n: int, seed: int, cycles: int) -> str:
    cells = []
    for ranges in FACTORS.values():
        p = perturbed_replays(result, n, seed=seed, cycles=cycles, ranges=ranges)
        e = p["energy"]["joule_loss_relative_error"]
        cells.append(f"{100 * p['success_rate']:.0f} %" + ("" if e["mean"] is None else f", {100 * e['mean']:+.0f} %"))
    return f"| {name} | " + " | ".join(cells) + " |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=float, nargs="+", default=[1.0])
    ap.add_argument("--cycles", type=int, default=2)
    ap.add_argument("--perturb", type=int, default=0, help="perturbed replays per gait (0: none)")
    ap.add_argument("--one-factor", type=int, default=0, help="runs per gait and single perturbation (0: none)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--problems", nargs="*", default=None, help="problem files (default: every shipped one)")
    args = ap.parse_args()
    files = [Path(p) for p in args.problems] if args.problems else shipped_problems()
    print(f"{args.cycles} cycles; Joule loss and absolute work per cycle [J], planned → executed; peak |τ| / limit of "
          "the worst joint; peak normal contact force simulated / planned")
    print("| gait | knots | distance sim / plan [m] | Joule loss [J] | abs. work [J] | feedback share | "
          "peak τ/limit plan / sim | peak F sim/plan | verified |")
    print("|---|---|---|---|---|---|---|---|---|")
    perturbed, readme, factors = [], [], []
    for path in files:
        for scale in args.scales:
            problem = go.load_problem(path).scaled_knots(scale)
            problem = problem.replace(solver=dataclasses.replace(problem.solver, print_level=0))
            result = go.solve(problem)
            if not result.success:
                print(f"| {path.stem} | × {scale:g} | solve failed: {result.status} | | | | | | no |")
                continue
            report = verify.replay(result, cycles=args.cycles).report
            print(_energy_row(path.stem, scale, report), flush=True)
            readme.append(_readme_row(path.stem, report))
            if args.perturb and scale == args.scales[-1]:
                perturbed.append((path.stem, perturbed_replays(result, args.perturb, seed=args.seed,
                                                               cycles=args.cycles)))
            if args.one_factor and scale == args.scales[-1]:
                factors.append(_factor_row(path.stem, result, args.one_factor, args.seed, args.cycles))
    print("\ndocs/verification.md, short table (the energy figures each cost priced, per cycle [J], "
          "planned → executed; peak |τ| / limit of "
          "the worst joint)")
    print("| gait | judged energy [J/cycle] | feedback share | peak τ / limit | verified |")
    print("|---|---|---|---|---|")
    print("\n".join(readme))
    if perturbed:
        print(f"\nperturbed replays (seed {args.seed}, {args.cycles} cycles, knots × {args.scales[-1]:g}): walked = no "
              "fall, no slip, distance within 10 %; verified = also the energy its cost priced within 10 %; Joule loss executed vs "
              "planned over the runs that did not fall: mean ± std (min … max); mean feedback share")
        print("| gait | runs | walked | verified | Joule loss vs plan | feedback share |")
        print("|---|---|---|---|---|---|")
        for name, p in perturbed:
            print(_perturbed_row(name, p))
    if factors:
        print(f"\none factor at a time ({args.one_factor} runs each, seed {args.seed}; walked, mean Joule loss vs plan)")
        print("| gait | " + " | ".join(FACTORS) + " |")
        print("|---|" + "---|" * len(FACTORS))
        print("\n".join(factors))


if __name__ == "__main__":
    main()
