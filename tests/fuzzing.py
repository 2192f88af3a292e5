"""Seeded fuzzing of the gaitopt command line against its exit-code contract.

The contract (README.md "Output", docs/formats.md "Exit codes"), for every command on any input:

(a) no Python traceback on stdout or stderr;
(b) exit code 0 (success), 1 (failed solve / verification / some sweep cases), 2 (bad input:
    exactly one stderr line, starting with "gaitopt: ", at most 400 characters), 3 (internal
    error: one stderr line naming a log file that exists), 4 (`verify` could not run the replay:
    one "gaitopt: " stderr line) or 130 (interrupted: nothing on stderr); any other code is a
    breach. Exit 3 and 130 hold the contract but are listed apart
    (`Outcome.internal`): an internal error is a bug all the same;
(c) the command never modifies (or deletes) its input files: the problem file, the robot
    folder, the study file and its problem, the files of a result directory it reads;
(d) it finishes within a time limit (a hang or a huge allocation is a breach), run under a
    4 GB address-space limit.

`generate(seed, n)` returns n cases, each a dict reproducible from (seed, index):
    kind         problem | robot | result | study | flags
    index, seed  its place in the sequence
    description  the mutations applied, one line
    argv         the command line after `python -m gaitopt.cli`, "{W}" standing for the
                 case's working directory
    files        {relative path: bytes | None (a directory)} written into the working directory
    result_dir   relative path where a copy of the base result directory is put first (or None)
    result_ops   corruptions applied to that copy, [(op, file, argument), ...], after `files`
    inputs       relative paths (files or folders) whose bytes and mtimes must not change

`run_case(case, workdir)` builds the working directory, runs the command in a child process and
returns an `Outcome(ok, why, exit, stderr_tail)`.
"""
from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
KINDS = ("problem", "robot", "result", "study", "flags")
TIMEOUT_S = 60.0
MEMORY_LIMIT = 4 * 1024 ** 3
MAX_LINE = 400

# problems cheap enough to solve with small knots and solver.max_iter=20
CHEAP_PROBLEMS = ["biped7_static_walk.yaml", "biped7_heel_toe_walk.yaml", "biped7_slope_walk.yaml"]
OTHER_PROBLEMS = sorted(p.name for p in (REPO / "problems").glob("*.yaml") if p.name not in CHEAP_PROBLEMS)
STUDIES = sorted(p.name for p in (REPO / "problems" / "studies").glob("*.yaml"))
BASE_PROBLEM = REPO / "problems" / "biped7_static_walk.yaml"
BASE_SETS = ["gait.phases.0.knots=4", "gait.phases.1.knots=2", "solver.max_iter=30"]
CHEAP_SETS = ["--set", "solver.max_iter=20"]


@dataclass
class Outcome:
    ok: bool
    why: str
    exit: int | None
    stderr_tail: str
    seconds: float = 0.0
    internal: bool = False  # exit 3: allowed by the contract, still a bug worth listing
    flaky: bool = False  # bench: a breach that held on a re-run


# ------------------------------------------------------------------ value and tree mutations

WEIRD_NUMBERS = [float("nan"), float("inf"), float("-inf"), 1e308, -1e308, 1e12, -1.0, 0.0, -0.0, 1e-320,
                 2 ** 63, -(2 ** 63), 10 ** 30, 3, -7]
WEIRD_VALUES = [None, True, False, "", "abc", "ü∑𝄞\u202e", "1e3", "nan", [], {}, [1, 2, 3], {"a": 1},
                [[[]]], "../../../../etc/passwd", "/dev/zero", "\x00", "x" * 5000]


def _weird(rng: random.Random):
    r = rng.random()
    if r < 0.5:
        return rng.choice(WEIRD_NUMBERS)
    return copy.deepcopy(rng.choice(WEIRD_VALUES))


def _paths(tree, prefix=()):
    """Every (path, value) of a YAML tree, containers included."""
    out = [(prefix, tree)]
    if isinstance(tree, dict):
        for k, v in tree.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            out += _paths(v, prefix + (i,))
    return out


def _get(tree, path):
    for k in path:
        tree = tree[k]
    return tree


def _mutate_tree(tree, rng: random.Random, n: int) -> list[str]:
    """Apply n random mutations in place; return their descriptions."""
    done = []
    for _ in range(n):
        entries = [(p, v) for p, v in _paths(tree) if p]
        if not entries:
            break
        path, value = rng.choice(entries)
        parent = _get(tree, path[:-1])
        key = path[-1]
        where = ".".join(map(str, path))
        r = rng.random()
        if isinstance(value, (int, float)) and not isinstance(value, bool) and r < 0.6:
            new = rng.choice(WEIRD_NUMBERS + [value * 1e6, -value, value + 0.5, int(1e9)])
            parent[key] = new
            done.append(f"{where}={new!r}")
        elif r < 0.15 and isinstance(parent, dict):
            del parent[key]
            done.append(f"del {where}")
        elif r < 0.25 and isinstance(parent, list):
            del parent[key]
            done.append(f"del {where}")
        elif r < 0.35 and isinstance(parent, dict):
            new_key = rng.choice([str(key) + "_x", str(key).upper(), "", "ü", 123, None, str(key) + " "])
            parent[new_key] = parent.pop(key)
            done.append(f"rename {where}->{new_key!r}")
        elif r < 0.45 and isinstance(value, list):
            parent[key] = [] if rng.random() < 0.5 else value + value
            done.append(f"{where}=list({len(parent[key])})")
        elif r < 0.5 and isinstance(value, dict):
            parent[key] = {}
            done.append(f"{where}={{}}")
        else:
            new = _weird(rng)
            parent[key] = new
            done.append(f"{where}={_short(new)}")
    return done


def _mutate_numbers(tree, rng: random.Random, n: int) -> list[str]:
    """Replace n numeric leaves with weird numbers (zero, negative, NaN, inf, huge)."""
    done = []
    nums = [(p, v) for p, v in _paths(tree) if p and isinstance(v, (int, float)) and not isinstance(v, bool)]
    for path, value in rng.sample(nums, min(n, len(nums))):
        new = rng.choice(WEIRD_NUMBERS + [0, 0.0, -value, value * 1e9])
        _get(tree, path[:-1])[path[-1]] = new
        done.append(f"{'.'.join(map(str, path))}={new!r}")
    return done


def _short(v) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _dump(tree) -> str:
    return yaml.safe_dump(tree, sort_keys=False, allow_unicode=True, width=10 ** 6)


_yaml_cache: dict = {}


def _load_yaml(path: Path):
    key = str(path)
    if key not in _yaml_cache:
        _yaml_cache[key] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return copy.deepcopy(_yaml_cache[key])


