"""docs/developers.md's worked example, run as written: a user constraint component in one
class, checked from the solved trajectories (not from the NLP's own rows)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "developers.md"


def _run_guide() -> dict:
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), flags=re.S)
    assert len(blocks) == 2, "the guide's worked example is two python blocks"
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
