"""Gait patterns (gaitopt.patterns.expand_gait): named patterns and the general form (duty factor
+ offsets) expand into explicit phases the problem decoder reads. No solving here (fast)."""
from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

import gaitopt as go
from gaitopt.errors import InputError
from gaitopt.patterns import (PATTERNS, expand_gait, foot_roles, patterns_for, share_knots,
                              standing_foot_positions)
from gaitopt.problem import problem_from_dict
from gaitopt.schedule import Schedule

pytestmark = pytest.mark.fast

ROOT = Path(__file__).resolve().parent.parent
SOURCE = "test.yaml"

# leg roles written out by hand (the module must find them from the geometry)
ROLES = {
    "biped7": {"L": "left", "R": "right"},
    "hoap2": {"L": "left", "R": "right"},
    "bolt": {"L": "left", "R": "right"},
    "solo12": {"LF": "FL", "RF": "FR", "LH": "HL", "RH": "HR"},
    "titan8": {"LF": "FL", "RF": "FR", "LH": "HL", "RH": "HR"},
    "anymal_c": {"LF": "LF", "RF": "RF", "LH": "LH", "RH": "RH"},
    "hexapod": {f"{s}{i}": f"{s}{i}" for s in "LR" for i in (1, 2, 3)},
}

# the patterns as the literature (and the task) define them: β, touchdowns by role, the cycle
F = Fraction
EXPECTED = {
    "static_walk": (F(7, 11), {"L": 0, "R": F(1, 2)}, "half"),
    "heel_toe_walk": (F(49, 82), {"L": 0, "R": F(1, 2)}, "half"),
    "walk_biped": (F(7, 11), {"L": 0, "R": F(1, 2)}, "half"),
    "crawl": (F(3, 4), {"LH": 0, "LF": F(1, 4), "RH": F(1, 2), "RF": F(3, 4)}, "half"),
    "walk": (F(3, 5), {"LH": 0, "LF": F(1, 4), "RH": F(1, 2), "RF": F(3, 4)}, "half"),
    "trot": (F(1, 2), {"LF": 0, "RH": 0, "RF": F(1, 2), "LH": F(1, 2)}, "half"),
    "pace": (F(1, 2), {"LF": 0, "LH": 0, "RF": F(1, 2), "RH": F(1, 2)}, "half"),
    "bound": (F(1, 2), {"LF": 0, "RF": 0, "LH": F(1, 2), "RH": F(1, 2)}, "full"),
    "tripod": (F(1, 2), {"L1": 0, "R2": 0, "L3": 0, "R1": F(1, 2), "L2": F(1, 2), "R3": F(1, 2)}, "half"),
    "wave": (F(5, 6), {"L3": 0, "L2": F(1, 6), "L1": F(2, 6), "R3": F(3, 6), "R2": F(4, 6), "R1": F(5, 6)}, "half"),
    "ripple": (F(2, 3), {"L3": 0, "L2": F(1, 3), "L1": F(2, 3), "R3": F(1, 2), "R2": F(5, 6), "R1": F(1, 6)},
               "half"),
}

CASES = [("biped7", "static_walk"), ("biped7", "heel_toe_walk"), ("hoap2", "static_walk"),
         ("hoap2", "heel_toe_walk"), ("bolt", "walk"),
         ("solo12", "crawl"), ("solo12", "walk"), ("solo12", "trot"), ("solo12", "pace"), ("solo12", "bound"),
         ("anymal_c", "crawl"), ("anymal_c", "walk"), ("anymal_c", "trot"), ("anymal_c", "pace"),
         ("anymal_c", "bound"), ("titan8", "crawl"), ("titan8", "trot"),
         ("hexapod", "tripod"), ("hexapod", "wave"), ("hexapod", "ripple")]

_ROBOTS = {}


def robot(name):
    if name not in _ROBOTS:
        _ROBOTS[name] = go.load_robot(name)
    return _ROBOTS[name]


def expected(robot_name, pattern):
    key = "walk_biped" if (pattern == "walk" and robot_name == "bolt") else pattern
    return EXPECTED[key]


def full_cycle(gait, rob):
    """[(duration, contacts)] of the full cycle: a half cycle followed by its mirror image."""
    phases = [(p["duration"], p["contacts"]) for p in gait["phases"]]
    if gait["cycle"] == "half":
        pairs = rob.mirror.foot_pairs
        phases += [(d, {pairs[f]: m for f, m in c.items()}) for d, c in phases]
    return phases