def _small_knots(tree, rng: random.Random) -> None:
    """Few knots, so that a problem that still validates solves in a second."""
    gait = tree.get("gait") if isinstance(tree, dict) else None
    if not isinstance(gait, dict):
        return
    if isinstance(gait.get("phases"), list):
        for ph in gait["phases"]:
            if isinstance(ph, dict) and "knots" in ph:
                ph["knots"] = rng.choice([2, 3, 4])
    if "knots" in gait:
        gait["knots"] = rng.choice([6, 8])
    if isinstance(tree.get("solver"), dict) or "solver" not in tree:
        tree.setdefault("solver", {})
        if isinstance(tree["solver"], dict):
            tree["solver"]["max_iter"] = 20


# ------------------------------------------------------------------ text and byte mutations

def _encode(text: str, rng: random.Random) -> tuple[bytes, str]:
    r = rng.random()
    if r < 0.25:
        return text.encode("utf-16"), "utf-16"
    if r < 0.45:
        return ("description: Zürich ° ± µ\n" + text).encode("latin-1", "replace"), "latin-1"
    if r < 0.55:
        return b"\xef\xbb\xbf" + text.encode(), "utf-8 BOM"
    if r < 0.7:
        b = bytearray(text.encode())
        for _ in range(rng.randint(1, 5)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b), "random bytes flipped"
    if r < 0.85:
        b = text.encode()
        return b[: rng.randrange(len(b))], "truncated"
    return text.replace("\n", "\r", rng.randint(1, 10)).encode(), "CR line ends"


def _special_yaml(rng: random.Random) -> tuple[bytes, str]:
    choices = [
        ("alias bomb", "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
         "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
         "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\nrobot: biped7\ngait: *h\n"),
        ("alias bomb in description", "x: &x [a,a,a,a,a,a,a,a,a,a]\ny: &y [*x,*x,*x,*x,*x,*x,*x,*x,*x,*x]\n"
         "z: &z [*y,*y,*y,*y,*y,*y,*y,*y,*y,*y]\nw: &w [*z,*z,*z,*z,*z,*z,*z,*z,*z,*z]\n"
         "v: &v [*w,*w,*w,*w,*w,*w,*w,*w,*w,*w]\ndescription: *v\nrobot: *v\n"),
        ("recursive alias", "a: &a\n  b: *a\nrobot: biped7\ngait: *a\n"),
        ("deep nesting", "robot: biped7\ngait: " + "[" * 5000 + "]" * 5000 + "\n"),
        ("deep mapping", "robot: biped7\ngait: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n"),
        ("python tag", "robot: !!python/object/apply:os.system ['echo pwned']\n"),
        ("unknown tag", "robot: !custom biped7\n"),
        ("empty file", ""),
        ("only a comment", "# nothing\n"),
        ("scalar document", "42\n"),
        ("list document", "- robot: biped7\n"),
        ("two documents", "robot: biped7\n---\nrobot: biped7\n"),
        ("tab indentation", "robot: biped7\ngait:\n\tcycle: half\n"),
        ("binary junk", None),
        ("null bytes", "robot: bi\x00ped7\n"),
        ("huge line", "description: " + "y" * 2_000_000 + "\nrobot: biped7\n"),
        ("merge key", "base: &b {robot: biped7}\n<<: *b\n"),
        ("duplicate top keys", "robot: biped7\nrobot: solo12\n"),
        ("timestamp", "robot: 2001-12-14t21:59:43.10-05:00\n"),
        ("set and binary", "robot: !!binary aGVsbG8=\ngait: !!set {a, b}\n"),
    ]
    name, text = rng.choice(choices)
    if text is None:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 400))), name
    return text.encode("utf-8", "surrogatepass"), name


def _dup_key_text(text: str, rng: random.Random) -> tuple[str, str]:
    lines = [ln for ln in text.splitlines() if re.match(r"^\s*[A-Za-z_]+:", ln)]
    if not lines:
        return text, "no key to duplicate"
    ln = rng.choice(lines)
    return text.replace(ln, ln + "\n" + ln, 1), f"duplicated line {ln.strip()[:30]!r}"


GARBAGE_SETS = ["gait.phases.99.knots=3", "=", "noequals", "a..b=1", "speed=[", "gait.phases.-1.knots=2",
                "solver=null", "speed=.nan", "speed=.inf", "speed=-1e308", "robot=../../etc", "robot=/tmp",
                "robot=biped7/../../..", "robot=", "gait=", "gait.phases=[]", "gait.phases.0=7",
                "gait.phases.0.knots=1000000000000", "gait.phases.0.knots=0", "gait.phases.0.knots=-3",
                "gait.phases.0.knots=2.5", "gait.phases.0.knots=true", "speed=ü", "speed= ", "=1",
                ".=1", "speed.x=1", "speed=1=2", "cost={", "cost=&a [*a]", "cost=!!python/name:os.system",
                "transcription=hermite_simpson", "transcription=nope", "solver.max_iter=-1",
                "solver.max_iter=1e400", "solver.tol=0", "solver.linear_solver=ma97", "solver.print_level=99",
                "constraints.friction.mu=-1", "constraints.friction.mu=.nan", "gait.cycle=quarter",
                "gait.phases.0.duration=-1", "gait.phases.0.duration.min=2", "period=0", "design=[]",
                "solver.codegen=maybe", "description=" + "d" * 3000, "x" * 500 + "=1", "speed=0",
                "gait.phases.0.contacts.left=fly", "constraints.clearance=1e9", "slope=1.6",
                "gait.phases.1000000000000.knots=2", "solver.max_cpu_time=0"]


