"""Bad input never gets further than the reader: every bad problem file, study file or --set
value raises InputError naming the file, the key and what is allowed, in one short line, and
the command line exits 2 with exactly that line on stderr (no traceback). Nothing is solved
here: every input fails validation."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

import gaitopt as go
from gaitopt.errors import InputError
from gaitopt.problem import load_problem
from gaitopt.settings import Bounded
from gaitopt.study import load_study

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "problems" / "biped7_static_walk.yaml"
MAX_LINE = 400

# not in the fast subset (about 8 s): tests/test_cli.py holds the fast bad-input checks


def base() -> dict:
    return yaml.safe_load(STATIC.read_text(encoding="utf-8"))


def write(tmp_path: Path, data, name: str = "problem.yaml") -> Path:
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    elif isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def with_key(dotted: str, value):
    """The static walk with one key path set (list elements by index)."""
    data = base()
    node = data
    keys = dotted.split(".")
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node.setdefault(k, {})
    last = keys[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


def assert_short(err: InputError, *fragments):
    text = str(err)
    assert "\n" not in text and "\r" not in text, text
    assert len(text) <= MAX_LINE - len("gaitopt: "), (len(text), text[:500])
    for frag in fragments:
        assert frag in text, f"{frag!r} not in: {text}"


def bad_problem(tmp_path, data, *fragments, overrides=None):
    path = write(tmp_path, data)
    with pytest.raises(InputError) as info:
        load_problem(path, overrides)
    assert_short(info.value, str(path), *fragments)
    return info.value


# ------------------------------------------------------------------ 1. unreadable input

UNREADABLE = {
    "utf16": ("robot: biped7\n".encode("utf-16"), "UTF-8"),
    "latin1": ("description: caf\xe9\nrobot: biped7\n".encode("latin-1"), "not UTF-8"),
    "empty": (b"", "empty"),
    "comments_only": (b"# nothing here\n", "empty"),
    "yaml_syntax": (b"robot: biped7\ngait: {phases: [\n", "not valid YAML"),
    "bad_indent": (b"robot: biped7\n  gait: x\n speed: 1\n", "not valid YAML"),
    "tab_indent": (b"robot: biped7\ngait:\n\tphases: []\n", "not valid YAML"),
    "top_list": (b"- 1\n- 2\n", "mapping"),
    "top_scalar": (b"42\n", "mapping"),
    "deep_nesting": (b"robot: " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested"),
    "python_tag": (b"robot: !!python/object/apply:os.system ['true']\n", "not valid YAML"),
    # a key given twice: PyYAML kept the last one silently (a new user's study lost a speed list)
    "duplicate_key": (b"robot: biped7\nspeed: 0.3\nspeed: 0.4\n", "'speed' is given twice at line 3"),
}


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_unreadable_problem_file(tmp_path, case):
    content, fragment = UNREADABLE[case]
    bad_problem(tmp_path, content, fragment)


def test_file_too_large(tmp_path):
    t0 = time.perf_counter()
    bad_problem(tmp_path, b"robot: biped7\nspeed: [" + b"1, " * 200_000 + b"1]\n", "too large", "bytes")
    assert time.perf_counter() - t0 < 2.0


def test_set_value_too_long(tmp_path):
    with pytest.raises(InputError) as info:
        load_problem(write(tmp_path, base()), ["speed=[" + "1, " * 20_000 + "1]"])
    assert_short(info.value, "--set speed", "too long")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError) as info:
        load_problem(tmp_path / "nope.yaml")
    assert_short(info.value, "nope.yaml", "not found")
    with pytest.raises(InputError) as info:
        load_problem(tmp_path)
    assert_short(info.value, str(tmp_path), "directory")


@pytest.mark.parametrize("item, fragments", [
    ("speed=[unclosed", ["--set speed", "not valid YAML"]),
    ("speed={a: [}", ["--set speed", "not valid YAML"]),
    ("gait.phases.5=8", ["--set gait.phases.5", "no list element", "0…1"]),
    ("gait.phases.5.knots=8", ["--set gait.phases.5.knots", "no list element"]),
    ("gait.phases.x.knots=8", ["--set gait.phases.x.knots", "not a list index"]),
    ("gait.phases.-1.knots=8", ["--set gait.phases.-1.knots", "no list element"]),
    ("speed.min.x=1", ["--set speed.min.x", "below a value"]),
    # a list the file does not have (a pattern gait has no phases): named, with what is there
    ("constraints.extra.0.x=1", ["--set constraints.extra.0.x", "no list constraints.extra", "keys of constraints"]),
    ("speed", ["--set", "KEY=VALUE"]),
    ("=3", ["--set", "key path"]),
    ("gait..cycle=half", ["--set gait..cycle", "empty key"]),
])
def test_bad_set(tmp_path, item, fragments):
    with pytest.raises(InputError) as info:
        load_problem(write(tmp_path, base()), [item])
    assert_short(info.value, *fragments)


# ------------------------------------------------------------------ 2. numbers

NUMBERS = {
    "mu_inf": ("constraints.friction.mu", float("inf"), "constraints.friction.mu"),
    "mu_nan": ("constraints.friction.mu", float("nan"), "constraints.friction.mu"),
    "mu_huge": ("constraints.friction.mu", 1e6, "constraints.friction.mu"),
    "duration_max_inf": ("gait.phases.0.duration", {"min": 0.2, "max": float("inf")}, "gait.phases[0].duration.max"),
    "duration_nan": ("gait.phases.1.duration", float("nan"), "gait.phases[1].duration"),
    "duration_guess_neg_inf": ("gait.phases.0.duration", {"min": 0.2, "max": 0.5, "guess": float("-inf")},
                               "gait.phases[0].duration.guess"),
    "speed_1e300": ("speed", 1e300, "speed"),
    "speed_big": ("speed", 100.0, "speed"),
    "speed_neg": ("speed", -0.3, "speed"),
    "speed_min_nan": ("speed", {"min": float("nan"), "max": 0.4}, "speed.min"),
    "stride_inf": ("stride", float("inf"), "stride"),
    "cost_nan": ("cost", {"joule_loss": float("nan")}, "cost.joule_loss"),
    "cost_inf": ("cost", {"joule_loss": float("inf")}, "cost.joule_loss"),
    "cost_zero": ("cost", {"joule_loss": 0.0}, "cost.joule_loss"),
    "cost_negative": ("cost", {"joule_loss": 1.0, "abs_power": -1.0}, "cost.abs_power"),
    "clearance_inf": ("constraints.clearance", float("inf"), "constraints.clearance"),
    "clearance_big": ("constraints.clearance", 5.0, "constraints.clearance"),
    "pitch_nan": ("constraints.base_pitch_limit", float("nan"), "constraints.base_pitch_limit"),
    "pitch_above_half_pi": ("constraints.base_pitch_limit", 2.0, "constraints.base_pitch_limit"),
    "torque_rate_inf": ("constraints.torque_rate", float("inf"), "constraints.torque_rate"),
    "torque_rate_zero": ("constraints.torque_rate", 0, "constraints.torque_rate"),
    "base_height_inf": ("constraints.base_height", {"min": 0.1, "max": float("inf")}, "constraints.base_height.max"),
    "knee_margin_nan": ("constraints.knee_margin", float("nan"), "constraints.knee_margin"),
    "leg_separation_inf": ("constraints.leg_separation", {"lateral": float("inf")},
                           "constraints.leg_separation.lateral"),
    "attitude_nan": ("constraints.base_attitude", {"roll": float("nan")}, "constraints.base_attitude.roll"),
    # degrees typed for radians: a ±172° roll band (a user's hexapod trial, 2026-11-25)
    "attitude_degrees": ("constraints.base_attitude", {"roll": 3}, "constraints.base_attitude.roll"),
    "foot_yaw_degrees": ("constraints.foot_yaw", {"band": 15}, "constraints.foot_yaw.band"),
    "foot_yaw_inf": ("constraints.foot_yaw", {"band": float("inf")}, "constraints.foot_yaw.band"),
    "foot_range_inf": ("constraints.foot_range", {"half_size": [0.1, float("inf"), 0.1]},
                       "constraints.foot_range.half_size"),
    "footholds_nan": ("constraints.footholds", {"left": [float("nan")]}, "constraints.footholds"),
    "tol_nan": ("solver.tol", float("nan"), "solver.tol"),
    "tol_inf": ("solver.tol", float("inf"), "solver.tol"),
    "tol_zero": ("solver.tol", 0.0, "solver.tol"),
    "constr_viol_tol_inf": ("solver.constr_viol_tol", float("inf"), "solver.constr_viol_tol"),
    "ipopt_option_nan": ("solver.options", {"acceptable_tol": float("nan")}, "solver.options"),
    "ipopt_option_string_inf": ("solver.options", {"acceptable_tol": "inf"}, "solver.options.acceptable_tol"),
    "slope_inf": ("terrain.slope_deg", float("inf"), "terrain.slope_deg"),
    "slope_big": ("terrain.slope_deg", 80.0, "terrain.slope_deg"),
    "design_max_inf": ("design", {"gear_ratio": {"knee": {"joints": ["left_knee"], "min": 10,
                                                          "max": float("inf")}}}, "design.gear_ratio.knee.max"),
    "design_min_nan": ("design", {"gear_ratio": {"knee": {"joints": ["left_knee"], "min": float("nan"),
                                                          "max": 100}}}, "design.gear_ratio.knee.min"),
    "huge_int": ("speed", 10 ** 400, "speed"),
}


@pytest.mark.parametrize("case", sorted(NUMBERS))
def test_non_finite_or_out_of_range_number(tmp_path, case):
    key, value, field = NUMBERS[case]
    err = bad_problem(tmp_path, with_key(key, value), field + ":", "(allowed: ")
    assert err.field == field or err.field.startswith(field), err.field


@pytest.mark.parametrize("text, field", [
    ("constraints:\n  friction: {mu: .inf}\n", "constraints.friction.mu"),
    ("constraints:\n  friction: {mu: .NaN}\n", "constraints.friction.mu"),
    ("speed: -.inf\n", "speed"),
    ("speed: 1e300\n", "speed"),
    ("cost: {joule_loss: .nan}\n", "cost.joule_loss"),
])
def test_yaml_special_floats(tmp_path, text, field):
    data = base()
    for k in ("speed", "constraints", "cost"):
        if k + ":" in text:
            data.pop(k, None)
    body = yaml.safe_dump(data, sort_keys=False) + text
    bad_problem(tmp_path, body, f"{field}:", "(allowed: ")


# ------------------------------------------------------------------ 3. sizes

@pytest.mark.parametrize("key, value, fragments", [
    ("gait.phases.0.knots", 10_000_000, ["gait.phases[0].knots", "2000"]),
    ("gait.phases.0.knots", 2001, ["gait.phases[0].knots", "2000"]),
    ("solver.max_iter", 10 ** 12, ["solver.max_iter", "100000"]),
    ("solver.max_iter", "1e9", ["solver.max_iter", "100000"]),
    ("solver.max_iter", -1, ["solver.max_iter"]),
])
def test_sizes_bounded(tmp_path, key, value, fragments):
    bad_problem(tmp_path, with_key(key, value), *fragments)


def test_total_knots_bounded(tmp_path):
    data = base()
    phase = data["gait"]["phases"][0]
    data["gait"]["phases"] = [dict(phase, name=f"p{i}", knots=2000) for i in range(11)]
    bad_problem(tmp_path, data, "gait.phases", "4000")


def test_too_many_phases(tmp_path):
    data = base()
    phase = data["gait"]["phases"][0]
    data["gait"]["phases"] = [dict(phase, name=f"p{i}", knots=2) for i in range(500)]
    bad_problem(tmp_path, data, "gait.phases", "at most")


def test_scaled_knots_bounded():
    problem = load_problem(STATIC)
    with pytest.raises(InputError) as info:
        problem.scaled_knots(1e6)
    assert_short(info.value, "knots")


@pytest.mark.parametrize("changes, field", [
    ({"speed": Bounded(0.1, float("inf"), 0.3)}, "speed"),
    ({"stride": Bounded(float("nan"), float("nan"), float("nan"))}, "stride"),
    ({"cost": {"joule_loss": float("nan")}}, "cost.joule_loss"),
    ({"cost": {"joule_loss": -1.0}}, "cost.joule_loss"),
])
def test_replace_checks_numbers(changes, field):
    """Problem.replace (the Python API) validates as the reader does."""
    with pytest.raises(InputError) as info:
        load_problem(STATIC).replace(**changes)
    assert_short(info.value, field)


def test_pattern_knots_bounded(tmp_path):
    data = base()
    data["gait"] = {"pattern": "static_walk", "period": 1.1, "knots": 10_000_000}
    bad_problem(tmp_path, data, "gait.knots", "4000")


@pytest.mark.parametrize("period, field", [(float("inf"), "gait.period"), (float("nan"), "gait.period"),
                                          ({"min": 0.5, "max": float("inf")}, "gait.period")])
def test_pattern_period_non_finite(tmp_path, period, field):
    data = base()
    data["gait"] = {"pattern": "static_walk", "period": period}
    bad_problem(tmp_path, data, field)


def _study(tmp_path, parameters, **extra) -> Path:
    data = {"problem": str(STATIC), "parameters": parameters, **extra}
    return write(tmp_path, data, "study.yaml")


@pytest.mark.parametrize("parameters, extra, fragments", [
    ({"speed": list(range(1, 201)), "constraints.clearance": list(range(100))}, {},
     ["parameters", "10000 cases"]),
    ({"speed": list(range(5000))}, {}, ["parameters.speed", "at most 1000"]),
    ({"gear_ratio": [float("nan")]}, {}, ["parameters.gear_ratio", "positive"]),
    ({"gear_ratio.knee": [float("inf")]}, {}, ["parameters.gear_ratio.knee", "positive"]),
    ({"motor": [[1, 2]]}, {}, ["parameters.motor", "catalogue"]),
    ({"speed": [0.3]}, {"scale_knots": float("inf")}, ["scale_knots"]),
    ({"speed": [0.3]}, {"scale_knots": 1e9}, ["scale_knots", "100"]),
    ({"speed": [0.3]}, {"gear_efficiency": float("nan")}, ["gear_efficiency"]),
])
def test_bad_study(tmp_path, parameters, extra, fragments):
    path = _study(tmp_path, parameters, **extra)
    with pytest.raises(InputError) as info:
        load_study(path)
    assert_short(info.value, "study.yaml", *fragments)


@pytest.mark.parametrize("content, fragment", [
    (b"", "empty"), ("problem: x\n".encode("utf-16"), "UTF-8"), (b"problem: [\n", "not valid YAML")])
def test_unreadable_study(tmp_path, content, fragment):
    with pytest.raises(InputError) as info:
        load_study(write(tmp_path, content, "study.yaml"))
    assert_short(info.value, "study.yaml", fragment)


# ------------------------------------------------------------------ 4. short messages

BOMB = b"""a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
robot: biped7
speed: *h
"""


def test_alias_bomb(tmp_path):
    assert len(BOMB) < 500
    t0 = time.perf_counter()
    bad_problem(tmp_path, BOMB, "too large")
    assert time.perf_counter() - t0 < 5.0


def test_alias_bomb_in_set(tmp_path):
    value = "[&a [x,x,x,x,x,x,x,x,x,x], &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a], " \
            "&c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b], &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c], " \
            "&e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d], &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]]"
    with pytest.raises(InputError) as info:
        load_problem(write(tmp_path, base()), [f"speed={value}"])
    assert_short(info.value, "--set speed", "too large")


@pytest.mark.parametrize("key, value, field", [
    ("speed", "x" * 100_000, "speed"),
    ("speed", list(range(10_000)), "speed"),
    ("robot", ["r"] * 10_000, "robot"),
    ("transcription", "y" * 10_000, "transcription"),
    ("constraints.touchdown", "z" * 10_000, "constraints.touchdown"),
    ("cost", "w" * 10_000, "cost"),
])
def test_long_values_are_shortened(tmp_path, key, value, field):
    err = bad_problem(tmp_path, with_key(key, value), field)
    assert "…" in str(err) or "..." in str(err)


def test_long_unknown_key(tmp_path):
    data = base()
    data["k" * 5000] = 1
    bad_problem(tmp_path, data, "unknown key")


def test_long_path(tmp_path):
    deep = tmp_path
    for i in range(12):
        deep = deep / ("d" * 20 + str(i))
    deep.mkdir(parents=True)
    path = write(deep, base())
    with pytest.raises(InputError) as info:
        load_problem(path, ["speed=.nan"])
    assert_short(info.value, "speed")


def test_input_error_is_capped():
    err = InputError("m" * 10_000 + "\nsecond line", file="f" * 1000, field="k" * 1000, allowed=["a" * 500] * 100)
    text = str(err)
    assert "\n" not in text and len(text) <= 380


# ------------------------------------------------------------------ 5. YAML 1.1 pitfalls

@pytest.mark.parametrize("text, field, fragment", [
    ("speed: yes\n", "speed", "yes/no/on/off"),
    ("speed: off\n", "speed", "yes/no/on/off"),
    ("speed: 'on'\n", "speed", "expected a number"),
    ("speed: '0.3'\n", "speed", "without quotes"),
    ("speed: 3e5\n", "speed", "must be <= 20"),
    ("solver:\n  max_iter: yes\n", "solver.max_iter", "yes/no/on/off"),
    ("solver:\n  max_iter: 1.5\n", "solver.max_iter", "expected an integer"),
    ("constraints:\n  clearance: no\n", "constraints.clearance", "yes/no/on/off"),
    ("constraints:\n  joint_limits: 'yes'\n", "constraints.joint_limits", "true or false"),
])
def test_yaml11_pitfalls(tmp_path, text, field, fragment):
    data = base()
    data.pop(text.split(":")[0], None)
    bad_problem(tmp_path, yaml.safe_dump(data, sort_keys=False) + text, f"{field}:", fragment, "(allowed: ")


def test_ipopt_option_yes_no_still_accepted(tmp_path):
    """IPOPT's switches are "yes"/"no": booleans there are turned into them, not refused."""
    data = base()
    data["solver"] = {"options": {"mu_strategy": "adaptive", "warm_start_init_point": True}}
    problem = load_problem(write(tmp_path, data))
    assert problem.solver.options["warm_start_init_point"] == "yes"


