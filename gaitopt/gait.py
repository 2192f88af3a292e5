"""`solve`: problem → robot → transcription → guess → IPOPT → result."""
from __future__ import annotations

import time
from pathlib import Path

import casadi as ca
import numpy as np

from .errors import InputError, short
from .guess import automatic_guess, same_grid, warm_start as warm_guess
from .interrupts import noted_sigint
from .penetration import warn_if_inside
from .precheck import check_problem
from .problem import Problem, load_problem
from .result import Multipliers, Result, build_trajectory, evaluate_violations
from .robot import Robot, robot_of
from .solver import check_ipopt_options, solve_nlp
from .stance_check import warn_if_off_ground
from .transcription import transcribe, user_costs


def solve(problem: Problem | str | Path, *, robot: Robot | None = None, warm_start: Result | None = None,
          x0: np.ndarray | None = None, print_level: int | None = None, constraints=(), costs=None) -> Result:
    """Solve a gait problem and return a Result (never raises for a failed solve).

    problem: a Problem or a path to a problem file; robot: a loaded robot (default: the
    problem's); warm_start: a previous Result to start from; x0: an explicit initial point;
    print_level: IPOPT's print level (default: the problem's solver.print_level);
    constraints: user constraint components (gaitopt.constraints.Constraint instances) added to
    the built-in ones; costs: user cost terms added to the problem's cost, a dict name →
    function(ctx) or (function(ctx), weight), the function returning the term as CasADi SX or a
    gaitopt.point_sum.PointSum (docs/developers.md), reported under its name in cost_terms. Ctrl-C raises KeyboardInterrupt: during IPOPT at its next iteration,
    during the set-up at the end of the stage it lands in (transcription, guess, derivatives).
    """
    # A SIGINT landing in CasADi's argument conversion lost its KeyboardInterrupt, and the solve
    # ran to the end (gaitopt.interrupts): noted, it is raised at the next stage boundary.
    with noted_sigint(raise_now=False) as interrupt:
        return _solve(problem, robot, warm_start, x0, print_level, constraints, costs, interrupt)


def _stop_if(interrupt) -> None:
    if interrupt.hit:
        raise KeyboardInterrupt


def _check_arguments(problem, robot, warm_start, print_level, constraints) -> None:
    """InputError naming the argument of `solve` that has the wrong type (these reached CasADi or
    the transcription and failed there: AttributeError, IPOPT's "type mismatch")."""
    from .constraints import Constraint

    def bad(name, value, allowed):
        raise InputError(f"got {type(value).__name__} {short(value)}", file="gaitopt.solve", field=name,
                         allowed=allowed)

    if not isinstance(problem, (Problem, str, Path)):
        bad("problem", problem, "a Problem (gaitopt.load_problem) or a problem file's path")
    if robot is not None and not isinstance(robot, Robot):
        bad("robot", robot, "a Robot (gaitopt.load_robot(NAME or PATH)) or None for the problem's")
    if warm_start is not None and not hasattr(warm_start, "trajectory"):  # gaitopt.study.warm_start_from_csv's too
        bad("warm_start", warm_start, "a Result (of gaitopt.solve, or gaitopt.export.load_result(OUTDIR)) or None")
    if print_level is not None and (isinstance(print_level, bool) or not isinstance(print_level, (int, np.integer))
                                    or not 0 <= print_level <= 12):
        bad("print_level", print_level, "an integer in [0, 12] or None")
    if isinstance(constraints, Constraint) or not all(isinstance(c, Constraint) for c in _iterable(constraints)):
        bad("constraints", constraints, "a list of gaitopt.constraints.Constraint instances")


def _folder_name(robot: str) -> str:
    """The folder name of a problem's `robot` (a robots/ name, a folder path or its robot.yaml)."""
    path = Path(robot)
    return path.parent.name if path.suffix == ".yaml" else path.name


def _iterable(value) -> tuple:
    try:
        return tuple(value)
    except TypeError:
        return (value,)