# values that may well validate: they reach the solve, the precheck, the exports
NEAR_VALID_SETS = [
    "transcription=hermite_simpson", "cost=specific_resistance", "cost=abs_power", "cost=torque_squared",
    "cost=torque_rate_squared", "cost=fri_stability", "cost={joule_loss: 1.0, torque_rate_squared: 1e-4}",
    "cost={joule_loss: 0}", "cost={joule_loss: -1}", "cost={}", "gait.cycle=full", "constraints.touchdown=soft",
    "constraints.friction.cone=cone", "constraints.clearance=0", "constraints.clearance=0.3",
    "constraints.torque_rate=0.001", "constraints.torque_rate=1e9", "constraints.power_limit=true",
    "constraints.base_height=0.01", "constraints.base_height={min: 0.5, max: 0.1}", "constraints.base_height=false",
    "constraints.footholds={left: [0.1]}", "constraints.footholds={left: [1000000.0]}",
    "constraints.footholds={nofoot: [0.1]}", "constraints.foot_range=false",
    "constraints.foot_range={half_size: [0, 0, 0]}", "constraints.leg_separation={lateral: 5, longitudinal: 5}",
    "constraints.base_attitude={roll: 0, pitch: 0, yaw: 0}", "constraints.knee_margin=3",
    "constraints.knee_margin=0", "constraints.upper_body={band: 0}", "constraints.base_pitch_limit=0",
    "constraints.joint_limits=false", "constraints.current_limit=false", "constraints.torque_speed=false",
    "stride=0", "stride=5", "stride=0.3", "step_length=0.1", "stride={min: 1, max: 0.1}",
    "speed={min: 0.5, max: 0.1}", "speed={min: 0.1, max: 0.5, guess: 9}", "speed=3", "speed=0.001",
    "terrain.slope_deg=30", "terrain.slope_deg=-30", "terrain.slope_deg=29.9",
    "constraints.friction.mu=1e-06", "constraints.friction.mu=100", "solver.linear_solver=spral",
    "solver.tol=1e-300", "solver.options={max_cpu_time: 0.01}", "solver.options={bogus_option: 1}",
    "solver.options={mu_init: -1}", "solver.options={linear_solver: ma57}",
    "solver.options={hessian_approximation: limited-memory}", "solver.options={max_iter: 0}",
    "solver.options={print_level: 12}", "solver.options={derivative_test: first-order}",
    "solver.scale_variables=false", "solver.print_level=0", "solver.max_iter=0", "solver.max_iter=1",
    "gait.phases.0.duration=60", "gait.phases.0.duration=1e-06", "gait.phases.0.duration={min: 0.3, max: 0.2}",
    "gait.phases.0.duration={min: 0.1, max: 0.2, guess: 5}", "gait.phases.0.knots=2", "gait.phases.0.knots=60",
    "gait.phases.0.contacts.left=swing", "gait.phases.0.contacts.right=flat", "gait.phases.0.contacts.left=toe",
    "gait.phases.0.name=double_support", "gait.phases.1.name=''", "description=ü∑𝄞", "name=../../x",
    "name=" + "n" * 300, "name=/", "gait.pattern=bound", "gait.pattern=static_walk", "gait.pattern=walk",
    "gait.duty_factor=0", "gait.duty_factor=1", "gait.duty_factor=0.99", "gait.duty_factor=0.01",
    "gait.period=0.01", "gait.period=60", "gait.knots=2", "gait.knots=3", "gait.offsets={left: 2}",
    "robot=hoap2_sagittal", "robot=solo12", "robot=bolt", "robot=titan8",
]


def _scale_numbers(tree, rng: random.Random, n: int) -> list[str]:
    """Scale n numeric leaves by plausible factors: values that may still validate."""
    done = []
    nums = [(p, v) for p, v in _paths(tree) if p and isinstance(v, (int, float)) and not isinstance(v, bool)]
    for path, value in rng.sample(nums, min(n, len(nums))):
        f = rng.choice([0.01, 0.1, 0.5, 0.9, 1.1, 2, 10, 100, -1])
        new = type(value)(value * f) if isinstance(value, float) else max(int(value * f), rng.choice([0, 1, 2]))
        _get(tree, path[:-1])[path[-1]] = new
        done.append(f"{'.'.join(map(str, path))}={new!r}")
    return done


def _set_args(rng: random.Random, k: int, pool: list, width: int = 40) -> tuple[list[str], list[str]]:
    """k `--set` items drawn from pool, and their descriptions (each cut to width characters)."""
    argv, desc = [], []
    for _ in range(k):
        s = rng.choice(pool)
        argv += ["--set", s]
        desc.append(f"--set {s[:width]}")
    return argv, desc


# ------------------------------------------------------------------ generators per kind

def _problem_case(rng: random.Random) -> dict:
    name = rng.choice(CHEAP_PROBLEMS * 3 + OTHER_PROBLEMS)
    tree = _load_yaml(REPO / "problems" / name)
    _small_knots(tree, rng)
    files: dict = {}
    desc = [name]
    r = rng.random()
    target = rng.choice(["problem.yaml"] * 8 + ["pro blem.yaml", "prob\nlem.yaml", "ü∑.yaml", "-problem.yaml",
                                                 "problem", "p" * 240 + ".yaml"])
    near = rng.random() < 0.35
    if near:  # few, plausible changes: these reach the precheck and the solve
        if rng.random() < 0.4:
            desc += _scale_numbers(tree, rng, rng.choice([1, 1, 2]))
        files[target] = _dump(tree).encode()
        r = 2.0
    if r < 0.3:
        desc += _mutate_tree(tree, rng, rng.choice([1, 1, 1, 2, 3]))
        files[target] = _dump(tree).encode()
    elif r < 0.45:
        desc += _mutate_numbers(tree, rng, rng.choice([1, 1, 2]))
        files[target] = _dump(tree).encode()
    elif r < 0.55:
        text, d = _dup_key_text(_dump(tree), rng)
        desc.append(d)
        files[target] = text.encode()
    elif r < 0.67:
        data, d = _encode(_dump(tree), rng)
        desc.append(d)
        files[target] = data
    elif r < 0.8:
        data, d = _special_yaml(rng)
        desc.append(d)
        files[target] = data
    elif r < 0.83:
        files[target] = None
        desc.append("problem path is a directory")
    elif r < 0.85:
        files[target] = rng.choice([("symlink", "/dev/zero"), ("symlink", "/dev/urandom"), ("fifo",),
                                    ("symlink", "{W}/loop.yaml"), ("symlink", "/nonexistent")])
        if files[target] == ("symlink", "{W}/loop.yaml"):
            files["loop.yaml"] = ("symlink", "{W}/" + target)
        desc.append(f"problem file is {files[target]}")
    elif r < 0.88:
        desc.append("problem file missing")
    elif r < 0.92:
        # huge knot count that a validation must refuse quickly
        gait = tree.get("gait", {})
        if isinstance(gait.get("phases"), list) and gait["phases"]:
            gait["phases"][0]["knots"] = rng.choice([10 ** 6, 10 ** 9, 10 ** 15, 2 ** 64])
            desc.append(f"phase 0 knots={gait['phases'][0]['knots']}")
        else:
            gait["knots"] = rng.choice([10 ** 6, 10 ** 9, 10 ** 15])
            desc.append(f"gait.knots={gait['knots']}")
        files[target] = _dump(tree).encode()
    elif not near:
        files[target] = _dump(tree).encode()
        desc.append("valid file")
    argv = ["solve", "{W}/" + target if rng.random() < 0.8 else target, "-o", "{W}/out"]
    if target != "problem.yaml":
        desc.insert(1, f"named {target[:30]!r}")
    if near:
        sa, sd = _set_args(rng, rng.choice([1, 1, 2, 3]), NEAR_VALID_SETS, width=50)
        argv += sa
        desc += sd
    elif rng.random() < 0.3:
        sa, sd = _set_args(rng, rng.randint(1, 3), GARBAGE_SETS)
        argv += sa
        desc += sd
    if rng.random() < 0.1:
        o = rng.choice(["{W}/problem.yaml", "{W}/problem.yaml/sub", "/dev/null", "/proc/version", "",
                        "{W}/out/../problem.yaml", "{W}/" + "o" * 300])
        argv[3] = o
        desc.append(f"-o {o}")
    argv += CHEAP_SETS
    inputs = [target] if target in files else []
    return dict(kind="problem", description="; ".join(map(str, desc)), argv=argv, files=files,
                result_dir=None, result_ops=[], inputs=inputs)


