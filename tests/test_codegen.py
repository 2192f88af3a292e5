"""Compiled rigid-body functions (`solver.codegen: true`, gaitopt.codegen).

The compiled inverse dynamics and contact kinematics must give the numbers of Pinocchio and of
the inlined SX expressions, the same first and second derivatives through CasADi's call nodes,
the same NLP sparsity, and the same optimal gait; libraries are cached by content; a missing
compiler is a clear input error.
"""
from __future__ import annotations

import dataclasses
from functools import partial
from pathlib import Path

import casadi as ca
import numpy as np
import pinocchio as pin
import pytest

import gaitopt as go
from gaitopt.codegen import compiled, find_compiler
from gaitopt.dynamics import SymbolicDynamics
from gaitopt.errors import InputError
from gaitopt.gait import robot_of
from gaitopt.robot import load_robot
from gaitopt.transcription import transcribe

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "problems" / "biped7_static_walk.yaml"
RTOL = 1e-9
N_STATES = 5

needs_compiler = pytest.mark.skipif(find_compiler() is None, reason="no C compiler on this machine")


def close(got, ref, what):
    got, ref = np.asarray(got, float).ravel(), np.asarray(ref, float).ravel()
    err = np.abs(got - ref) / np.maximum(1.0, np.abs(ref))
    assert err.max(initial=0.0) <= RTOL, f"{what}: max relative error {err.max():.3g}"


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("codegen_cache")


@pytest.fixture(scope="module")
def pair(cache):
    robot = load_robot("biped7")
    inline = SymbolicDynamics.of_robot(robot)
    comp = SymbolicDynamics.of_robot(robot, compiler=partial(compiled, cache=cache))
    return robot, inline, comp


def states(robot, n=N_STATES, seed=3):
    rng = np.random.default_rng(seed)
    nv, nc = robot.nv, len(robot.contacts)
    for _ in range(n):
        yield (rng.uniform(-1, 1, nv), rng.normal(size=nv), rng.normal(size=nv),
               rng.normal(scale=50.0, size=3 * nc))


@needs_compiler
def test_inverse_dynamics_matches_pinocchio_and_inline(pair):
    robot, inline, comp = pair
    data = robot.model.createData()
    for k, (q, v, a, f) in enumerate(states(robot)):
        zero = np.zeros_like(f)
        close(comp.inverse_dynamics(q, v, a, zero), pin.rnea(robot.model, data, q, v, a), f"rnea state {k}")
        close(comp.inverse_dynamics(q, v, a, f), inline.inverse_dynamics(q, v, a, f), f"with forces state {k}")


@needs_compiler
def test_contact_kinematics_matches_pinocchio_and_inline(pair):
    robot, inline, comp = pair
    model, data = robot.model, robot.model.createData()
    for k, (q, v, a, _) in enumerate(states(robot)):
        got = [np.asarray(x) for x in comp.contact_kinematics(q, v, a)]
        ref = [np.asarray(x) for x in inline.contact_kinematics(q, v, a)]
        for g, r, what in zip(got, ref, ("p", "dp", "ddp")):
            close(g, r, f"contact_kinematics {what} state {k}")
        pin.forwardKinematics(model, data, q, v, a)
        pin.updateFramePlacements(model, data)
        for i, c in enumerate(robot.contacts):
            ref_p = data.oMf[c.frame_id].act(np.asarray(c.point, float))
            close(got[0][:, i], ref_p, f"{c.name} position state {k}")


@needs_compiler
@pytest.mark.parametrize("which", ["inverse_dynamics", "contact_kinematics"])
def test_derivatives_through_the_call(pair, which):
    """Jacobian and Hessian of a weighted sum, through the call node, equal the inlined ones,
    with the same sparsity patterns (the compiled library carries them)."""
    robot, inline, comp = pair
    fi, fc = getattr(inline, which), getattr(comp, which)
    args = [ca.SX.sym(fi.name_in(i), fi.size_in(i)) for i in range(fi.n_in())]
    z = ca.vertcat(*args)
    rng = np.random.default_rng(7)
    out_i, out_c = (ca.vertcat(*[ca.vec(o) for o in (f.call(args))]) for f in (fi, fc))
    w = ca.DM(rng.normal(size=out_i.numel()))
    J_i, J_c = ca.jacobian(out_i, z), ca.jacobian(out_c, z)
    H_i, H_c = ca.hessian(ca.dot(w, out_i), z)[0], ca.hessian(ca.dot(w, out_c), z)[0]
    assert J_c.sparsity() == J_i.sparsity()
    assert H_c.sparsity() == H_i.sparsity()
    evaluate = ca.Function("d", [z], [J_i, J_c, H_i, H_c])
    for k in range(N_STATES):
        Ji, Jc, Hi, Hc = (np.asarray(ca.densify(x)) for x in evaluate(rng.uniform(-1, 1, z.numel())))
        close(Jc, Ji, f"{which} Jacobian point {k}")
        close(Hc, Hi, f"{which} Hessian point {k}")


@needs_compiler
def test_cached_by_content(pair, cache):
    robot, _, comp = pair
    comp.inverse_dynamics, comp.contact_kinematics  # built (compiled on first use)
    libs = sorted(cache.glob("*.so"))
    assert [p.name.split("_flat_")[0] for p in libs] == ["contact_kinematics", "inverse_dynamics"]
    stamps = [p.stat().st_mtime_ns for p in libs]
    again = SymbolicDynamics.of_robot(robot, compiler=partial(compiled, cache=cache))
    again.inverse_dynamics, again.contact_kinematics
    assert sorted(cache.glob("*.so")) == libs
    assert [p.stat().st_mtime_ns for p in libs] == stamps


def quiet(problem, codegen):
    return problem.replace(solver=dataclasses.replace(problem.solver, print_level=0, codegen=codegen))


@needs_compiler
def test_same_nlp_and_same_gait(cache, monkeypatch):
    """The static walk (knots × 0.5) with and without code generation: the same constraint
    Jacobian pattern and the same optimum."""
    monkeypatch.setenv("GAITOPT_CACHE", str(cache))
    base = go.load_problem(STATIC).scaled_knots(0.5)
    robot = robot_of(base)
    nlps = [transcribe(quiet(base, cg), robot).nlp for cg in (False, True)]
    sp = [ca.jacobian(n["g"], n["x"]).sparsity() for n in nlps]
    assert sp[0] == sp[1]
    results = [go.solve(quiet(base, cg), robot=robot) for cg in (False, True)]
    assert all(r.success for r in results), [r.status for r in results]
    assert results[1].cost == pytest.approx(results[0].cost, rel=1e-6)
    assert results[1].max_violation < 1e-6
    assert results[1].problem.solver.codegen


@pytest.mark.fast
def test_no_compiler_is_an_input_error(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    dyn = SymbolicDynamics.of_robot(load_robot("biped7"), compiler=partial(compiled, cache=tmp_path))
    with pytest.raises(InputError) as err:
        dyn.inverse_dynamics
    assert "solver.codegen" in str(err.value) and "compiler" in str(err.value)


@pytest.mark.fast
@needs_compiler
def test_unwritable_cache_is_an_input_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    dyn = SymbolicDynamics.of_robot(load_robot("biped7"), compiler=partial(compiled, cache=blocker / "cache"))
    with pytest.raises(InputError) as err:
        dyn.inverse_dynamics
    assert "solver.codegen" in str(err.value) and "GAITOPT_CACHE" in str(err.value)
