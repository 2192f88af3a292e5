"""IPOPT's objective scaling, kept as it was while a fixed speed left the stride a variable.

IPOPT scales the objective by min(1, 100 / ‖∇f(x0)‖∞) in its (here: gaitopt's scaled)
variables (`nlp_scaling_method: gradient-based`, `nlp_scaling_max_gradient` 100). While a fixed
speed over fixed durations left the stride s a variable held by the speed row, its entry of
∇f, ∂f/∂s = −f_d(x0) · ∂ln d/∂s (f_d the cost terms per metre, d the distance they divide by:
d = s or s/2, ∂ln d/∂s = 1/s; sideways d = √(s² + (v_y T)²), ∂ln d/∂s = s/d²), was the largest on
every such shipped problem (ANYmal's trot: 7 087, a factor 0.0141). The stride is a number now
(`Problem.fixed_stride`): that entry is gone, and with it the factor, which shaped IPOPT's path:
unscaled, the ANYmal trot landed on another local optimum (177.86 J/m instead of 129.90).
`solve_nlp` therefore counts the entry the stride would have had (`removed_stride_gradient`)
in the maximum, as IPOPT did: the same factor, the same path (129.90, 39 iterations both ways).
"""
from __future__ import annotations

import numpy as np

# cost terms divided by the distance travelled (gaitopt.terms: J/m, or per metre)
PER_DISTANCE = ("joule_loss", "specific_resistance", "electrical_energy", "fri_stability", "impact_loss")


def removed_stride_gradient(tr, x0) -> float:
    """|∂f/∂s| at x0 [cost per metre of stride] that the stride would have as a variable, in
    IPOPT's variables (the stride's scale was 1); 0 where the stride is a variable or the
    problem gives it (it never was one there). User cost terms are not counted."""
    problem = tr.problem
    if "stride" in tr.globals or problem.stride is not None or problem.fixed_stride is None:
        return 0.0
    s = problem.fixed_stride
    if problem.sideways:
        period = sum(ph.duration.min for ph in problem.phases) / (0.5 if problem.cycle == "half" else 1.0)
        dlog = s / (s ** 2 + (problem.sideways * period) ** 2)
    else:
        dlog = 1.0 / s
    values = tr.cost_term_values(np.asarray(x0, float))
    return abs(sum(values.get(name, 0.0) for name in PER_DISTANCE) * dlog)


def objective_factor(ipopt: dict, gradient_max: float, removed: float) -> float:
    """obj_scaling_factor that makes IPOPT's gradient-based objective factor what it was with a
    removed variable's gradient entry `removed` beside the NLP's own largest, `gradient_max`
    (both in IPOPT's variables); 1 when IPOPT does not scale by gradients."""
    if removed <= 0.0 or ipopt.get("nlp_scaling_method", "gradient-based") != "gradient-based":
        return 1.0
    limit = float(ipopt.get("nlp_scaling_max_gradient", 100.0))

    def factor(g):
        return limit / g if g > limit else 1.0

    return factor(max(gradient_max, removed)) / factor(gradient_max)


def objective_option(ipopt: dict, grad_f, xs0, removed: float) -> dict:
    """{"obj_scaling_factor": …} to add to IPOPT's options `ipopt` for a removed gradient entry
    (`removed_stride_gradient`), grad_f the NLP's gradient Function (gaitopt.nlp_functions) and
    xs0 IPOPT's start in its variables; {} when nothing was removed or the options set the factor."""
    if removed <= 0.0 or "obj_scaling_factor" in ipopt:
        return {}
    grad = np.asarray(grad_f(xs0, [])[1], float)
    return {"obj_scaling_factor": objective_factor(ipopt, float(np.abs(grad).max(initial=0.0)), removed)}