def _robot_files(rng: random.Random) -> tuple[dict, list[str]]:
    """A mutated copy of robots/biped7 as files under rob/."""
    src = REPO / "robots" / "biped7"
    files = {"bot": None, "bot/biped7": None}
    desc = []
    tree = _load_yaml(src / "robot.yaml")
    urdf = (src / "biped7.urdf").read_bytes()
    r = rng.random()
    if r < 0.3:
        desc += _mutate_tree(tree, rng, rng.choice([1, 1, 2, 3]))
    elif r < 0.42:
        desc += _mutate_numbers(tree, rng, rng.choice([1, 1, 2]))
    elif r < 0.6:
        desc += _scale_numbers(tree, rng, rng.choice([1, 1, 2]))
    elif r < 0.65:
        cut = rng.randrange(len(urdf))
        urdf = urdf[:cut]
        desc.append(f"URDF truncated at {cut}")
    elif r < 0.72:
        b = bytearray(urdf)
        # a number in the URDF made weird
        nums = [m.span() for m in re.finditer(rb"-?\d+\.\d+", urdf)]
        for _ in range(rng.randint(1, 4)):
            a, e = rng.choice(nums)
            b[a:e] = rng.choice([b"nan", b"inf", b"-1e300", b"0", b"-0.5", b"1e400"]).ljust(e - a)
        urdf = bytes(b)
        desc.append("URDF numbers made weird")
    elif r < 0.75:
        urdf = None
        desc.append("URDF deleted")
    elif r < 0.77:
        urdf = rng.choice([("symlink", "/dev/zero"), ("fifo",), ("symlink", "/dev/urandom")])
        desc.append(f"URDF is {urdf}")
    elif r < 0.82:
        tree["urdf"] = rng.choice(["/etc/passwd", "/dev/zero", ".", "../../robots/biped7/biped7.urdf",
                                   "missing.urdf", "", "biped7.urdf\x00", "/proc/self/mem"])
        desc.append(f"urdf: {tree['urdf']!r}")
    elif r < 0.88:
        data, d = _encode(_dump(tree), rng)
        files["bot/biped7/robot.yaml"] = data
        desc.append("robot.yaml " + d)
    elif r < 0.94:
        data, d = _special_yaml(rng)
        files["bot/biped7/robot.yaml"] = data
        desc.append("robot.yaml " + d)
    else:
        desc.append("valid copy")
    files.setdefault("bot/biped7/robot.yaml", _dump(tree).encode())
    if urdf is not None:
        files["bot/biped7/biped7.urdf"] = urdf
    return files, desc


def _robot_case(rng: random.Random) -> dict:
    files, desc = _robot_files(rng)
    if rng.random() < 0.5:
        argv = ["robot", rng.choice(["{W}/bot/biped7", "bot/biped7", "{W}/bot/biped7/"])]
        if rng.random() < 0.3:
            b = rng.choice(["sagittal", "3d", "fixed", "x", ""])
            argv += ["--base", b]
            desc.append(f"--base {b}")
    else:
        tree = _load_yaml(BASE_PROBLEM)
        tree["robot"] = rng.choice(["bot/biped7", "./bot/biped7", "{W}/bot/biped7"])
        _small_knots(tree, rng)
        files["problem.yaml"] = _dump(tree).encode().replace(b"{W}", b"@W@")
        argv = ["solve", "{W}/problem.yaml", "-o", "{W}/out"] + CHEAP_SETS
        desc.insert(0, f"solve with robot: {tree['robot']}")
    return dict(kind="robot", description="; ".join(map(str, desc)), argv=argv, files=files,
                result_dir=None, result_ops=[], inputs=[k for k in files])


RESULT_FILES = ("trajectory.csv", "result.json", "knots.npz")


def _result_ops(rng: random.Random) -> list:
    ops = []
    for _ in range(rng.choice([0, 1, 1, 1, 1, 1, 2, 2, 3])):
        f = rng.choice(RESULT_FILES)
        r = rng.random()
        if r < 0.15:
            ops.append(("delete", f, None))
        elif r < 0.3:
            ops.append(("truncate", f, rng.random()))
        elif r < 0.38:
            ops.append(("garbage", f, rng.randrange(2 ** 31)))
        elif r < 0.42:
            ops.append(("mkdir", f, None))
        elif r < 0.45:
            ops.append((rng.choice(["fifo", "link_zero", "link_urandom"]), f, None))
        elif r < 0.6:
            ops.append((rng.choice(["json_knots_mismatch", "json_robot_swap", "json_transcription_swap",
                                    "json_cycle_swap", "huge_cells", "time_scaled", "period_huge",
                                    "npz_scaled", "npz_period_huge", "json_success_false", "npz_t_reversed",
                                    "json_extra_phase"]), f, rng.randrange(2 ** 31)))
        elif f == "trajectory.csv":
            ops.append((rng.choice(["nan_cells", "swap_rows", "header_version", "period_zero", "drop_rows",
                                    "drop_column", "dup_rows", "inf_cells", "text_cells", "header_junk",
                                    "only_header", "utf16", "stride_nan"]), f, rng.randrange(2 ** 31)))
        elif f == "result.json":
            ops.append((rng.choice(["json_mutate", "json_mutate", "json_mutate", "json_success_false",
                                    "json_not_object", "json_nan", "json_problem_mutate", "json_deep"]),
                        f, rng.randrange(2 ** 31)))
        else:
            ops.append((rng.choice(["npz_drop_key", "npz_shape", "npz_nan", "npz_object", "npz_empty",
                                    "npz_huge"]), f, rng.randrange(2 ** 31)))
    return ops


def _valid_result_flags(cmd: str, rng: random.Random) -> list[str]:
    """Flags that validate, some at their limits: the command reaches its real work."""
    if cmd == "export":
        fmt = rng.choice(["full", "motors", "npz", "mjcf", "amp"])
        argv = ["--format", fmt, "--rate", rng.choice(["1", "7", "500", "1000", "100000", "0.5"]),
                "--cycles", rng.choice(["1", "2", "1000", "3", "49"])]
        if fmt == "motors" and rng.random() < 0.5:
            argv.append("--degrees")
        if rng.random() < 0.5:
            argv += ["-o", "{W}/out." + ("npz" if fmt == "npz" else "csv")]
        return argv
    if cmd == "animate":
        return ["--fps", rng.choice(["2", "5", "0.5", "1000", "240"]), "--cycles", rng.choice(["1", "1", "2", "50"]),
                "--view", rng.choice(["auto", "sagittal", "3d"]), "-o", "{W}/a.gif"]
    if cmd == "verify":
        return ["--cycles", rng.choice(["1", "1", "2", "50"])] + (["-o", "{W}/v"] if rng.random() < 0.5 else [])
    return ["-o", "{W}/p"] if rng.random() < 0.5 else []


