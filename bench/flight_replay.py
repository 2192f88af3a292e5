"""Where the Solo-12 flying trot's MuJoCo replay spends more Joule loss than its plan
(docs/verification.md, "The flying trot's excess"). Five parts, each a Markdown-ish listing:

    python bench/flight_replay.py [--parts where segments settings variants speeds]

where     the shipped problem's default replay (2 cycles): the excess ∫ Σ c_j (τ_sim² − τ_plan²) dt
          per cycle split by time since the planned touchdown, by the legs' planned state, by joint
          kind; feedback (τ_fb²) against cross term (2 τ_ff τ_fb); the part spent while a motor
          sat at its bound; each landing's first simulated contact against the planned instant
          and its foothold error; the plan's touchdown speed and impact loss.
segments  each phase replayed alone from the plan's exact state at its start (the replay's gains,
          motors and contacts; diagnostic only, `gaitopt verify` always starts at the cycle's start).
settings  the default replay against finer steps and smaller contact spheres (diagnostic only).
variants  problem-file changes a roboticist might make (touchdown speed, soft touchdowns, knots,
          torque-rate bounds, a yaw band), each solved and replayed by `gaitopt verify`'s defaults.
speeds    the same trot with and without flight (duty factor 0.35 / 0.5) at 0.3 … 1.0 m/s.
"""
from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import numpy as np

import gaitopt as go
from gaitopt import verify
from gaitopt.actuation import joule_coefficient
from gaitopt.quantities import contact_points
from gaitopt.schedule import active_points
from gaitopt.terrain_io import surface_of
from gaitopt.touchdowns import touchdown_table
# why private: a replay from an arbitrary planned instant is a diagnostic, not a verify option
from gaitopt.verify.replay import _gains, _simulate

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = ROOT / "problems" / "solo12_flying_trot.yaml"
WINDOWS = ((0.0, 0.02), (0.02, 0.04), (0.04, 0.08), (0.08, 0.14), (0.14, 0.2))  # s after a planned touchdown
VARIANTS = {
    "shipped": {},
    "touchdown_speed 0.1": {"constraints.touchdown_speed": 0.1},
    "touchdown_speed 0.3": {"constraints.touchdown_speed": 0.3},
    "touchdown: soft": {"constraints.touchdown": "soft"},
    "knots × 2": {"gait.knots": 64},
    "torque_rate 100 N·m/s": {"constraints.torque_rate": 100.0},
    "torque_rate 50 N·m/s": {"constraints.torque_rate": 50.0},
    "base yaw band ±0.01 rad": {"constraints.base_attitude": {"yaw": 0.01}},
}
SETTINGS = {
    "default (0.5 ms, 5 mm spheres)": {},
    "0.25 ms steps": {"timestep": 2.5e-4},
    "0.125 ms steps": {"timestep": 1.25e-4},
    "0.0625 ms steps": {"timestep": 6.25e-5},
    "0.5 mm spheres": {"foot_radius": 5e-4},
    "0.125 ms, 0.5 mm spheres": {"timestep": 1.25e-4, "foot_radius": 5e-4},
}


def solve(overrides: dict):
    problem = go.load_problem(PROBLEM, overrides)
    problem = problem.replace(solver=dataclasses.replace(problem.solver, print_level=0))
    return go.solve(problem)


def joule_weights(robot) -> np.ndarray:
    """c_j of the joule_loss index Σ c_j τ_j² [W/(N·m)²]."""
    return np.array([joule_coefficient(robot.actuators[j], robot.actuators[j].gear_ratio) for j in robot.actuated])


def planned_contacts(result, t) -> np.ndarray:
    """(T, nc) planned contact flags at times t."""
    modes = result.trajectory.phase_modes()
    return np.array([[c.name in active_points(result.robot, modes[str(ph)]) for c in result.robot.contacts]
                     for ph in result.trajectory.sample(t)["phase"]])