def _solve(problem, robot, warm_start, x0, print_level, constraints, costs, interrupt) -> Result:
    _check_arguments(problem, robot, warm_start, print_level, constraints)
    if not isinstance(problem, Problem):
        problem = load_problem(problem)
    if robot is not None and Path(robot.folder).name != _folder_name(problem.robot):
        # quad8's walk solved on solo12 (the same feet names) and recorded as quad8's
        raise InputError(f"the problem is for robot {_folder_name(problem.robot)!r}, got a Robot loaded from "
                         f"{str(robot.folder)!r}", file="gaitopt.solve", field="robot",
                         allowed="the problem's robot (None loads it), or problem.replace(robot=FOLDER) first")
    robot = robot or robot_of(problem)
    check_problem(problem, robot)  # infeasible by construction: say why now, not after max_iter
    t0 = time.perf_counter()
    tr = transcribe(problem, robot, constraints=constraints, costs=costs)
    _stop_if(interrupt)
    t_build = time.perf_counter() - t0
    duals = _duals(tr, warm_start) if x0 is None else None
    near_point = duals is None and (x0 is not None or (warm_start is not None
                                                       and same_grid(problem, warm_start.trajectory)))
    if duals is not None:
        x0 = np.array(warm_start.x, float)
    elif x0 is None:
        x0 = warm_guess(tr, warm_start) if warm_start is not None else automatic_guess(tr)
    elif np.shape(x0) != (tr.lbx.shape[0],):
        raise InputError(f"has shape {np.shape(x0)}, the NLP has {tr.lbx.shape[0]} variables", file="gaitopt.solve",
                         field="x0", allowed=f"an array of shape ({tr.lbx.shape[0]},) (a Result's x on this grid) or None")
    _stop_if(interrupt)
    t_guess = time.perf_counter() - t0 - t_build
    s = problem.solver
    opts = {"max_iter": s.max_iter, "tol": s.tol, "constr_viol_tol": s.constr_viol_tol,
            "acceptable_constr_viol_tol": max(s.constr_viol_tol, 1e-6)}
    if duals is not None:
        # A solution of an NLP of this shape, with its multipliers: IPOPT starts from both,
        # pushed 1e-3 from the bounds. Unpushed (1e-9), near neighbours solved as fast (ten
        # shipped problems at +5 % speed: 117 iterations, 112 pushed) but distant ones crept: a
        # user's gear × speed sweep (steps of 30–50 %) took 2 692 iterations warm against 1 402
        # cold, 837 pushed (docs/studies.md)
        opts.update({"warm_start_init_point": "yes", **{f"warm_start_{k}": 1e-3 for k in (
            "bound_push", "bound_frac", "slack_bound_push", "slack_bound_frac", "mult_bound_push")}})
    elif not near_point:
        # Constraint multipliers start at zero. IPOPT's default takes the least-squares estimate
        # at x0 unless it exceeds 1000; far from the optimum that estimate is noise, and IPOPT's
        # first steps spent refactorising to correct the Hessian it made indefinite (docs/speed.md).
        # A result on another grid, interpolated, is such a start too: it misses this grid's
        # collocation rows, and held 1e-6 from its bounds IPOPT crept (the 18 shipped problems
        # refined 1× → 2×: 653 iterations with the near-point settings below, 467 so; hoap2's
        # static walk 1× → 8×: 175 instead of 32; docs/speed.md).
        opts["constr_mult_init_max"] = 0.0
    else:
        # Start near the given point, a solution of this grid: a small barrier parameter and
        # little push away from the bounds, else IPOPT's first steps leave the warm start
        # (docs/modelling.md, docs/speed.md).
        opts.update({"mu_init": 1e-5, "bound_push": 1e-6, "bound_frac": 1e-6})
    bad = check_ipopt_options(s.options)
    if bad:
        name, reason = bad[0]
        raise InputError(f"{reason} (IPOPT's option documentation lists names, types and ranges)",
                         file=problem.source, field=f"solver.options.{name}")
    opts.update(s.options)
    sol = solve_nlp(tr.assembly, x0, tr.lbx, tr.ubx, tr.lbg, tr.ubg, opts,
                    print_level=s.print_level if print_level is None else print_level,
                    linear_solver=s.linear_solver,
                    x_scale=tr.variable_scale(x0) if s.scale_variables else None,
                    lam_g0=None if duals is None else duals.lam_g, lam_x0=None if duals is None else duals.lam_x,
                    interrupt=interrupt)
    _stop_if(interrupt)  # IPOPT stopped by it
    x = sol.x
    traj, impulses = build_trajectory(tr, x)
    terms = tr.cost_term_values(x)
    stats = dict(sol.stats)
    stats["build_time_s"] = t_build
    stats["guess_time_s"] = t_guess
    # cost_terms holds weighted values: the summary names a user term's weight, as a built-in's
    stats["user_cost_weights"] = {name: w for name, (_, w) in user_costs(costs).items()}
    multipliers = None if sol.lam_x is None else Multipliers(sol.lam_g, sol.lam_x, tr.signature)
    result = Result(sol.success, sol.status, sol.message, sol.f, terms, stats, traj, problem, robot,
                    impulses, x, tr.layout, evaluate_violations(tr, x), multipliers)
    warn_if_inside(result)  # stairs, steps, height maps: a swing passing through an edge is said
    warn_if_off_ground(result)  # and a stance that left the ground its rows describe (drift, smoothed edges)
    return result


def _duals(tr, warm_start):
    """The warm start's Multipliers when it solved an NLP of this transcription's signature (its x
    then a point of this one), else None."""
    m = getattr(warm_start, "multipliers", None)
    if m is None or getattr(warm_start, "x", None) is None or m.signature != tr.signature:
        return None
    return m


def compile_derivatives(problem: Problem | str | Path, *, robot: Robot | None = None,
                        own_blocks: bool = True) -> tuple:
    """Compile the derivatives of the problem's shared robot functions into the code generation
    cache (gaitopt.codegen; what `solver.codegen: true` does at a set-up), without solving:
    later set-ups of any problem on this robot load them (`solver.codegen: auto`, the default).
    own_blocks: the problem's own blocks too (its rows and cost terms, which hold its numbers:
    later set-ups of this problem, or of a variant whose edit left a block alone, load them).
    Returns (names of the blocks now in the cache: the robot functions', then the problem's
    own; seconds spent compiling). InputError without a C compiler or a writable cache, when
    something must be compiled."""
    compiler = compile_problem_derivatives(problem, robot=robot, own_blocks=own_blocks)
    return tuple(compiler.compiled) + tuple(compiler.compiled_own), compiler.compile_s


def compile_problem_derivatives(problem: Problem | str | Path, *, robot: Robot | None = None,
                                own_blocks: bool = True):
    """`compile_derivatives`, returning the gaitopt.codegen.DerivativeCompiler that did it
    (`compiled`: the robot functions' blocks, `compiled_own`: the problem's, `compile_s`).
    A limb-length co-design's own blocks are never compiled: its solve first tries fixed legs
    and starts from the best ratio, which changes the numbers its blocks hold (solo12: 6 blocks,
    18 s, of which its solve used 1)."""
    import dataclasses

    if not isinstance(problem, Problem):
        problem = load_problem(problem)
    problem = problem.replace(solver=dataclasses.replace(problem.solver, codegen=True))
    tr = transcribe(problem, robot if robot is not None else robot_of(problem))
    compiler = tr.assembly.compiler
    compiler.own_blocks = own_blocks and problem.limb_lengths is None
    tr.assembly.functions()
    return compiler