def _result_flags(cmd: str, rng: random.Random) -> tuple[list[str], list[str]]:
    argv, desc = [], []
    if rng.random() < 0.6:
        argv = _valid_result_flags(cmd, rng)
        return argv, [" ".join(argv)]
    if cmd == "export":
        if rng.random() < 0.4:
            v = rng.choice(["1", "50", "0", "-5", "nan", "inf", "1e9", "abc", "", "1e-9", "0x10", "1_000",
                            "100000", "100000", "99999.5"])
            argv += ["--rate", v]
        if rng.random() < 0.3:
            v = rng.choice(["1", "2", "0", "-1", "1.5", "1e3", "100000000", "x", "1000", "1000"])
            argv += ["--cycles", v]
        if rng.random() < 0.5:
            argv += ["--format", rng.choice(["full", "motors", "npz", "json", "", "FULL"])]
        if rng.random() < 0.15:
            argv += ["--degrees"]
        if rng.random() < 0.3:
            argv += ["-o", rng.choice(["{W}/x.csv", "{W}/res/trajectory.csv", "{W}/res/result.json", "{W}/res",
                                       "{W}/nope/x.csv", "/dev/null", "{W}/res/knots.npz", "{W}/x.npz"])]
    elif cmd == "animate":
        argv += ["--fps", rng.choice(["5", "5", "10", "0", "-1", "nan", "1e6", "x", "1000", "0.001"])]
        argv += ["--cycles", rng.choice(["1", "1", "0", "-2", "1e9", "100000", "z", "50"])]
        if rng.random() < 0.3:
            argv += ["--view", rng.choice(["auto", "sagittal", "3d", "top", ""])]
        argv += ["-o", rng.choice(["{W}/a.gif", "{W}/a.gif", "{W}/a.mp4", "{W}/a.txt", "{W}/res/result.json",
                                   "{W}/res", "{W}/nope/a.gif"])]
    elif cmd == "verify":
        argv += ["--cycles", rng.choice(["1", "1", "1", "2", "0", "-1", "nan", "1e9", "1000000", "50"])]
        if rng.random() < 0.3:
            argv += ["-o", rng.choice(["{W}/v", "{W}/res/trajectory.csv", "{W}/res/result.json", "/dev/null"])]
    elif cmd == "plot":
        if rng.random() < 0.4:
            argv += ["-o", rng.choice(["{W}/p", "{W}/res/knots.npz", "{W}/res", "{W}/res/result.json/x"])]
    desc = [" ".join(argv)] if argv else []
    return argv, desc


def _result_case(rng: random.Random) -> dict:
    ops = _result_ops(rng)
    cmd = rng.choice(["export"] * 5 + ["plot"] * 2 + ["animate", "verify", "verify"])
    flags, fdesc = _result_flags(cmd, rng)
    argv = [cmd, "{W}/res"] + flags
    base = rng.choice(["trapezoidal"] * 3 + ["hermite_simpson", "failed"])
    desc = [cmd, f"base {base}"] + [f"{op}({SEMANTIC_FILE.get(op, f)})" for op, f, _ in ops] + fdesc
    return dict(kind="result", description="; ".join(desc), argv=argv, files={}, result_dir="res",
                result_base=base, result_ops=ops, inputs=["res"])


def _study_case(rng: random.Random) -> dict:
    name = rng.choice(STUDIES)
    tree = _load_yaml(REPO / "problems" / "studies" / name)
    prob = _load_yaml(BASE_PROBLEM)
    _small_knots(prob, rng)
    prob["solver"] = {"max_iter": 20}
    files = {"studies": None, "problem.yaml": _dump(prob).encode()}
    tree["problem"] = "../problem.yaml"
    # one or two cases only
    params = tree.get("parameters", {})
    for k in list(params):
        params[k] = params[k][: rng.choice([1, 1, 2])]
    if len(params) > 1 and rng.random() < 0.5:
        params.pop(list(params)[0])
    tree.pop("scale_knots", None)
    desc = [name]
    r = rng.random()
    if r < 0.35:
        desc += _mutate_tree(tree, rng, rng.choice([1, 1, 2]))
        files["studies/study.yaml"] = _dump(tree).encode()
    elif r < 0.6:
        desc += _scale_numbers(tree, rng, rng.choice([1, 1, 2]))
        files["studies/study.yaml"] = _dump(tree).encode()
    elif r < 0.7:
        if rng.random() < 0.25:
            files["studies/study.yaml"] = rng.choice([("fifo",), ("symlink", "/dev/zero"), ("symlink", "/dev/urandom"),
                                                      ("symlink", "{W}/problem.yaml")])
            desc.append(f"study file is {files['studies/study.yaml']}")
        else:
            data, d = _special_yaml(rng)
            files["studies/study.yaml"] = data
            desc.append(d)
    elif r < 0.78:
        data, d = _encode(_dump(tree), rng)
        files["studies/study.yaml"] = data
        desc.append(d)
    elif r < 0.86:
        tree["problem"] = rng.choice(["study.yaml", ".", "", "/dev/zero", "missing.yaml", "../studies",
                                      "../problem.yaml\x00", None, 3])
        files["studies/study.yaml"] = _dump(tree).encode()
        desc.append(f"problem: {tree['problem']!r}")
    elif r < 0.92:
        files["problem.yaml"] = _special_yaml(rng)[0]
        files["studies/study.yaml"] = _dump(tree).encode()
        desc.append("its problem file broken")
    else:
        files["studies/study.yaml"] = _dump(tree).encode()
        desc.append("valid")
    argv = ["sweep", "{W}/studies/study.yaml", "-o", "{W}/out", "-q"]
    j = rng.choice(["1", "1", "1", "2", "0", "-1", "100000", None])
    if j is not None:
        argv += ["-j", j]
        desc.append(f"-j {j}")
    if rng.random() < 0.1:
        o = rng.choice(["{W}/studies/study.yaml", "{W}/studies", "{W}/problem.yaml", "/dev/null"])
        argv[3] = o
        desc.append(f"-o {o}")
    return dict(kind="study", description="; ".join(map(str, desc)), argv=argv, files=files,
                result_dir=None, result_ops=[], inputs=["studies/study.yaml", "problem.yaml"])


FLAG_POOL = ["--rate", "--cycles", "--format", "--fps", "--view", "--degrees", "-o", "--set", "--base", "-j",
             "-q", "--print-level", "--help", "--nope", "-", "--", "-x", "--cycles=", "--rate=1e400"]
VALUE_POOL = ["0", "-1", "1", "2", "nan", "inf", "1e400", "", "x", "ü", "{W}/res", "{W}/problem.yaml",
              "{W}/res/result.json", "{W}/bot/biped7", "{W}/studies/study.yaml", "100000000", "--", "a=b", "/dev/null"]