def stance_share(phases, foot, period):
    return sum(d for d, c in phases if c[foot] != "swing") / period


def touchdowns(phases, foot, period):
    """Times (fractions of the cycle, from the listing's start) at which `foot` lands."""
    out, t = [], 0.0
    for i, (d, c) in enumerate(phases):
        before = phases[i - 1][1][foot]
        if c[foot] != "swing" and before == "swing":
            out.append(t / period)
        t += d
    return out


def assert_one_line(err: InputError, field: str, allowed=()):
    text = str(err)
    assert "\n" not in text
    assert err.file == SOURCE and err.field == field, (err.file, err.field, text)
    assert text.startswith(f"{SOURCE}: {field}: "), text
    for a in allowed:
        assert "(allowed: " in text and a in text.split("(allowed: ", 1)[1], text


# ------------------------------------------------------------------------------------ roles

@pytest.mark.parametrize("name", sorted(ROLES))
def test_roles_come_from_the_geometry(name):
    r = robot(name)
    roles = foot_roles(r)
    assert roles.roles == ROLES[name]
    assert roles.family == {2: "biped", 4: "quadruped", 6: "hexapod"}[len(r.feet)]
    pos = standing_foot_positions(r)
    for role, foot in roles.roles.items():
        if pos[foot][1] != pytest.approx(0.0, abs=1e-6):  # biped7 is sagittal: y = 0, roles by its mirror pairs
            assert (pos[foot][1] > 0) == role.startswith("L")
        partner = r.mirror.foot_pairs[foot]
        assert roles.roles[("R" if role[0] == "L" else "L") + role[1:]] == partner


def test_roles_ignore_foot_names():
    """Renaming the feet (swapping the names of two legs) changes nothing but the names: the
    pattern follows the legs' positions."""
    r = copy.copy(robot("solo12"))
    rename = {"FL": "HR", "HR": "FL", "FR": "HL", "HL": "FR"}
    from dataclasses import replace
    r.feet = {rename[k]: replace(v, name=rename[k]) for k, v in robot("solo12").feet.items()}
    r.contacts = [replace(c, foot=rename[c.foot], name=rename[c.name]) for c in robot("solo12").contacts]
    assert foot_roles(r).roles == {"LF": "HR", "RF": "HL", "LH": "FR", "RH": "FL"}


def test_patterns_per_robot():
    assert patterns_for(robot("biped7")) == ["static_walk", "heel_toe_walk"]
    assert patterns_for(robot("bolt")) == ["walk"]
    assert patterns_for(robot("anymal_c")) == ["crawl", "walk", "trot", "pace", "bound"]
    assert patterns_for(robot("hexapod")) == ["tripod", "wave", "ripple"]
    assert {p.name for p in PATTERNS} == {"static_walk", "heel_toe_walk", "walk", "crawl", "trot", "pace",
                                          "bound", "tripod", "wave", "ripple"}


# ----------------------------------------------------------------------------- the patterns

@pytest.mark.parametrize("robot_name,pattern", CASES, ids=[f"{r}-{p}" for r, p in CASES])
def test_duty_factor_offsets_and_cycle(robot_name, pattern):
    r = robot(robot_name)
    period = 0.8
    gait = expand_gait({"pattern": pattern, "period": period, "knots": 48}, r, SOURCE)
    beta, offsets, cycle = expected(robot_name, pattern)
    assert gait["cycle"] == cycle
    assert set(gait) == {"cycle", "phases"}
    phases = full_cycle(gait, r)
    assert sum(d for d, _ in phases) == pytest.approx(period)
    roles = ROLES[robot_name]
    for role, foot in roles.items():
        assert stance_share(phases, foot, period) == pytest.approx(float(beta), abs=1e-9), foot
    # touchdown order and offsets, relative to the reference foot (offset 0)
    ref = next(roles[k] for k, v in offsets.items() if v == 0)
    t0 = touchdowns(phases, ref, period)
    assert len(t0) == 1
    for role, off in offsets.items():
        td = touchdowns(phases, roles[role], period)
        assert len(td) == 1, (role, td)  # one stance per cycle
        assert (td[0] - t0[0]) % 1.0 == pytest.approx(float(off), abs=1e-9) or \
            (td[0] - t0[0]) % 1.0 == pytest.approx(float(off) + 1.0, abs=1e-9)
    # names unique, knots ≥ 2, in proportion to duration, summing to the half/full share of 48
    names = [p["name"] for p in gait["phases"]]
    assert len(set(names)) == len(names)
    knots = [p["knots"] for p in gait["phases"]]
    assert min(knots) >= 2 and sum(knots) == (24 if cycle == "half" else 48)
    for p in gait["phases"]:
        share = sum(knots) * p["duration"] / sum(q["duration"] for q in gait["phases"])
        assert abs(p["knots"] - share) < 1.0 or p["knots"] == 2
    # no flight in the default patterns; stance modes by foot kind
    for _, c in phases:
        assert any(m != "swing" for m in c.values())
        for foot, m in c.items():
            kinds = r.feet[foot].modes
            assert m in kinds
            if pattern != "heel_toe_walk" and m != "swing":
                assert m == ("flat" if r.feet[foot].kind == "heel_toe" else "stance")


