"""docs/developers.md's worked examples, run as written: a user constraint component in one
class and a user cost term in one function, checked from the solved trajectories (not from the
NLP's own rows)."""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "developers.md"


@functools.lru_cache(maxsize=1)
def _run_guide() -> dict:
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), flags=re.S)
    assert len(blocks) == 3, "the guide's worked examples are three python blocks"
    namespace: dict = {}
    cwd = os.getcwd()
    os.chdir(ROOT)  # the guide's paths are relative to the repository
    try:
        for code in blocks:
            exec(compile(code, str(GUIDE), "exec"), namespace)
    finally:
        os.chdir(cwd)
    return namespace


def test_worked_example_constraint_binds_and_holds():
    ns = _run_guide()
    free, capped = ns["free"], ns["capped"]
    assert free.success and capped.success
    cap = ns["JointTorqueCap"]
    hips = [capped.robot.actuated.index(j) for j in ("left_hip", "right_hip")]
    limit = 0.8 * ns["peak"]

    def peak_of(result):  # over the whole cycle, from the trajectory's interpolant
        t = np.linspace(0.0, result.trajectory.period, 801)
        return np.abs(result.sample(t)["tau"][:, hips]).max()

    assert peak_of(free) > limit * 1.1, "the example must bind: without it the hips exceed the cap"
    knots = np.concatenate([p.tau[:, hips] for p in capped.trajectory.phases])
    assert np.abs(knots).max() <= limit * (1 + 1e-6)
    assert peak_of(capped) <= limit * (1 + 1e-6)  # τ is linear between knots
    worst = {v["term"]: v["max_violation"] for v in capped.violations()}
    assert worst["torque_cap"] <= 1e-6
    assert issubclass(cap, ns["Constraint"])


def test_worked_example_cost_term_is_priced_and_acts():
    ns = _run_guide()
    free, steady = ns["free"], ns["steady"]
    i = steady.trajectory.coordinates.index("base_pitch")

    def knot_mean(result):  # (1/T) ∫ θ̇² dt, trapezoid over each phase's knots (the rule's quadrature)
        tr = result.trajectory
        return sum(np.trapezoid(p.v[:, i] ** 2, p.t) for p in tr.phases) / tr.period

    def sampled_mean(result):  # on the interpolant, between the knots too
        t = np.linspace(0.0, result.trajectory.period, 2001)
        return np.mean(result.sample(t)["v"][:, i] ** 2)

    assert abs(steady.cost_terms["pitch_rate_squared"] - 10.0 * knot_mean(steady)) <= 1e-6 * steady.cost_terms["pitch_rate_squared"]
    assert abs(steady.cost - sum(steady.cost_terms.values())) <= 1e-9 * steady.cost
    # cost_terms are weighted: the summary names the weight of a term of one's own, as of a built-in
    # (it read `pitch_rate_squared 0.0302572` for a mean θ̇² of 0.003)
    value = steady.cost_terms["pitch_rate_squared"]
    assert f"pitch_rate_squared {value:.6g} (10 × {value / 10:.6g})" in steady.summary()
    assert sampled_mean(steady) < 0.5 * sampled_mean(free)
    assert steady.cost_terms["joule_loss"] >= free.cost_terms["joule_loss"]  # the trade: more copper heat