def where(result) -> None:
    robot, traj = result.robot, result.trajectory
    rep = verify.replay(result, cycles=2)
    s = rep.series
    t, ff, sim = s["time"], s["tau_plan"], s["tau_sim"]
    c = joule_weights(robot)
    per_cycle = 1.0 / 2  # two cycles

    def integral(x):  # per cycle, x (T,)
        return float(np.trapezoid(x, t)) * per_cycle

    excess = (sim ** 2 - ff ** 2) * c
    print(f"Joule loss per cycle: planned {integral((ff ** 2) @ c):.3f} J, executed {integral((sim ** 2) @ c):.3f} J, "
          f"excess {integral(excess.sum(1)):.3f} J")
    fb = sim - ff
    print(f"  feedback τ_fb² {integral((fb ** 2) @ c):.3f} J, cross term 2 τ_ff τ_fb {integral((2 * ff * fb) @ c):+.3f} J")
    tds = sorted({float(p.t[0]) for p in traj.phases if any(m != "swing" for m in p.modes.values())})
    since = np.array([min((x - a) % traj.period for a in tds) for x in t % traj.period])
    for lo, hi in WINDOWS:
        m = (since >= lo - 1e-9) & (since < hi - 1e-9)
        print(f"  {1e3 * lo:3.0f}–{1e3 * hi:3.0f} ms after a planned touchdown: planned {integral((ff ** 2 @ c) * m):.3f} J, "
              f"executed {integral((sim ** 2 @ c) * m):.3f} J, excess {integral(excess.sum(1) * m):+.3f} J")
    on = planned_contacts(result, t)
    feet = list(robot.feet)
    leg = np.array([feet.index(next(cp.foot for cp in robot.contacts if j.startswith(cp.foot))) for j in robot.actuated])
    stance = np.stack([on[:, [i for i, cp in enumerate(robot.contacts) if cp.foot == feet[f]]].any(1) for f in leg], 1)
    print(f"  joints of planned-standing legs: excess {integral((excess * stance).sum(1)):+.3f} J; "
          f"of swinging/flying legs: {integral((excess * ~stance).sum(1)):+.3f} J")
    for kind in ("HAA", "HFE", "KFE"):
        cols = [i for i, j in enumerate(robot.actuated) if j.endswith(kind)]
        print(f"  {kind}: planned {integral((ff[:, cols] ** 2) @ c[cols]):.3f} J, executed "
              f"{integral((sim[:, cols] ** 2) @ c[cols]):.3f} J")
    at = (sim <= s["tau_lower"] + 1e-9) | (sim >= s["tau_upper"] - 1e-9)
    w2040 = (since >= 0.02) & (since < 0.04)
    print(f"  samples with a motor at its bound: {100 * at.any(1).mean():.1f} % ({100 * at[w2040].any(1).mean():.0f} % of "
          f"those 20–40 ms after a planned touchdown); excess spent in them {integral((excess * at.any(1)[:, None]).sum(1)):+.3f} J")
    touching = s["force_sim"][..., 2] > 0.5
    pts_sim, pts_plan = contact_points(robot, s["q_sim"]), contact_points(robot, s["q_plan"])
    dt = t[1] - t[0]
    for ci, cp in enumerate(robot.contacts):
        f = feet.index(cp.foot)
        for k in np.flatnonzero(np.diff(on[:, ci].astype(int)) == 1) + 1:
            window = touching[max(k - 40, 0):k + 80, f]
            if not window.any() or k + 80 >= len(t):
                continue
            first = max(k - 40, 0) + int(np.argmax(window))
            err = 1e3 * (pts_sim[k + 80, ci, :2] - pts_plan[k + 80, ci, :2])
            print(f"  {cp.name} landing at {t[k]:.2f} s: first simulated contact {1e3 * (first - k) * dt:+.1f} ms, "
                  f"foothold (40 ms later) off by ({err[0]:+.1f}, {err[1]:+.1f}) mm")
    for row in touchdown_table(result):
        print(f"  plan: {'+'.join(row['points'])} touch down at {row['speed_m_s']:.3f} m/s, impact loss {1e3 * row['loss_J']:.2f} mJ")