@pytest.mark.parametrize("robot_name,pattern", [c for c in CASES if expected(*c)[2] == "half"],
                         ids=[f"{r}-{p}" for r, p in CASES if expected(r, p)[2] == "half"])
def test_half_cycle_mirrors_into_the_second_half(robot_name, pattern):
    r = robot(robot_name)
    half = expand_gait({"pattern": pattern, "period": 1.0}, r, SOURCE)
    full = expand_gait({"pattern": pattern, "period": 1.0, "cycle": "full"}, r, SOURCE)
    assert half["cycle"] == "half" and full["cycle"] == "full"
    k = len(half["phases"])
    assert len(full["phases"]) == 2 * k
    pairs = r.mirror.foot_pairs
    for a, b, h in zip(full["phases"][:k], full["phases"][k:], half["phases"]):
        assert a["contacts"] == h["contacts"] and a["duration"] == pytest.approx(h["duration"])
        assert {pairs[f]: m for f, m in a["contacts"].items()} == b["contacts"]
        assert a["duration"] == pytest.approx(b["duration"])
        assert b["name"] != a["name"]


def test_bound_is_not_half_symmetric():
    r = robot("solo12")
    with pytest.raises(InputError) as info:
        expand_gait({"pattern": "bound", "period": 0.4, "cycle": "half"}, r, SOURCE)
    assert_one_line(info.value, "gait.cycle", ["full"])


def _shipped(name):
    return yaml.safe_load((ROOT / "problems" / name).read_text())


@pytest.mark.parametrize("file,pattern", [("biped7_static_walk.yaml", "static_walk"),
                                          ("biped7_heel_toe_walk.yaml", "heel_toe_walk")])
def test_biped_patterns_reproduce_the_shipped_problems(file, pattern):
    data = _shipped(file)
    ship = data["gait"]["phases"]
    guesses = [p["duration"]["guess"] for p in ship]
    period = 2 * sum(guesses)
    gait = expand_gait({"pattern": pattern, "period": period}, robot("biped7"), SOURCE)
    assert gait["cycle"] == data["gait"]["cycle"] == "half"
    assert [p["contacts"] for p in gait["phases"]] == [p["contacts"] for p in ship]
    assert [p["name"] for p in gait["phases"]] == [p["name"] for p in ship]
    assert [p["duration"] for p in gait["phases"]] == pytest.approx(guesses)  # the default fractions


def test_bolt_walk_and_static_walk_share_the_contacts():
    walk = expand_gait({"pattern": "walk", "period": 1.0}, robot("bolt"), SOURCE)
    static = expand_gait({"pattern": "static_walk", "period": 1.0}, robot("biped7"), SOURCE)
    swap = {"flat": "stance", "swing": "swing"}
    assert [{f: swap[m] for f, m in p["contacts"].items()} for p in static["phases"]] == \
        [p["contacts"] for p in walk["phases"]]
    assert [p["name"] for p in walk["phases"]] == ["single_support", "double_support"]


