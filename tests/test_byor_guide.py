"""docs/bring_your_own_robot.md run as written: its ```yaml file=PATH blocks are written into a
fresh folder (outside the repository), its ```python blocks run there in order in one
namespace. The problem's `knots: 24` is run at 12 (half size) to keep the test short."""
from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "bring_your_own_robot.md"
FULL_KNOTS, TEST_KNOTS = "knots: 24", "knots: 12"
HAVE_MUJOCO = importlib.util.find_spec("mujoco") is not None
pytestmark = pytest.mark.fast  # about 3 s: one small solve and a 1 s replay


def _blocks(text: str) -> list:
    """(language, info, body) of every fenced block, in order."""
    return [(m.group(1), m.group(2).strip(), m.group(3))
            for m in re.finditer(r"^```(\w+)([^\n]*)\n(.*?)^```", text, flags=re.S | re.M)]


def _yaml_files(blocks) -> dict:
    out = {}
    for lang, info, body in blocks:
        m = re.fullmatch(r"file=(\S+)", info)
        if lang == "yaml" and m:
            out[m.group(1)] = body
    return out


@pytest.fixture(scope="module")
def guide(tmp_path_factory):
    """Write the guide's files, run its Python blocks; the namespace they leave."""
    work = tmp_path_factory.mktemp("go1_work")
    blocks = _blocks(GUIDE.read_text())
    files = _yaml_files(blocks)
    assert set(files) == {"go1/robot.yaml", "go1_trot.yaml"}
    assert files["go1_trot.yaml"].count(FULL_KNOTS) == 1
    files["go1_trot.yaml"] = files["go1_trot.yaml"].replace(FULL_KNOTS, TEST_KNOTS)
    for rel, body in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(body)
    code = [body for lang, info, body in blocks if lang == "python"]
    assert len(code) == 8
    if not HAVE_MUJOCO:  # the last block is the MuJoCo replay
        code = code[:-1]
    namespace: dict = {"__name__": "byor_guide"}
    cwd = os.getcwd()
    os.chdir(work)
    try:
        for body in code:
            exec(compile(body, str(GUIDE), "exec"), namespace)
    finally:
        os.chdir(cwd)
    namespace["work"] = work
    return namespace


def test_measurements_match_robot_yaml(guide):
    """The contact points, base_z and mirror check the guide computes are what robot.yaml says."""
    robot = guide["robot"]
    for leg in guide["legs"]:
        np.testing.assert_allclose(robot.contact(leg).point, guide["point"][leg], atol=1e-6)
    assert abs(guide["base_z"] - 0.273826) < 1e-6
    assert guide["mirror_error"](("hip",), samples=50) < 1e-9
    assert guide["mirror_error"]((), samples=20) > 0.1
    import yaml
    motor = yaml.safe_load((guide["work"] / "go1" / "robot.yaml").read_text())["actuators"]["default"]
    assert abs(motor["torque_constant"] - guide["K"]) < 1e-4
    assert abs(motor["resistance"] - guide["R"]) < 1e-4
    assert abs(motor["current_limit"] - guide["I_max"]) < 1e-2


def test_robot_loads_from_its_folder(guide):
    robot = guide["robot"]
    assert robot.name == "go1" and robot.base == "3d"
    assert len(robot.actuated) == 12 and set(robot.feet) == {"FL", "FR", "RL", "RR"}
    geo = guide["geo"]
    assert geo.lateral_pairs == (("FL", "FR"), ("RL", "RR"))
    assert abs(geo.base_height - 0.273826) < 1e-6


def test_trot_solves_and_is_a_robot_gait(guide):
    result, problem = guide["result"], guide["problem"]
    assert result.success
    assert sum(p.knots for p in problem.phases) == 6  # 12 knots, half cycle
    assert result.max_violation < 1e-6
    assert guide["worst_margin"](guide["report"]) >= -1e-6
    assert {"foot_range", "leg_separation", "base_height", "base_attitude", "knee_margin"} <= set(guide["report"])


@pytest.mark.skipif(not HAVE_MUJOCO, reason="mujoco (the sim extra) is not installed")
def test_trot_walks_in_mujoco(guide):
    """It walks as planned (no fall, no slip, distance within 10 %). It does not verify: its
    executed Joule loss is +318 % of the plan's (2026-11-24), outside the 10 % energy tolerance."""
    rep = guide["replay"]
    r = rep.report
    assert not r["fell"] and not r["slipped"], r["failures"]
    assert r["distance"]["relative_error"] <= 0.10, r["failures"]
    assert all(f.startswith("Joule loss") for f in r["failures"]), r["failures"]