def _flags_case(rng: random.Random) -> dict:
    cmd = rng.choice(["solve", "export", "plot", "animate", "verify", "robot", "list", "sweep", "",
                      "bogus", "SOLVE", "--version", "-h"])
    files = {}
    tree = _load_yaml(BASE_PROBLEM)
    _small_knots(tree, rng)
    files["problem.yaml"] = _dump(tree).encode()
    files.update({"bot": None, "bot/biped7": None, "bot/biped7/robot.yaml": (REPO / "robots/biped7/robot.yaml").read_bytes(),
                  "bot/biped7/biped7.urdf": (REPO / "robots/biped7/biped7.urdf").read_bytes()})
    study = _load_yaml(REPO / "problems" / "studies" / STUDIES[0])
    study["problem"] = "../problem.yaml"
    study["parameters"] = {"speed": [0.25]}
    study.pop("scale_knots", None)
    files["studies"] = None
    files["studies/study.yaml"] = _dump(study).encode()
    positional = {"solve": "{W}/problem.yaml", "export": "{W}/res", "plot": "{W}/res", "animate": "{W}/res",
                  "verify": "{W}/res", "robot": "{W}/bot/biped7", "sweep": "{W}/studies/study.yaml"}.get(cmd)
    argv = [cmd] if cmd else []
    if positional and rng.random() < 0.85:
        argv.append(rng.choice([positional] * 4 + VALUE_POOL))
    if cmd in ("solve", "sweep") and rng.random() < 0.8:
        argv += ["-o", rng.choice(["{W}/out"] * 3 + ["{W}/problem.yaml", "{W}/res", "{W}/bot/biped7", "{W}/studies",
                                                     "{W}/studies/study.yaml", "/dev/null", "{W}/res/result.json"])]
    for _ in range(rng.randint(0, 3)):
        f = rng.choice(FLAG_POOL)
        argv.append(f)
        if f not in ("--degrees", "-q", "--help", "--", "-") and rng.random() < 0.85:
            argv.append(rng.choice(VALUE_POOL))
    if cmd == "solve":
        argv += CHEAP_SETS
    if cmd == "animate" and "--fps" not in argv:
        argv += ["--fps", "5", "--cycles", "1"]
    if cmd == "verify" and "--cycles" not in argv:
        argv += ["--cycles", "1"]
    if cmd == "sweep":
        argv += ["-q"] + (["-j", "1"] if "-j" not in argv else [])
    return dict(kind="flags", description=" ".join(argv), argv=argv, files=files, result_dir="res",
                result_ops=[], inputs=["problem.yaml", "bot", "studies/study.yaml", "res"])


GENERATORS = {"problem": _problem_case, "robot": _robot_case, "result": _result_case, "study": _study_case,
              "flags": _flags_case}
WEIGHTS = {"problem": 0.3, "robot": 0.15, "result": 0.25, "study": 0.1, "flags": 0.2}


def make_case(seed: int, index: int, kinds=None) -> dict:
    """Case `index` of the sequence of `seed`: depends on (seed, index) only."""
    rng = random.Random(f"gaitopt-fuzz/{seed}/{index}")
    kinds = list(kinds or KINDS)
    kind = rng.choices(kinds, weights=[WEIGHTS[k] for k in kinds])[0]
    case = GENERATORS[kind](rng)
    case.update(seed=seed, index=index)
    return case


def generate(seed: int, n: int, kinds=None) -> list[dict]:
    return [make_case(seed, i, kinds) for i in range(n)]


# ------------------------------------------------------------------ the base result directory

_base_lock = threading.Lock()
_base_dirs: dict = {}
# the base results a result case copies: BASE_SETS plus these
BASES = {"trapezoidal": [], "hermite_simpson": ["transcription=hermite_simpson"],
         "failed": ["solver.max_iter=3"]}


def base_result_dir(name: str = "trapezoidal") -> Path:
    """A tiny result of the biped7 static walk (6 intervals), solved once per process: the
    trapezoidal and Hermite-Simpson optima, and a failed solve (3 iterations)."""
    with _base_lock:
        d = _base_dirs.get(name)
        if d is None or not (d / "result.json").exists():
            d = Path(tempfile.mkdtemp(prefix=f"gaitopt-fuzz-base-{name}-")) / "res"
            argv = [sys.executable, "-m", "gaitopt.cli", "solve", str(BASE_PROBLEM), "-o", str(d)]
            for s in BASE_SETS + BASES[name]:
                argv += ["--set", s]
            p = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=str(d.parent),
                               env=_child_env())
            if not (d / "result.json").exists():
                raise RuntimeError(f"could not make the base result {name} (exit {p.returncode}): "
                                   f"{p.stderr[-2000:]}")
            _base_dirs[name] = d
        return d


SEMANTIC_FILE = {"json_knots_mismatch": "result.json", "json_robot_swap": "result.json",
                 "json_transcription_swap": "result.json", "json_cycle_swap": "result.json",
                 "json_success_false": "result.json", "json_extra_phase": "result.json",
                 "huge_cells": "trajectory.csv", "time_scaled": "trajectory.csv", "period_huge": "trajectory.csv",
                 "npz_scaled": "knots.npz", "npz_period_huge": "knots.npz", "npz_t_reversed": "knots.npz"}


def _apply_op(d: Path, op: str, name: str, arg) -> None:
    try:
        _apply_op1(d, op, SEMANTIC_FILE.get(op, name), arg)
    except (IndexError, ValueError, KeyError, TypeError, OSError, RecursionError):
        pass  # the corruption did not apply to this file's current state: leave it