def test_crawl_reproduces_titan8_and_trot_solo12():
    ship = _shipped("titan8_crawl.yaml")["gait"]["phases"]
    gait = expand_gait({"pattern": "crawl", "period": 4.8, "knots": 48}, robot("titan8"), SOURCE)
    assert [p["contacts"] for p in gait["phases"]] == [p["contacts"] for p in ship]
    assert [p["duration"] for p in gait["phases"]] == pytest.approx([p["duration"] for p in ship])
    assert [p["knots"] for p in gait["phases"]] == [p["knots"] for p in ship]
    ship = _shipped("solo12_trot.yaml")["gait"]
    gait = expand_gait({"pattern": "trot", "period": 0.44, "knots": 28}, robot("solo12"), SOURCE)
    assert gait["cycle"] == ship["cycle"]
    assert [(p["contacts"], p["knots"], p["duration"]) for p in gait["phases"]] == \
        [(p["contacts"], p["knots"], pytest.approx(p["duration"])) for p in ship["phases"]]


def test_duty_factor_overrides_the_default():
    r = robot("anymal_c")
    gait = expand_gait({"pattern": "trot", "duty_factor": 0.6, "period": 0.5, "knots": 40}, r, SOURCE)
    assert gait["cycle"] == "half"
    assert [p["name"] for p in gait["phases"]] == ["all_stance", "LF_RH_stance"]
    assert [p["duration"] for p in gait["phases"]] == pytest.approx([0.05, 0.2])
    phases = full_cycle(gait, r)
    for foot in r.feet:
        assert stance_share(phases, foot, 0.5) == pytest.approx(0.6)
    walk = expand_gait({"pattern": "static_walk", "duty_factor": 0.7, "period": 1.0}, robot("biped7"), SOURCE)
    assert [p["duration"] for p in walk["phases"]] == pytest.approx([0.3, 0.2])


def test_flight_only_for_running_trot_pace_bound():
    r = robot("solo12")
    for pattern in ("trot", "pace", "bound"):
        gait = expand_gait({"pattern": pattern, "duty_factor": 0.35, "period": 0.4}, r, SOURCE)
        phases = full_cycle(gait, r)
        flights = [c for _, c in phases if all(m == "swing" for m in c.values())]
        assert len(flights) == 2
        assert "flight" in [p["name"] for p in gait["phases"]]
        for foot in r.feet:
            assert stance_share(phases, foot, 0.4) == pytest.approx(0.35)
    for robot_name, pattern, beta in (("solo12", "crawl", 0.2), ("solo12", "walk", 0.24),
                                      ("hexapod", "tripod", 0.4), ("hexapod", "wave", 0.1)):
        with pytest.raises(InputError) as info:
            expand_gait({"pattern": pattern, "duty_factor": beta, "period": 1.0}, robot(robot_name), SOURCE)
        assert_one_line(info.value, "gait.duty_factor")
        assert "flight" in str(info.value)


def test_free_period_bounds_every_phase():
    r = robot("hexapod")
    gait = expand_gait({"pattern": "ripple", "period": {"min": 0.6, "max": 1.8, "guess": 1.2}}, r, SOURCE)
    assert gait["cycle"] == "half" and len(gait["phases"]) == 3
    for p in gait["phases"]:
        assert p["duration"] == pytest.approx({"min": 0.1, "max": 0.3, "guess": 0.2})
    gait = expand_gait({"pattern": "trot", "period": {"min": 0.3, "max": 0.5}}, robot("solo12"), SOURCE)
    assert gait["phases"][0]["duration"] == pytest.approx({"min": 0.15, "max": 0.25, "guess": 0.2})


def test_general_form_equals_the_named_pattern():
    r = robot("solo12")
    named = expand_gait({"pattern": "trot", "duty_factor": 0.55, "period": 0.5}, r, SOURCE)
    general = expand_gait({"duty_factor": 0.55, "offsets": {"FL": 0.0, "HR": 0.0, "FR": 0.5, "HL": 0.5},
                           "period": 0.5}, r, SOURCE)
    assert general == named
    # an asymmetric general gait is a full cycle, starting at the earliest event
    gait = expand_gait({"duty_factor": 0.7, "offsets": {"FL": 0.1, "HR": 0.2, "FR": 0.55, "HL": 0.6},
                        "period": 1.0}, r, SOURCE)
    assert gait["cycle"] == "full"
    phases = full_cycle(gait, r)
    for foot in r.feet:
        assert stance_share(phases, foot, 1.0) == pytest.approx(0.7)
    assert touchdowns(phases, "FL", 1.0) == pytest.approx([0.0])
    assert touchdowns(phases, "HL", 1.0) == pytest.approx([0.5])
    # heel-toe feet stand flat in the general form
    gait = expand_gait({"duty_factor": 0.6, "offsets": {"left": 0.0, "right": 0.5}, "period": 1.0},
                       robot("hoap2"), SOURCE)
    assert {m for p in gait["phases"] for m in p["contacts"].values()} == {"flat", "swing"}
    assert gait["cycle"] == "half"


