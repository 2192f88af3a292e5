"""A fixed speed over phases of fixed durations fixes the stride: the transcription makes it the
number speed · period, not a variable held by the speed row. As a variable, the cost per metre
divided by it coupled its Hessian column to every torque, and at 8× knots MUMPS dropped its
compressed 2×2 ordering (docs/speed.md, "Dense columns of the KKT matrix")."""
from __future__ import annotations

import pytest

import gaitopt as go
from gaitopt.guess import automatic_guess
from gaitopt.objective_scale import objective_factor, removed_stride_gradient
from gaitopt.problem import shipped_problems
from gaitopt.robot import robot_of
from gaitopt.settings import Bounded
from gaitopt.transcription import transcribe

TROT = shipped_problems()[0].parent / "solo12_trot.yaml"  # speed 0.3 m/s, phases of fixed durations


def _terms(tr) -> set:
    return {term for term, *_ in tr.rows}


@pytest.mark.fast
def test_a_fixed_speed_over_fixed_durations_makes_the_stride_a_number():
    problem = go.load_problem(TROT)
    period = sum(ph.duration.min for ph in problem.phases) / (0.5 if problem.cycle == "half" else 1.0)
    assert problem.stride is None and problem.fixed_stride == pytest.approx(0.3 * period, rel=1e-15)
    tr = transcribe(problem, robot_of(problem))
    assert "stride" not in tr.globals and "speed" not in _terms(tr)


@pytest.mark.fast
@pytest.mark.parametrize("change", [
    {"speed": Bounded(0.25, 0.35, 0.3)},            # a speed band: the stride is free within it
    {"gait.phases.0.duration": {"min": 0.2, "max": 0.3}},  # a free duration: so is the period
    {"speed": 0.0},                                 # no stride the variable's bounds allow: kept, as before
])
def test_the_stride_stays_a_variable_where_the_problem_does_not_fix_it(change):
    problem = go.load_problem(TROT, {k: v for k, v in change.items() if k != "speed"})
    if "speed" in change:
        problem = problem.replace(speed=change["speed"])
    tr = transcribe(problem, robot_of(problem))
    assert "stride" in tr.globals and "speed" in _terms(tr)


def test_the_result_reads_the_fixed_stride():
    problem = go.load_problem(TROT).scaled_knots(0.5)
    res = go.solve(problem, print_level=0)
    assert res.success, res.message
    traj = res.trajectory
    assert traj.stride == pytest.approx(problem.fixed_stride, rel=1e-15)
    assert traj.stride / traj.period == pytest.approx(0.3, rel=1e-12)


@pytest.mark.fast
@pytest.mark.parametrize("name", ["solo12_trot", "hoap2_static_walk"])
def test_the_removed_stride_gradient_is_the_cost_derivative(name):
    """removed_stride_gradient: |∂f/∂s| at x0 as the stride variable had it, checked by central
    differences of the cost over the stride (the speed changed by ±1e-6: the same NLP layout)."""
    problem = go.load_problem(shipped_problems()[0].parent / f"{name}.yaml").scaled_knots(0.5)
    tr = transcribe(problem, robot_of(problem))
    x0 = automatic_guess(tr)
    v, eps = problem.speed.min, 1e-6

    def cost(speed):
        other = problem.replace(speed=speed)
        return sum(transcribe(other, robot_of(other)).cost_term_values(x0).values()), other.fixed_stride

    (f_hi, s_hi), (f_lo, s_lo) = cost(v * (1 + eps)), cost(v * (1 - eps))
    assert removed_stride_gradient(tr, x0) == pytest.approx(abs(f_hi - f_lo) / (s_hi - s_lo), rel=1e-5)


def test_ipopt_scales_the_objective_as_with_the_stride_variable(capfd):
    """The factor IPOPT printed for this trot before the stride became a number (0.185286 at
    half its knots; its largest gradient entry was the stride's)."""
    problem = go.load_problem(TROT).scaled_knots(0.5)
    go.solve(problem.replace(solver={"max_iter": 0}), print_level=6)
    assert "objective scaling factor = 0.185286" in capfd.readouterr().out


@pytest.mark.fast
def test_the_factor_counts_the_removed_entry_as_ipopt_counted_it():
    gb = {"nlp_scaling_method": "gradient-based"}
    assert objective_factor(gb, 50.0, 400.0) == pytest.approx(0.25)         # 1 → 100/400
    assert objective_factor(gb, 200.0, 400.0) == pytest.approx(0.5)         # 100/200 → 100/400
    assert objective_factor(gb, 800.0, 400.0) == 1.0                        # the NLP's own entry is larger
    assert objective_factor(gb, 50.0, 80.0) == 1.0                          # below the threshold either way
    assert objective_factor({"nlp_scaling_method": "none"}, 50.0, 400.0) == 1.0