def _apply_op1(d: Path, op: str, name: str, arg) -> None:
    import numpy as np
    p = d / name
    rng = random.Random(arg if isinstance(arg, int) else 0)
    if op == "delete":
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()
        return
    if op in ("fifo", "link_zero", "link_urandom"):
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif p.exists() or p.is_symlink():
            p.unlink()
        if op == "fifo":
            os.mkfifo(p)
        else:
            os.symlink("/dev/zero" if op == "link_zero" else "/dev/urandom", p)
        return
    if op == "mkdir":
        if p.is_file():
            p.unlink()
        p.mkdir(exist_ok=True)
        return
    if not p.is_file():
        return
    data = p.read_bytes()
    if op == "truncate":
        p.write_bytes(data[: int(len(data) * arg)])
    elif op == "garbage":
        p.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(0, 2000))))
    elif name == "trajectory.csv":
        lines = data.decode("utf-8", "replace").splitlines(keepends=True)
        comments = [ln for ln in lines if ln.startswith("#")]
        body = [ln for ln in lines if not ln.startswith("#")]
        header, rows = body[0], body[1:]
        if op in ("nan_cells", "inf_cells", "text_cells"):
            val = {"nan_cells": "nan", "inf_cells": "-inf", "text_cells": "zz"}[op]
            for _ in range(rng.randint(1, 10)):
                i = rng.randrange(len(rows))
                cells = rows[i].rstrip("\n").split(",")
                cells[rng.randrange(len(cells))] = val
                rows[i] = ",".join(cells) + "\n"
        elif op == "swap_rows" and len(rows) > 2:
            i, j = rng.sample(range(len(rows)), 2)
            rows[i], rows[j] = rows[j], rows[i]
        elif op == "drop_rows":
            rows = rows[: rng.randint(0, 2)]
        elif op == "dup_rows":
            rows = rows + rows
        elif op == "drop_column":
            k = rng.randrange(len(header.split(",")))
            header, rows = [",".join(c for i, c in enumerate(ln.rstrip("\n").split(",")) if i != k) + "\n"
                            for ln in [header] + rows][0], \
                [",".join(c for i, c in enumerate(ln.rstrip("\n").split(",")) if i != k) + "\n" for ln in rows]
        elif op == "header_version":
            comments = [re.sub(r"^# format: .*", "# format: gaitopt-trajectory " + rng.choice(["3", "0", "x", ""]),
                               ln) for ln in comments]
        elif op == "period_zero":
            comments = [re.sub(r"^# period: .*", "# period: " + rng.choice(["0", "-1", "nan", "1e308", "x"]), ln)
                        for ln in comments]
        elif op == "stride_nan":
            comments = [re.sub(r"^# stride: .*", "# stride: " + rng.choice(["nan", "inf", "[]"]), ln)
                        for ln in comments]
        elif op == "header_junk":
            comments = [ln if rng.random() < 0.7 else "# " + ln.split(":")[0][2:] + ": {[\n" for ln in comments]
        elif op == "only_header":
            rows = []
        elif op == "huge_cells":
            for _ in range(rng.randint(1, 5)):
                i = rng.randrange(len(rows))
                cells = rows[i].rstrip("\n").split(",")
                cells[rng.randrange(2, len(cells))] = rng.choice(["1e300", "-1e300", "1e30", "5e-324"])
                rows[i] = ",".join(cells) + "\n"
        elif op == "time_scaled":
            k = rng.choice([1e-9, 1e6, -1.0, 0.0])
            rows = [",".join([repr(float(ln.split(",")[0]) * k)] + ln.split(",")[1:]) for ln in rows]
        elif op == "period_huge":
            v = rng.choice(["1e6", "1e12", "1e-12"])
            comments = [re.sub(r"^# period: .*", "# period: " + v, ln) for ln in comments]
            rows = [",".join([repr(float(ln.split(",")[0]) * float(v))] + ln.split(",")[1:]) for ln in rows]
        if op == "utf16":
            p.write_bytes(data.decode("utf-8", "replace").encode("utf-16"))
        else:
            p.write_text("".join(comments + [header] + rows), encoding="utf-8")
    elif name == "result.json":
        try:
            obj = json.loads(data)
        except ValueError:
            return
        if op == "json_mutate":
            _mutate_tree(obj, rng, rng.randint(1, 3))
        elif op == "json_success_false":
            obj["success"] = False
        elif op == "json_not_object":
            obj = rng.choice([[], None, 3, "x", [obj]])
        elif op == "json_nan":
            for k in ("cost", "period", "stride", "speed"):
                if rng.random() < 0.5:
                    obj[k] = float(rng.choice(["nan", "inf", "-inf"]))
        elif op == "json_problem_mutate" and isinstance(obj.get("problem"), dict):
            _mutate_tree(obj["problem"], rng, rng.randint(1, 3))
        elif op == "json_knots_mismatch":
            ph = obj["problem"]["phases"][rng.randrange(len(obj["problem"]["phases"]))]
            ph["knots"] = ph["knots"] + rng.choice([1, -1, 100])
        elif op == "json_robot_swap":
            r = rng.choice(["solo12", "hoap2", "hexapod", "anymal_c", "biped7x", "../biped7"])
            obj["robot"] = r
            obj["problem"]["robot"] = r
        elif op == "json_transcription_swap":
            obj["problem"]["transcription"] = "hermite_simpson"
        elif op == "json_cycle_swap":
            obj["problem"]["cycle"] = "full"
        elif op == "json_extra_phase":
            obj["problem"]["phases"].append(copy.deepcopy(obj["problem"]["phases"][0]))
        elif op == "json_deep":
            p.write_text('{"success": true, "problem": ' + "[" * 100000 + "]" * 100000 + "}")
            return
        p.write_text(json.dumps(obj, allow_nan=True, default=str))
    elif name == "knots.npz":
        try:
            with np.load(p, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except Exception:  # noqa: BLE001
            return
        keys = sorted(arrays)
        if not keys:
            return
        k = rng.choice(keys)
        if op == "npz_drop_key":
            arrays.pop(k)
        elif op == "npz_shape":
            arrays[k] = np.zeros((rng.randint(0, 3),) * rng.randint(0, 3))
        elif op == "npz_nan":
            a = np.array(arrays[k], dtype=float) if arrays[k].dtype.kind in "fiu" else arrays[k]
            if a.size and a.dtype.kind == "f":
                a.flat[rng.randrange(a.size)] = np.nan
            arrays[k] = a
        elif op == "npz_object":
            arrays[k] = np.array([{"x": 1}, None], dtype=object)
        elif op == "npz_empty":
            arrays = {}
        elif op == "npz_scaled":
            for kk in keys:
                if kk.endswith((".q", ".v", ".tau", ".f")) and rng.random() < 0.3:
                    arrays[kk] = arrays[kk] * rng.choice([1e300, 1e30, -1e6, 0.0])
        elif op == "npz_period_huge":
            f = rng.choice([1e6, 1e12, 1e-12, 0.0, -1.0])
            arrays["period"] = np.array(float(arrays["period"]) * f)
            for kk in keys:
                if kk.endswith(".t"):
                    arrays[kk] = arrays[kk] * f
        elif op == "npz_t_reversed":
            for kk in keys:
                if kk.endswith(".t"):
                    arrays[kk] = arrays[kk][::-1].copy()
        elif op == "npz_huge":
            arrays[k] = np.zeros(0)
            arrays[k] = np.lib.stride_tricks.as_strided(np.zeros(1), shape=(10 ** 6,), strides=(0,))
        with open(p, "wb") as fh:
            np.savez(fh, **arrays)


# ------------------------------------------------------------------ running a case

def _child_env() -> dict:
    env = dict(os.environ)
    env["MPLBACKEND"] = "Agg"
    env["PYTHONFAULTHANDLER"] = "0"
    env.pop("PYTHONWARNINGS", None)
    return env


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    os.setsid()


def _fill(text: str, workdir: Path) -> str:
    return text.replace("{W}", str(workdir))


def build(case: dict, workdir: Path) -> None:
    workdir.mkdir(parents=True, exist_ok=True)
    if case.get("result_dir"):
        shutil.copytree(base_result_dir(case.get("result_base", "trapezoidal")), workdir / case["result_dir"])
        for op, name, arg in case.get("result_ops", []):
            _apply_op(workdir / case["result_dir"], op, name, arg)
    for rel, data in sorted(case["files"].items(), key=lambda kv: kv[0].count("/")):
        p = workdir / rel
        if data is None:
            p.mkdir(parents=True, exist_ok=True)
        elif isinstance(data, tuple) and data[0] == "symlink":
            p.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(_fill(data[1], workdir), p)
        elif isinstance(data, tuple) and data[0] == "fifo":
            p.parent.mkdir(parents=True, exist_ok=True)
            os.mkfifo(p)
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data.replace(b"@W@", str(workdir).encode()))