def test_explicit_phases_are_returned_unchanged():
    gait = _shipped("biped7_heel_toe_walk.yaml")["gait"]
    assert expand_gait(gait, robot("biped7"), SOURCE) is gait


def test_share_knots():
    assert share_knots(32, [0.25] * 4) == [8] * 4
    assert share_knots(10, [0.01, 0.49, 0.5]) == [2, 4, 4]
    assert share_knots(6, [0.001, 0.001, 0.998]) == [2, 2, 2]
    assert sum(share_knots(17, [0.1, 0.2, 0.3, 0.4])) == 17


# --------------------------------------------------------------------- valid for the decoder

def _problem(robot_name, gait):
    return problem_from_dict({"robot": robot_name, "gait": gait, "speed": 0.3, "cost": "joule_loss"}, SOURCE)


@pytest.mark.parametrize("robot_name,pattern", CASES, ids=[f"{r}-{p}" for r, p in CASES])
def test_expanded_gait_decodes(robot_name, pattern):
    r = robot(robot_name)
    for period in (0.6, {"min": 0.3, "max": 1.2, "guess": 0.6}):
        gait = expand_gait({"pattern": pattern, "period": period, "knots": 24}, r, SOURCE)
        problem = _problem(robot_name, gait)
        assert problem.cycle == gait["cycle"]
        assert [ph.name for ph in problem.phases] == [p["name"] for p in gait["phases"]]
        assert all(ph.knots >= 2 for ph in problem.phases)
        sched = Schedule(r, problem)  # every foot named with one of its modes, half cycles mirrored
        assert len(sched.expanded) == len(problem.phases) * (2 if problem.cycle == "half" else 1)


def test_general_form_decodes():
    gait = expand_gait({"duty_factor": 0.8, "offsets": {f"{s}{i}": (i / 3 + (s == "R") / 2) % 1
                                                        for s in "LR" for i in (1, 2, 3)},
                        "period": 1.5, "knots": 36}, robot("hexapod"), SOURCE)
    problem = _problem("hexapod", gait)
    Schedule(robot("hexapod"), problem)


# ---------------------------------------------------------------------------------- errors

