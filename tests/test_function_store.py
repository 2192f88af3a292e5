"""Robot functions kept on disk by content (gaitopt.function_store).

A stored Function must be the built one (equal serialization, equal values bit for bit), keyed
by everything it is built from (another mass or another contact point is another file), never
read when damaged or from a directory other users can write, written only where compiled
derivatives are (`gaitopt compile`, `solver.codegen: true`), and a solve that loads them must
reach the same iterate bit for bit.
"""
from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

import gaitopt as go
from gaitopt.codegen import find_compiler
from gaitopt.dynamics import SymbolicDynamics
from gaitopt.function_store import FunctionStore, model_key, robot_function_store
from gaitopt.gait import robot_of
from gaitopt.transcription import transcribe

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "problems" / "biped7_static_walk.yaml"
needs_compiler = pytest.mark.skipif(find_compiler() is None, reason="no C compiler (gaitopt compile)")
STORED = ("rigid_inverse_dynamics", "contact_kinematics", "mass_matrix", "centroidal_momentum")


@pytest.fixture(scope="module")
def robot():
    return robot_of(go.load_problem(STATIC))


def dynamics(robot, store=None):
    sd = SymbolicDynamics.of_robot(robot)
    sd.store = store
    return sd


def store_at(path, robot, write=True):
    sd = SymbolicDynamics.of_robot(robot)
    return FunctionStore(path, model_key(sd.model, sd.contacts), write)


def refuse_to_build(monkeypatch):
    """Make every build of a stored property fail: what is then returned was loaded."""
    monkeypatch.setattr(SymbolicDynamics, "rnea_expr", lambda *a, **k: pytest.fail("built, not loaded"))
    monkeypatch.setattr(SymbolicDynamics, "kinematics", lambda *a, **k: pytest.fail("built, not loaded"))


@pytest.mark.fast
def test_loaded_functions_are_the_built_ones(robot, tmp_path, monkeypatch):
    built = dynamics(robot)
    built_fns = {name: getattr(built, name) for name in STORED}
    dynamics(robot, store_at(tmp_path, robot))  # nothing stored until asked
    assert list(tmp_path.iterdir()) == []
    writer = dynamics(robot, store_at(tmp_path, robot))
    for name in STORED:
        getattr(writer, name)
    assert len(list(tmp_path.glob("*.casadi"))) == len(STORED) == len(list(tmp_path.glob("*.sha256")))
    refuse_to_build(monkeypatch)
    loaded = dynamics(robot, store_at(tmp_path, robot, write=False))
    rng = np.random.default_rng(3)
    for name in STORED:
        fb, fl = built_fns[name], getattr(loaded, name)
        assert fl.serialize() == fb.serialize(), name
        args = [rng.uniform(-1, 1, fb.size_in(i)) for i in range(fb.n_in())]
        for a, b in zip(fb.call(args), fl.call(args)):
            assert np.array_equal(np.asarray(a), np.asarray(b)), name


@pytest.mark.fast
def test_a_loaded_inverse_dynamics_is_pinocchios(robot, tmp_path, monkeypatch):
    """The stored inverse dynamics, loaded, against Pinocchio's rnea (no contact forces)."""
    writer = dynamics(robot, store_at(tmp_path, robot))
    writer.rnea
    refuse_to_build(monkeypatch)
    rnea = dynamics(robot, store_at(tmp_path, robot, write=False)).rnea
    model, data = robot.model, robot.model.createData()
    rng = np.random.default_rng(7)
    for _ in range(3):
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        assert np.allclose(np.asarray(rnea(q, v, a)).ravel(), pin.rnea(model, data, q, v, a), atol=1e-9)


@pytest.mark.fast
def test_the_key_is_everything_the_functions_are_built_from(robot):
    sd = SymbolicDynamics.of_robot(robot)
    key = model_key(sd.model, sd.contacts)
    assert key == model_key(sd.model.copy(), [(f, p.copy()) for f, p in sd.contacts])  # content, not identity
    heavier = sd.model.copy()
    j = heavier.njoints - 1  # a link with mass (the base's prismatic joints carry none)
    inertia = heavier.inertias[j]
    assert inertia.mass > 0
    heavier.inertias[j] = pin.Inertia(inertia.mass * 1.01, inertia.lever, inertia.inertia)
    assert model_key(heavier, sd.contacts) != key
    moved = [(f, p + [0.0, 0.0, 1e-3]) if i == 0 else (f, p) for i, (f, p) in enumerate(sd.contacts)]
    assert model_key(sd.model, moved) != key
    geared = sd.model.copy()
    geared.armature = np.asarray(geared.armature) + 1e-4
    assert model_key(geared, sd.contacts) != key