def _snapshot(workdir: Path, inputs) -> dict:
    snap = {}
    for rel in inputs:
        root = workdir / rel
        if not root.exists() and not root.is_symlink():
            continue
        paths = [root] + (sorted(root.rglob("*")) if root.is_dir() else [])
        for p in paths:
            st = p.lstat()
            key = str(p.relative_to(workdir))
            if p.is_symlink():
                snap[key] = ("link", os.readlink(p), None, st.st_mode)
            elif p.is_file():
                snap[key] = ("file", hashlib.sha256(p.read_bytes()).hexdigest(), st.st_mtime_ns, st.st_mode)
            else:
                snap[key] = ("dir" if p.is_dir() else "other", None, None, st.st_mode)
    return snap


def _modified(before: dict, after: dict) -> list[str]:
    out = []
    for k, v in before.items():
        w = after.get(k)
        if w is None:
            out.append(f"{k} deleted")
        elif v[0] != w[0]:
            out.append(f"{k} changed type")
        elif v[0] in ("file", "link") and v[1] != w[1]:
            out.append(f"{k} content changed")
        elif v[0] == "file" and v[2] != w[2]:
            out.append(f"{k} mtime changed")
        elif v[3] != w[3]:
            out.append(f"{k} mode changed")
    return out


def _lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


def check(code, stdout: str, stderr: str, timed_out: bool, modified: list[str], seconds: float,
          workdir: Path) -> Outcome:
    tail = "\n".join(stderr.splitlines()[-6:])[-1500:]
    whys = []
    if timed_out:
        whys.append(f"timeout after {seconds:.0f} s")
    for name, text in (("stdout", stdout), ("stderr", stderr)):
        if "Traceback (most recent call last)" in text:
            whys.append(f"traceback on {name}")
    if "MemoryError" in stderr and not any(w.startswith("traceback") for w in whys):
        whys.append("MemoryError")
    internal = False
    if not timed_out:
        lines = _lines(stderr)
        if code == 2:
            if len(lines) != 1:
                whys.append(f"exit 2 with {len(lines)} stderr lines")
            if lines and not lines[-1].startswith("gaitopt: "):
                whys.append("exit 2, last stderr line does not start with 'gaitopt: '")
            if any(len(ln) > MAX_LINE for ln in lines):
                whys.append(f"exit 2 with a stderr line of {max(map(len, lines))} characters")
        elif code == 3:
            internal = True
            g = [ln for ln in lines if ln.startswith("gaitopt: ")]
            if len(lines) != 1 or not g:
                whys.append(f"exit 3 with {len(lines)} stderr lines (want one 'gaitopt: ' line)")
            else:
                tokens = [t.strip(".,;:()'\"") for t in g[0].split()]
                if not any(t and ("/" in t or t.endswith(".log")) and (Path(t).is_file() or
                                                                       (workdir / t).is_file()) for t in tokens):
                    whys.append("exit 3 line names no existing log file")
        elif code == 4:  # `verify` could not run the replay (docs/formats.md): one 'gaitopt: ' line
            if len(lines) != 1 or not lines[0].startswith("gaitopt: "):
                whys.append(f"exit 4 with {len(lines)} stderr lines (want one 'gaitopt: ' line)")
        elif code == 130:  # interrupted (docs/formats.md): nothing printed; the fuzzer never interrupts
            internal = True
            if lines:
                whys.append(f"exit 130 with {len(lines)} stderr lines (want none)")
        elif code not in (0, 1):
            whys.append(f"exit code {code}" + (" (killed by a signal)" if code is not None and code < 0 else ""))
    if modified:
        whys.append("modified input: " + ", ".join(modified[:5]))
    return Outcome(ok=not whys, why="; ".join(whys) if whys else "", exit=code, stderr_tail=tail,
                   seconds=seconds, internal=internal)


def _is_output_dir(case: dict, workdir: Path, rel: str) -> bool:
    """A directory given to `solve -o` or `sweep -o` is that command's output (it writes its
    files there, replacing a previous run's): not an input of this run."""
    argv = case["argv"]
    if not argv or argv[0] not in ("solve", "sweep") or not (workdir / rel).is_dir():
        return False
    outs = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("-o", "--output")]
    outs += [a.split("=", 1)[1] for a in argv if a.startswith("--output=")]
    for o in outs:
        try:
            if Path(_fill(o, workdir)).resolve() == (workdir / rel).resolve():
                return True
        except (OSError, ValueError):
            pass
    return False


def run_case(case: dict, workdir, timeout: float = TIMEOUT_S) -> Outcome:
    """Build the case's inputs in `workdir`, run `python -m gaitopt.cli ARGV` there, check the
    contract. A failure to build the inputs is reported as a harness error (ok=False)."""
    workdir = Path(workdir)
    try:
        build(case, workdir)
    except Exception as err:  # noqa: BLE001
        return Outcome(False, f"harness: could not build the case: {type(err).__name__}: {err}", None, "")
    inputs = [rel for rel in case.get("inputs", []) if not _is_output_dir(case, workdir, rel)]
    before = _snapshot(workdir, inputs)
    argv = [sys.executable, "-m", "gaitopt.cli"] + [_fill(a, workdir) for a in case["argv"]]
    t0 = time.monotonic()
    timed_out = False
    try:
        p = subprocess.Popen(argv, cwd=str(workdir), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=_child_env(), preexec_fn=_limit)
    except (OSError, ValueError) as err:  # e.g. a NUL byte in an argument: not the program's fault
        return Outcome(True, f"not runnable: {err}", None, "")
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, 9)  # the child's own session (setsid): it and its workers only
        except ProcessLookupError:
            pass
        out, err = p.communicate()
    seconds = time.monotonic() - t0
    after = _snapshot(workdir, inputs)
    return check(p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), timed_out,
                 _modified(before, after), seconds, workdir)


def reproduce_command(case: dict) -> str:
    """A one-line reproduction: the Python call that rebuilds and runs the case."""
    return (f"python -c \"import sys; sys.path.insert(0, 'tests'); import fuzzing as f; "
            f"print(f.run_case(f.make_case({case['seed']}, {case['index']}), '/tmp/fz{case['index']}'))\"")