# ------------------------------------------------------------------ the command line

def gaitopt(*args, timeout=120):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "gaitopt.cli", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def assert_exit_2(proc, *fragments):
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr[-2000:]
    line = lines[0]
    assert line.startswith("gaitopt: ") and len(line) <= MAX_LINE, (len(line), line[:600])
    for frag in fragments:
        assert frag in line, f"{frag!r} not in: {line}"


def _cli_cases(tmp_path):
    good = write(tmp_path, base(), "good.yaml")
    return {
        "utf16": ([write(tmp_path, "robot: biped7\n".encode("utf-16"), "utf16.yaml")], ["utf16.yaml", "UTF-8"]),
        "directory": ([tmp_path], [str(tmp_path), "directory"]),
        "missing": ([tmp_path / "missing.yaml"], ["missing.yaml", "not found"]),
        "empty": ([write(tmp_path, b"", "empty.yaml")], ["empty.yaml", "empty"]),
        "set_yaml": ([good, "--set", "speed=[unclosed"], ["good.yaml", "--set speed", "not valid YAML"]),
        "set_index": ([good, "--set", "gait.phases.5=8"], ["good.yaml", "--set gait.phases.5", "no list element"]),
        "set_no_equals": ([good, "--set", "speed"], ["--set", "KEY=VALUE"]),
        "mu_inf": ([good, "--set", "constraints.friction.mu=.inf"], ["constraints.friction.mu", "finite"]),
        "speed_1e300": ([good, "--set", "speed=1e300"], ["speed", "(allowed: a number in (0, 20]"]),
        "knots_10M": ([good, "--set", "gait.phases.0.knots=10000000"], ["gait.phases[0].knots", "2000"]),
        "speed_yes": ([good, "--set", "speed=yes"], ["speed", "yes/no/on/off"]),
        "bomb": ([write(tmp_path, BOMB, "bomb.yaml")], ["bomb.yaml", "too large"]),
    }


