"""Study files: the YAML schema of a study (described in gaitopt.study) read into a frozen
`Study`, whose grid gaitopt.study turns into cases and runs."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError, short
from .yamlio import Fields, finite_number, load_yaml


STUDY_KEYS = ("description", "problem", "overrides", "scale_knots", "groups", "motors", "gear_efficiency",
              "warm_start", "parameters")
ACTUATOR_PARAMETERS = ("gear_ratio", "motor")
MAX_CASES = 10_000          # cases of a study (the product of the parameters' value counts)
MAX_PARAMETERS = 20         # parameters varied
MAX_VALUES = 1000           # values of one parameter
MAX_SCALE_KNOTS = 100.0     # scale_knots (the knots of each case stay within problem.MAX_*_KNOTS)


@dataclass(frozen=True)
class Study:
    """A grid of gait problems.

    problem: path of the base problem file; overrides: problem key path → value for every case;
    parameters: ordered (key, values) pairs whose product is the grid; groups: name → joints
    (for gear_ratio.<group> / motor.<group>); motors: catalogue path or None (robots/motors.yaml);
    gear_efficiency: η used with a swapped motor (None keeps the joint's); scale_knots: knots
    factor or None; warm_start: start each case from its nearest solved neighbour (True), from the
    automatic guess (False), or "both": True, then a return pass (gaitopt.study_return).
    """

    problem: str
    parameters: tuple
    overrides: dict = field(default_factory=dict)
    groups: dict = field(default_factory=dict)
    motors: str | None = None
    gear_efficiency: float | None = None
    scale_knots: float | None = None
    warm_start: bool | str = True
    description: str = ""
    source: str = "<study>"

    def grid(self) -> list:
        """Cases in grid order: list of (index tuple, {parameter: value})."""
        keys = [k for k, _ in self.parameters]
        ranges = [range(len(v)) for _, v in self.parameters]
        return [(idx, {k: self.parameters[i][1][j] for i, (k, j) in enumerate(zip(keys, idx))})
                for idx in itertools.product(*ranges)]


def study_from_dict(data: dict, source: str = "<study>", base_dir: Path | None = None) -> Study:
    """Build and check a Study from plain data (as read from YAML); paths relative to base_dir."""
    if isinstance(data, dict) and "problem" not in data and "robot" in data:
        # a problem file given to `gaitopt sweep`: say which commands take it
        raise InputError("this is a problem file (robot:), not a study: solve it with gaitopt solve; a study names "
                         "its problem file with problem: and the values to vary with parameters:",
                         file=source, field="problem")
    f = Fields(data, source)
    base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
    problem_name = f.string("problem")
    if not problem_name or "\0" in problem_name or len(problem_name) > 1000:
        raise f.error("problem", f"expected the path of a problem file, got {short(problem_name)}",
                      "a path relative to the study file")
    problem = str((base_dir / problem_name).resolve())
    ov = f.mapping("overrides", {})
    overrides = {str(k): ov.raw(k) for k in ov.data}
    groups_f = f.mapping("groups", {})
    groups = {}
    for g in groups_f.data:
        joints = groups_f.sequence(g, max_len=MAX_VALUES)
        if not joints or not all(isinstance(j, str) for j in joints):
            raise groups_f.error(str(g), "expected a non-empty list of joint names")
        groups[str(g)] = tuple(joints)
    motors = f.string("motors", None)
    if motors is not None and ("\0" in motors or len(motors) > 1000):
        raise f.error("motors", f"expected the path of a motor catalogue, got {short(motors)}",
                      "a path relative to the study file")
    if motors is not None:
        motors = str((base_dir / motors).resolve())
    pf = f.mapping("parameters")
    params = []
    if len(pf.data) > MAX_PARAMETERS:
        raise f.error("parameters", f"too many parameters: {len(pf.data)}", f"at most {MAX_PARAMETERS}")
    cases = 1
    for key in pf.data:
        values = pf.sequence(key, max_len=MAX_VALUES)
        if not values:
            raise pf.error(str(key), "expected a non-empty list of values")
        if str(key).partition(".")[0] == "gear_ratio":
            bad = [v for v in values if finite_number(v) is None or not v > 0]
            if bad:
                raise pf.error(str(key), f"a gear ratio must be a positive number (finite), got {short(bad[0])}",
                               "positive finite numbers")
        if str(key).partition(".")[0] == "motor" and not all(isinstance(v, str) for v in values):
            bad = next(v for v in values if not isinstance(v, str))
            raise pf.error(str(key), f"a motor is named by its catalogue entry, got {short(bad)}",
                           "motor names of the catalogue")
        cases *= len(values)
        if cases > MAX_CASES:
            raise f.error("parameters", f"too many cases: the grid of {short([str(k) for k in pf.data])} "
                                        f"has more than {MAX_CASES}", f"at most {MAX_CASES} cases")
        params.append((str(key), tuple(values)))
    if not params:
        raise f.error("parameters", "at least one parameter to vary is needed")
    study = Study(problem=problem, parameters=tuple(params), overrides=overrides, groups=groups, motors=motors,
                  gear_efficiency=f.number("gear_efficiency", None, positive=True, high=1.0),
                  scale_knots=f.number("scale_knots", None, positive=True, high=MAX_SCALE_KNOTS),
                  warm_start=_warm_start(f), description=f.string("description", ""),
                  source=source)
    f.done(STUDY_KEYS)
    return study


def _warm_start(f: Fields) -> bool | str:
    """`warm_start`: true, false or both (true, then the return pass, gaitopt.study_return)."""
    value = f.raw("warm_start", True)
    if value is not True and value is not False and value != "both":
        raise f.error("warm_start", f"expected true, false or both, got {short(value)}", "true, false, both")
    return value


def load_study(path: str | Path) -> Study:
    """Read a study file (YAML, safe loader); raise InputError naming the file and key."""
    path = Path(path)
    return study_from_dict(load_yaml(path), str(path), path.parent)