def replay_from(result, start: float, duration: float, settings=verify.ReplaySettings()) -> tuple:
    """Planned and executed ∫ Σ c_j τ² dt [J] over [start, start + duration] of a replay started in
    the plan's exact state at `start` (otherwise as verify.replay: gains, motors, contacts)."""
    robot, problem, traj = result.robot, result.problem, result.trajectory
    t = start + np.arange(int(round(duration / settings.timestep)) + 1) * settings.timestep
    ref = traj.sample(t)
    sim = verify.build_model(robot, slope=float(problem.slope), friction=float(problem.constraints.friction),
                             traj=traj, settings=settings, q_gains=traj.phases[0].q[0], check=False,
                             surface=surface_of(problem))
    sim.set_state(ref["q"][0], ref["v"][0])
    feet = list(robot.feet)
    kp, kd = _gains(sim, planned_contacts(result, t), np.array([feet.index(cp.foot) for cp in robot.contacts]),
                    len(feet), settings)
    out = _simulate(sim, settings, ref, kp, kd, lambda q: False)
    c = joule_weights(robot)
    return float(np.trapezoid((ref["tau"] ** 2) @ c, t)), float(np.trapezoid((out["tau"] ** 2) @ c, t))


def segments(result) -> None:
    spans = [(float(p.t[0]), float(p.t[-1]), p.name) for p in result.trajectory.phases]
    (s0, e0, n0), (s1, e1, n1), (s2, e2, n2) = spans[:3]
    for start, end, label in ((s0, e0, f"{n0} from its planned start"), (s1, e1, f"{n1} from the exact lift-off"),
                              (s1, e2, f"{n1} + {n2} from the exact lift-off"), (s2, e2, f"{n2} from its planned start")):
        plan, done = replay_from(result, start, end - start)
        print(f"  {label} [{start:.2f}, {end:.2f}] s: planned {plan:.3f} J, executed {done:.3f} J ({100 * (done / plan - 1):+.0f} %)")


def settings_part(result) -> None:
    for label, kw in SETTINGS.items():
        rep = verify.replay(result, cycles=2, settings=verify.ReplaySettings(**kw))
        e = rep.report["energy"]
        print(f"  {label}: {e['planned']['joule_loss_J']:.3f} → {e['executed']['joule_loss_J']:.3f} J "
              f"({100 * e['relative_error']['joule_loss_J']:+.1f} %)")


def verified_row(label: str, overrides: dict) -> None:
    r = solve(overrides)
    if not r.success:
        print(f"  {label}: {r.status} (cost {r.cost:.4g} J/m)")
        return
    rep = verify.replay(r, cycles=2)
    e, d = rep.report["energy"], rep.report["distance"]
    print(f"  {label}: cost {r.cost:.4g} J/m; Joule loss {e['planned']['joule_loss_J']:.3f} → "
          f"{e['executed']['joule_loss_J']:.3f} J per cycle ({100 * e['relative_error']['joule_loss_J']:+.1f} %), "
          f"distance {100 * d['relative_error']:.1f} % off, feedback share {rep.report['feedback_share']['all']:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", nargs="*", default=["where", "segments", "settings", "variants", "speeds"])
    args = ap.parse_args()
    result = solve({}) if {"where", "segments", "settings"} & set(args.parts) else None
    for part in args.parts:
        print(f"## {part}", flush=True)
        if part == "where":
            where(result)
        elif part == "segments":
            segments(result)
        elif part == "settings":
            settings_part(result)
        elif part == "variants":
            for label, overrides in VARIANTS.items():
                verified_row(label, overrides)
        elif part == "speeds":
            for duty in (0.35, 0.5):
                for speed in (0.3, 0.5, 0.75, 1.0):
                    verified_row(f"duty factor {duty}, {speed} m/s", {"gait.duty_factor": duty, "speed": speed})


if __name__ == "__main__":
    main()