SUBPROCESS_CASES = ("utf16", "set_yaml", "knots_10M", "bomb")


@pytest.mark.parametrize("case", SUBPROCESS_CASES)
def test_cli_bad_input_subprocess(tmp_path, case):
    """`python -m gaitopt.cli solve` in a subprocess: exit 2, one line, no traceback, no solve."""
    args, fragments = _cli_cases(tmp_path)[case]
    out = tmp_path / "out"
    assert_exit_2(gaitopt("solve", *args, "-o", out, "--print-level", "0"), *fragments)
    assert not (out / "result.json").exists()


def test_cli_bad_inputs_in_process(tmp_path, capsys):
    """Every case through gaitopt.cli.main (same code path, without a process start each)."""
    from gaitopt.cli import main
    out = tmp_path / "out"
    for case, (args, fragments) in _cli_cases(tmp_path).items():
        code = main(["solve", *map(str, args), "-o", str(out), "--print-level", "0"])
        captured = capsys.readouterr()
        proc = subprocess.CompletedProcess(args, code, captured.out, captured.err)
        assert_exit_2(proc, *fragments)
    assert not (out / "result.json").exists()


def test_cli_bad_study(tmp_path):
    path = _study(tmp_path, {"speed": list(range(1, 201)), "constraints.clearance": list(range(100))})
    assert_exit_2(gaitopt("sweep", path, "-o", tmp_path / "out", "-q"), "study.yaml", "parameters", "cases")