ERRORS = [
    # (robot, gait, field, words in the allowed list)
    ("solo12", {"pattern": "trot", "phases": [], "period": 1}, "gait.pattern", ["phases", "pattern"]),
    ("solo12", {"duty_factor": 0.5, "phases": []}, "gait.duty_factor", []),
    ("solo12", {"pattern": "gallop", "period": 1}, "gait.pattern", ["trot", "crawl", "walk", "pace", "bound"]),
    ("solo12", {"pattern": 3, "period": 1}, "gait.pattern", ["trot"]),
    ("biped7", {"pattern": "trot", "period": 1}, "gait.pattern", ["static_walk", "heel_toe_walk"]),
    ("hexapod", {"pattern": "crawl", "period": 1}, "gait.pattern", ["tripod", "wave", "ripple"]),
    ("solo12", {"pattern": "tripod", "period": 1}, "gait.pattern", ["trot"]),
    ("bolt", {"pattern": "heel_toe_walk", "period": 1}, "gait.pattern", ["walk"]),
    ("biped7", {"pattern": "walk", "period": 1}, "gait.pattern", ["static_walk"]),
    ("solo12", {"pattern": "trot", "duty_factor": 1.0, "period": 1}, "gait.duty_factor", ["0 < duty_factor < 1"]),
    ("solo12", {"pattern": "trot", "duty_factor": 0, "period": 1}, "gait.duty_factor", []),
    ("solo12", {"pattern": "trot", "duty_factor": -0.2, "period": 1}, "gait.duty_factor", []),
    ("solo12", {"pattern": "trot", "duty_factor": float("nan"), "period": 1}, "gait.duty_factor", []),
    ("solo12", {"pattern": "trot", "duty_factor": "half", "period": 1}, "gait.duty_factor", []),
    ("solo12", {"pattern": "trot", "duty_factor": True, "period": 1}, "gait.duty_factor", []),
    ("biped7", {"pattern": "static_walk", "duty_factor": 0.5, "period": 1}, "gait.duty_factor",
     ["0.5 < duty_factor < 1"]),
    ("solo12", {"duty_factor": 0.6, "offsets": {"FL": 0, "FR": 0.5, "HL": 0.5}, "period": 1},
     "gait.offsets", ["FL", "FR", "HL", "HR"]),
    ("solo12", {"duty_factor": 0.6, "offsets": {"FL": 0, "FR": 0.5, "HL": 0.5, "HR": 0, "LF": 0}, "period": 1},
     "gait.offsets", ["FL", "HR"]),
    ("solo12", {"duty_factor": 0.6, "offsets": {"FL": 0, "FR": 1.0, "HL": 0.5, "HR": 0}, "period": 1},
     "gait.offsets", ["0 <= offset < 1"]),
    ("solo12", {"duty_factor": 0.6, "offsets": {"FL": -0.1, "FR": 0.5, "HL": 0.5, "HR": 0}, "period": 1},
     "gait.offsets", []),
    ("solo12", {"duty_factor": 0.6, "offsets": [0, 0.5, 0.5, 0], "period": 1}, "gait.offsets", []),
    ("solo12", {"duty_factor": 0.6, "period": 1}, "gait.offsets", ["FL"]),
    ("solo12", {"offsets": {"FL": 0, "FR": 0.5, "HL": 0.5, "HR": 0}, "period": 1}, "gait.duty_factor", []),
    ("solo12", {"period": 1}, "gait.pattern", ["trot"]),
    ("solo12", {"pattern": "trot", "offsets": {"FL": 0, "FR": 0.5, "HL": 0.5, "HR": 0}, "period": 1},
     "gait.offsets", ["duty_factor"]),
    ("solo12", {"pattern": "crawl", "period": 1, "knots": 7}, "gait.knots", ["knots >= 8"]),
    ("hexapod", {"pattern": "wave", "period": 1, "knots": 11}, "gait.knots", ["knots >= 12"]),
    ("solo12", {"pattern": "trot", "period": 1, "knots": 8.5}, "gait.knots", []),
    ("solo12", {"pattern": "trot", "period": 0}, "gait.period", []),
    ("solo12", {"pattern": "trot", "period": -1}, "gait.period", []),
    ("solo12", {"pattern": "trot", "period": float("inf")}, "gait.period", []),
    ("solo12", {"pattern": "trot", "period": "1 s"}, "gait.period", []),
    ("solo12", {"pattern": "trot"}, "gait.period", []),
    ("solo12", {"pattern": "trot", "period": {"min": 0.5, "max": 0.2}}, "gait.period", []),
    ("solo12", {"pattern": "trot", "period": {"min": 0, "max": 0.2}}, "gait.period", []),
    ("solo12", {"pattern": "trot", "period": {"max": 0.2}}, "gait.period", ["min", "max"]),
    ("solo12", {"pattern": "trot", "period": {"min": 0.1, "max": 0.2, "step": 1}}, "gait.period", []),
    ("solo12", {"pattern": "trot", "period": 1, "cycle": "quarter"}, "gait.cycle", ["full", "half"]),
    ("solo12", {"pattern": "bound", "period": 1, "cycle": "half"}, "gait.cycle", ["full"]),
    ("solo12", {"duty_factor": 0.6, "offsets": {"FL": 0, "FR": 0.3, "HL": 0.5, "HR": 0}, "period": 1,
                "cycle": "half"}, "gait.cycle", ["full"]),
    ("solo12", {"pattern": "trot", "period": 1, "speed": 0.3}, "gait.speed", ["pattern", "period"]),
    ("solo12", {"duty_factor": 1 - 1e-12, "offsets": {"FL": 0, "FR": 0.5, "HL": 0.5, "HR": 0}, "period": 1},
     "gait.duty_factor", []),
    ("solo12", {"duty_factor": 0.2, "offsets": {"FL": 0, "FR": 0.5, "HL": 0.5, "HR": 0}, "period": 1},
     "gait.duty_factor", []),
    ("solo12", "trot", "gait", []),
]


@pytest.mark.parametrize("robot_name,gait,field,allowed", ERRORS,
                         ids=[f"{i}-{e[2]}" for i, e in enumerate(ERRORS)])
