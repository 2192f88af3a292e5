"""Soles on terrain (docs/terrain.md, "Soles on slopes and stairs"): measures solved result
directories (`gaitopt solve -o DIR`) of feet with a sole width on a slope, stairs or a height
map, from the exported trajectory and the robot. Prints one Markdown row per directory: cost,
the largest |height − true ground| of a corner carrying force at the knots, the same at the
phases' first knots (where the rows set it), the largest |f_t|/f_n per tangent axis about the
local normal (normal forces over 1 N) (the pyramid's limit is μ/√2), knots at which a foot's loaded corners stand on
different treads, and the deepest point along a sole's heel–toe edges below the true ground
over the sampled motion (what the penetration warning also samples since 2026-11-25;
gaitopt.stance_check measures the loaded points at the knots after every terrain solve).

    gaitopt solve /tmp/trial-st/flat_stairs.yaml -o /tmp/trial-st/out_flat_stairs
    python bench/sole_terrain.py /tmp/trial-st/out_flat_stairs [more result dirs]
"""
from __future__ import annotations

import argparse

import numpy as np

from gaitopt.export.result_dir import load_result
from gaitopt.penetration import deepest_among
from gaitopt.quantities import contact_points
from gaitopt.terrain_io import surface_of


def _tangents(n):
    """Unit tangents (x-ish, y-ish) of the ground with unit normal n (3,)."""
    tx = np.cross([0.0, 1.0, 0.0], n)
    tx /= np.linalg.norm(tx)
    return tx, np.cross(n, tx)


def knot_measures(result, surface) -> dict:
    """Over the knots: loaded corners' largest |z − h| [m] (all knots, first knots of the
    phases), largest |f_t|/f_n per axis, knots with a foot's loaded corners on two levels."""
    rob = result.robot
    out = {"gap": 0.0, "gap_first": 0.0, "ratio": 0.0, "two_levels": 0}
    for phase in result.trajectory.phases:
        pts = contact_points(rob, phase.q)  # (K, nc, 3)
        for k in range(len(phase.t)):
            levels = {}
            for ci, c in enumerate(rob.contacts):
                F = np.asarray(phase.f[k, ci], float)
                if not np.any(F):
                    continue
                x, y, z = pts[k, ci]
                h = float(surface.exact_height(x, y))
                out["gap"] = max(out["gap"], abs(z - h))
                if k == 0:
                    out["gap_first"] = max(out["gap_first"], abs(z - h))
                n = np.asarray(surface.normal(x, y), float).ravel()
                tx, ty = _tangents(n)
                if F @ n > 1.0:  # a ratio of forces under 1 N is the solver's tolerance, not friction
                    out["ratio"] = max(out["ratio"], max(abs(F @ tx), abs(F @ ty)) / (F @ n))
                levels.setdefault(c.foot, set()).add(round(h, 6))
            out["two_levels"] += sum(len(v) > 1 for v in levels.values())
    return out


def sole_edge_depth(result, surface, per_interval: int = 8) -> float:
    """Deepest [m] (> 0: inside) of the contact points and the points along every sole's
    heel–toe edges below the true ground over the sampled motion (`deepest_among`)."""
    t, samples, _ = result.trajectory.sample_cycle(per_interval)
    return deepest_among(surface, result.robot.contacts, t, contact_points(result.robot, samples["q"])).depth


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("result_dirs", nargs="+")
    args = ap.parse_args(argv)
    print("| result | cost | max gap [mm] (first knots) | max f_t/f_n | two levels | deepest point incl. sole edges [mm] |")
    print("|---|---|---|---|---|---|")
    for d in args.result_dirs:
        result = load_result(d)
        surface = surface_of(result.problem)
        m = knot_measures(result, surface)
        depth = sole_edge_depth(result, surface)
        levels = m["two_levels"] if getattr(surface, "kind", "") == "steps" else "—"
        print(f"| {d} | {result.cost:.4f} | {1e3 * m['gap']:.2f} ({1e3 * m['gap_first']:.3f}) | {m['ratio']:.3f} | "
              f"{levels} | {1e3 * depth:.1f} |")


if __name__ == "__main__":
    main()