def test_exponent_without_dot_is_a_number(tmp_path):
    """YAML 1.1 reads 1e-3 as a string; a number field takes it as the number meant."""
    data = base()
    data["solver"] = {"tol": "1e-7", "max_iter": "1e3"}
    problem = load_problem(write(tmp_path, data))
    assert problem.solver.tol == 1e-7 and problem.solver.max_iter == 1000


def test_exponent_in_a_list_is_a_number(tmp_path):
    """`ratio_bounds: [0.5, 1e9]` as typed: YAML 1.1 left 1e9 a string and the bounds were
    refused as not [min, max]; the loader now reads it (and 1.0e3, -2E-3) as the number."""
    text = (ROOT / "problems" / "codesign" / "solo12_slope_limbs.yaml").read_text()
    text = text.replace("ratio_bounds: [0.5, 2.0]", "ratio_bounds: [5E-1, 1e1]")
    text = text.replace("clearance: 0.03", "clearance: 3E-2").replace("speed: 0.3", "speed: 3.0e-1")
    path = tmp_path / "limbs.yaml"
    path.write_text(text)
    problem = load_problem(path)
    assert tuple(problem.limb_lengths.ratio_bounds) == (0.5, 10.0)
    assert problem.speed.min == pytest.approx(0.3)


def test_pattern_exponent_without_dot(tmp_path):
    data = base()
    data["gait"] = {"pattern": "static_walk", "period": "11e-1", "knots": 22}
    problem = load_problem(write(tmp_path, data))
    assert sum(ph.duration.guess for ph in problem.phases) == pytest.approx(0.55)


def test_good_file_still_loads():
    problem = go.load_problem(STATIC, ["speed=0.3", "gait.phases.0.knots=8", "solver.max_iter=50"])
    assert problem.speed.min == 0.3 and problem.phases[0].knots == 8 and problem.solver.max_iter == 50


def test_unknown_key_lists_the_closest_keys_first():
    """The allowed keys of a long list are cut to fit one line: a typo's intended key comes
    first (a new user's study error stopped at 'touch…' before 'friction' was shown)."""
    with pytest.raises(InputError) as info:
        load_problem(ROOT / "problems" / "biped7_static_walk.yaml", {"constraints.frictoin.mu": 0.5})
    assert info.value.field == "constraints.frictoin"
    assert str(info.value.allowed).startswith("friction, ")