def test_bad_input_names_the_field(robot_name, gait, field, allowed):
    with pytest.raises(InputError) as info:
        expand_gait(gait, robot(robot_name), SOURCE)
    assert_one_line(info.value, field, allowed)


def test_error_messages_say_what_is_wrong():
    def msg(robot_name, gait):
        with pytest.raises(InputError) as info:
            expand_gait(gait, robot(robot_name), SOURCE)
        return str(info.value)
    assert "quadruped" in msg("biped7", {"pattern": "trot", "period": 1})
    assert "heel and toe" in msg("bolt", {"pattern": "static_walk", "period": 1})
    assert "at least 2 per phase, 8 in all" in msg("solo12", {"pattern": "crawl", "period": 1, "knots": 7})
    assert "'HR'" in msg("solo12", {"duty_factor": 0.6, "offsets": {"FL": 0, "FR": 0.5, "HL": 0.5}, "period": 1})
    assert "never swings" in msg("solo12", {"duty_factor": 1 - 1e-12, "period": 1,
                                            "offsets": {"FL": 0, "FR": 0.5, "HL": 0.5, "HR": 0}})


@pytest.mark.parametrize("problem, setting, field", [
    ("biped7_static_walk", "gait.pattern=trot", "gait.pattern"),      # a pattern and phases
    ("anymal_c_trot", "gait.duty_factor=1.5", "gait.duty_factor"),    # impossible duty factor
    ("anymal_c_trot", "gait.pattern=wave", "gait.pattern"),          # a hexapod pattern on a quadruped
])
def test_contradictory_gait_input_is_one_line_exit_2(tmp_path, problem, setting, field):
    import subprocess
    import sys
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-m", "gaitopt.cli", "solve", str(root / "problems" / f"{problem}.yaml"),
                           "-o", str(tmp_path / "out"), "--set", setting], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f": {field}: " in lines[0], lines


def test_offsets_written_to_four_digits_make_no_sliver_phase():
    """A hexapod tetrapod gait with thirds written 0.3333 / 0.6667 (β 0.6667) had its lift-offs
    and touchdowns 1e-4 of the cycle apart: a 0.09 ms all_stance phase with 2 of the 30 knots.
    Events closer than EVENT_TOL of the cycle are one event: three phases, as with exact thirds."""
    from gaitopt.gait_timeline import EVENT_TOL
    r = robot("hexapod")
    offsets = {"L1": 0.0, "R2": 0.0, "L3": 0.3333, "R1": 0.3333, "L2": 0.6667, "R3": 0.6667}
    gait = expand_gait({"duty_factor": 0.6667, "offsets": offsets, "period": 0.9, "knots": 30}, r, SOURCE)
    exact = expand_gait({"duty_factor": 2 / 3, "offsets": {f: round(3 * o) / 3 for f, o in offsets.items()},
                         "period": 0.9, "knots": 30}, r, SOURCE)
    assert [p["name"] for p in gait["phases"]] == [p["name"] for p in exact["phases"]]
    assert len(gait["phases"]) == 3 and [p["knots"] for p in gait["phases"]] == [10, 10, 10]
    assert min(p["duration"] for p in gait["phases"]) > 0.9 * (1 / 3 - EVENT_TOL)
    assert sum(p["duration"] for p in gait["phases"]) == pytest.approx(0.9)


def test_refused_flight_says_where_a_run_comes_from():
    """A new user's biped run by duty factor (2026-11-25) was told only "a larger duty_factor" and
    that trot, pace and bound may fly, none of which a biped has: the message now points a biped
    to phases written out, a quadruped to the running patterns."""
    def refused(robot_name, offsets):
        with pytest.raises(InputError) as info:
            expand_gait({"duty_factor": 0.4, "offsets": offsets, "period": 0.8}, robot(robot_name), SOURCE)
        assert_one_line(info.value, "gait.duty_factor", ["a larger duty_factor"])
        return str(info.value).split("(allowed: ", 1)[1]
    for biped in ("rabbit", "biped7", "bolt"):
        assert "gait.phases written out" in refused(biped, {"left": 0.0, "right": 0.5})
    quad = refused("solo12", {"FL": 0.0, "HR": 0.0, "FR": 0.5, "HL": 0.5})
    assert "pattern trot or pace or bound with duty_factor < 0.5" in quad