@pytest.mark.fast
@pytest.mark.parametrize("damage", ["truncated", "digest"])
def test_a_damaged_file_is_built_again(robot, tmp_path, damage):
    dynamics(robot, store_at(tmp_path, robot)).rigid_inverse_dynamics
    (path,) = tmp_path.glob("rigid_inverse_dynamics_*.casadi")
    if damage == "truncated":
        path.write_text(path.read_text()[:200])
    else:
        path.with_name(path.name + ".sha256").write_text("0" * 64)
    rebuilt = dynamics(robot, store_at(tmp_path, robot)).rigid_inverse_dynamics
    assert rebuilt.serialize() == dynamics(robot).rigid_inverse_dynamics.serialize()
    again = dynamics(robot, store_at(tmp_path, robot, write=False))
    assert again.store._load(path) is not None  # the writer replaced the damaged file


@pytest.mark.fast
@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="no file owners on this platform")
def test_a_directory_others_can_write_is_never_read(robot, tmp_path, monkeypatch):
    dynamics(robot, store_at(tmp_path, robot)).rigid_inverse_dynamics
    (path,) = tmp_path.glob("rigid_inverse_dynamics_*.casadi")
    assert FunctionStore._load(path) is not None
    os.chmod(tmp_path, os.stat(tmp_path).st_mode | stat.S_IWOTH)
    assert FunctionStore._load(path) is None
    os.chmod(tmp_path, os.stat(tmp_path).st_mode & ~stat.S_IWOTH)


@needs_compiler
def test_setting_decides_reading_and_writing(robot, tmp_path, monkeypatch):
    """auto reads and never writes, true (`gaitopt compile`) writes, false uses no store; a
    subclass with extra inputs (limb-length co-design) never does."""
    monkeypatch.setenv("GAITOPT_CACHE", str(tmp_path / "cache"))
    problem = go.load_problem(STATIC).scaled_knots(0.5)

    def transcribed(codegen):
        return transcribe(problem.replace(solver=dataclasses.replace(problem.solver, codegen=codegen)), robot)

    assert transcribed(False).dynamics.store is None
    auto = transcribed("auto").dynamics.store
    assert auto is not None and not auto.write and not (tmp_path / "cache").exists()
    assert robot_function_store(SymbolicDynamics.of_robot(robot)).key == auto.key
    go.compile_derivatives(problem, robot=robot)
    assert {p.name.rsplit("_", 1)[0] for p in (tmp_path / "cache" / "functions").glob("*.casadi")} >= {
        "rigid_inverse_dynamics", "contact_kinematics"}

    class Scaled(SymbolicDynamics):
        pass

    sub = Scaled.of_robot(robot)
    sub.store = store_at(tmp_path / "sub", robot)
    sub.rigid_inverse_dynamics
    assert not (tmp_path / "sub").exists()


@needs_compiler
def test_a_solve_from_the_store_is_the_same(tmp_path, monkeypatch):
    """The static walk solved with its robot functions built and loaded: the same iterate bit for
    bit, and the loaded set-up builds none of them."""
    monkeypatch.setenv("GAITOPT_CACHE", str(tmp_path / "cache"))
    problem = go.load_problem(STATIC).scaled_knots(0.5)
    problem = problem.replace(solver=dataclasses.replace(problem.solver, print_level=0))
    built = go.solve(problem)
    go.compile_derivatives(problem)
    built_again = []
    original = SymbolicDynamics.rnea_expr

    def counted(self, *a, **k):
        built_again.append(1)
        return original(self, *a, **k)

    monkeypatch.setattr(SymbolicDynamics, "rnea_expr", counted)
    loaded = go.solve(problem)
    assert built_again == []  # neither the inverse dynamics nor the impact rows were built
    assert loaded.stats["iterations"] == built.stats["iterations"]
    assert np.array_equal(loaded.x, built.x)
