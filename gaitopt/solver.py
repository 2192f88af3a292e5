"""Solve an NLP with IPOPT; knows nothing about gaits.

Returns IPOPT's solution, or for a solve that failed the best iterate it passed through (see
`IterateKeeper`), with IPOPT's status and timing statistics. A solve that does not converge is
a status, not an exception.
"""
from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass

import casadi as ca
import numpy as np

from .assembly import Assembly
from .interrupts import Interrupt, noted_sigint
from .work_space import kept_on_heap

SUCCESS_STATUSES = ("Solve_Succeeded", "Solved_To_Acceptable_Level")


@dataclass
class NlpSolution:
    x: np.ndarray
    lam_g: np.ndarray
    f: float
    success: bool
    status: str
    message: str
    stats: dict
    # bound multipliers in x's units (n,): None when a failed solve returns an earlier iterate,
    # whose bound multipliers IPOPT does not report
    lam_x: np.ndarray | None = None


def _status_message(status: str) -> str:
    return {
        "Solve_Succeeded": "optimal solution found",
        "Solved_To_Acceptable_Level": "solved to IPOPT's acceptable level",
        "Infeasible_Problem_Detected": "the constraints look infeasible (IPOPT converged to a point of "
                                       "local infeasibility)",
        "Maximum_Iterations_Exceeded": "iteration limit reached",
        "Restoration_Failed": "restoration phase failed: the iterate could not be made more feasible",
        "Maximum_CpuTime_Exceeded": "time limit reached",
        "Error_In_Step_Computation": "error in the step computation (singular KKT system)",
        "Search_Direction_Becomes_Too_Small": "search direction too small",
        "Invalid_Number_Detected": "NaN or Inf in a function evaluation",
    }.get(status, status)


@contextlib.contextmanager
def _quiet_stdout():
    """Silence C-level stdout (IPOPT prints an option's documentation when it rejects a value)."""
    try:
        fd = os.dup(1)
    except OSError:  # no file descriptor 1 (some embedded interpreters): nothing to silence
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            yield
    finally:
        os.dup2(fd, 1)
        os.close(fd)


class IterateKeeper(ca.Callback):
    """IPOPT iteration callback that keeps the best iterate seen, for a solve that fails.

    IPOPT returns its last iterate, which after an iteration limit or a failed restoration can
    be far less feasible than an earlier one. Best: among iterates whose largest bound violation
    (constraints g and variables x, in their own units) is within `tol`, the lowest objective;
    if there is none, the smallest violation. Iterates are those IPOPT reports to its
    intermediate callback (iteration 0 is the starting point), in the solver's variables.
    """

    def __init__(self, nx: int, ng: int, lbx, ubx, lbg, ubg, tol: float):
        ca.Callback.__init__(self)
        self.nx, self.ng, self.tol = nx, ng, tol
        self.bounds = tuple(np.asarray(b, float) for b in (lbx, ubx, lbg, ubg))
        self.iteration = -1
        self.best = None  # (rank key, iteration, x, f, lam_g, violation)
        self.interrupt = Interrupt()  # Ctrl-C during the solve (gaitopt.interrupts): stop IPOPT
        self._at = {name: i for i, name in enumerate(ca.nlpsol_out())}  # argument positions
        self.construct("iterate_keeper", {})

    def get_n_in(self):
        return ca.nlpsol_n_out()

    def get_n_out(self):
        return 1

    def get_name_in(self, i):
        return ca.nlpsol_out(i)

    def get_name_out(self, i):
        return "ret"

    def get_sparsity_in(self, i):
        name = ca.nlpsol_out(i)
        size = {"f": 1, "x": self.nx, "lam_x": self.nx, "g": self.ng, "lam_g": self.ng}.get(name, 0)
        return ca.Sparsity.dense(size, 1) if size else ca.Sparsity(0, 0)

    def violation(self, x, g) -> float:
        lbx, ubx, lbg, ubg = self.bounds
        worst = max(float(np.max(lbx - x, initial=0.0)), float(np.max(x - ubx, initial=0.0)))
        if g.size:
            worst = max(worst, float(np.max(lbg - g)), float(np.max(g - ubg)))
        return max(worst, 0.0)

    def rank(self, f: float, violation: float) -> tuple:
        """Sort key of an iterate, smaller is better: feasible ones by objective, before the
        others by violation."""
        return (0, f) if violation <= self.tol else (1, violation)

    def has_eval_buffer(self):
        return True

    def eval_buffer(self, arg, res):
        """IPOPT's iterate on CasADi's raw buffers (read in place, copied only when kept): DM
        arguments cost 0.27 ms a call on the heel–toe walk, 8 ms of its solve. An input CasADi
        passes no buffer for reads as zeros, as its DM arguments do."""
        # a non-zero output asks IPOPT to stop (User_Requested_Stop)
        np.frombuffer(res[0], dtype=float)[:] = 1.0 if self.interrupt.hit else 0.0
        self.iteration += 1
        x, g, f = (_buffer(arg[self._at[k]], n) for k, n in (("x", self.nx), ("g", self.ng), ("f", 1)))
        f = float(f[0])
        if x.size != self.nx or g.size != self.ng or not np.isfinite(f):
            return 0
        viol = self.violation(x, g)
        key = self.rank(f, viol)
        if self.best is None or key < self.best[0]:
            lam = _buffer(arg[self._at["lam_g"]], self.ng)
            self.best = (key, self.iteration, x.copy(), f, lam.copy(), viol)
        return 0


def _buffer(view, n: int) -> np.ndarray:
    """A CasADi callback input (memoryview of n doubles, or None: zeros) as an array."""
    return np.zeros(n) if view is None else np.frombuffer(view, dtype=float)


def _one_blas_thread() -> None:
    """OMP_NUM_THREADS=1 unless the user set it, before CasADi first loads IPOPT's plugin.

    The KKT systems here are small (10³–10⁴ rows): BLAS/OpenMP threads in MUMPS only spin and
    steal the other core (more CPU for the same wall time alone, and much slower solves when
    tests or studies run side by side: docs/speed.md). The plugin's OpenBLAS reads the variable
    once, when it loads: whichever of the option check and the solve comes first must set it."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def check_ipopt_options(options: dict) -> list:
    """[(name, reason)] for each option IPOPT rejects (unknown name, wrong type or value), found
    by setting it alone on a one-variable NLP, so that a problem file's bad option is reported
    by name instead of as CasADi's 'type mismatch' when the gait NLP is built."""
    _one_blas_thread()  # this loads IPOPT's plugin when a problem sets options
    x = ca.SX.sym("x")
    bad = []
    for name, value in options.items():
        if name == "linear_solver":
            bad.append((name, "set the linear solver with solver.linear_solver (allowed: mumps, spral)"))
            continue
        opts = {"ipopt": {"print_level": 0, "sb": "yes", name: value}, "print_time": False}
        try:
            with _quiet_stdout():
                ca.nlpsol("option_check", "ipopt", {"x": x, "f": x * x}, opts)
        except RuntimeError as err:
            text = str(err)
            if "No such IPOPT option" in text:
                reason = "no such IPOPT option"
            elif "type mismatch" in text:
                reason = f"IPOPT wants another type than {type(value).__name__} ({value!r})"
            else:
                reason = f"IPOPT rejects the value {value!r}"
            bad.append((name, reason))
    return bad


def ipopt_options(linear_solver: str, print_level: int, options: dict) -> dict:
    """gaitopt's IPOPT options (IPOPT's names → values), then `options` over them; what
    `solve_nlp` gives IPOPT (bench/inertia.py rebuilds a solver with them)."""
    ipopt = {
        "linear_solver": linear_solver,
        "print_level": print_level,
        "sb": "yes",
        "mu_strategy": "adaptive",
        # MUMPS pivot threshold 1e-3 instead of IPOPT's 1e-6: with tiny pivots accepted the KKT
        # solves were inaccurate enough that IPOPT's path depended on rounding (the ordering
        # changed the iteration count); at 1e-3 both orderings take one, shorter path.
        "mumps_pivtol": 1e-3 if linear_solver == "mumps" else None,
        # METIS ordering: its factor grows linearly with the knots on the 3-D robots, where AMD's
        # grew faster; on the sagittal bipeds the two are within the timing noise.
        "mumps_pivot_order": 5 if linear_solver == "mumps" else None,
        # MUMPS work space: IPOPT's default reserves 11× the analysis estimate at every
        # factorisation, so the kernel maps and zeroes fresh pages each time. IPOPT doubles it
        # and refactorises if MUMPS ever runs short, so a smaller start is safe.
        # (Measurements of all three: docs/speed.md, "IPOPT settings".)
        "mumps_mem_percent": 100 if linear_solver == "mumps" else None,
        # No iterative refinement unless the residual asks for it (IPOPT's default refines every
        # KKT solve once): with the pivot threshold above MUMPS's solves are accurate enough, and
        # IPOPT still refines a solve whose residual ratio exceeds residual_ratio_max. The 19
        # shipped problems took the same iterations to the same optimum at 1× and 4× (anymal
        # 39 → 40 and 44 → 42), 3–8 % less IPOPT time (docs/speed.md, "Eleventh session").
        "min_refinement_steps": 0 if linear_solver == "mumps" else None,
    }
    ipopt = {k: v for k, v in ipopt.items() if v is not None}
    ipopt.update(options)
    return ipopt


def solve_nlp(nlp, x0, lbx, ubx, lbg, ubg, options, print_level: int = 5,
              linear_solver: str = "mumps", x_scale=None, lam_g0=None, lam_x0=None,
              interrupt=None) -> NlpSolution:
    """Solve min f(x) s.t. lbg ≤ g(x) ≤ ubg, lbx ≤ x ≤ ubx with IPOPT.

    nlp: {"x", "f", "g"} SX expressions, or a gaitopt.assembly.Assembly (its functions with
    their assembled derivatives).

    options: extra IPOPT options (IPOPT's names). x_scale: (n,) nominal magnitudes; IPOPT
    then works on x / x_scale (it scales only f and g itself). The returned x is unscaled.
    lam_g0 (ng,), lam_x0 (n,): starting multipliers in x's units (IPOPT reads them with
    `warm_start_init_point: yes`); the returned lam_x is in x's units too. interrupt: a
    gaitopt.interrupts.Interrupt of the caller's; noted before IPOPT starts, KeyboardInterrupt.
    Stats: iterations, wall and CPU time, time in function/derivative evaluations vs in IPOPT,
    setup time, NLP size.
    """
    _one_blas_thread()
    t0 = time.perf_counter()
    ipopt = ipopt_options(linear_solver, print_level, options)
    opts = {"ipopt": ipopt, "print_time": False, "error_on_fail": False}
    x0, lbx, ubx = (np.asarray(a, float) for a in (x0, lbx, ubx))
    D = np.ones(len(x0)) if x_scale is None else np.asarray(x_scale, float)
    compiled, compiled_own, compile_s = [], [], 0.0
    if isinstance(nlp, Assembly):  # scaled functions with their assembled derivatives
        compiler = nlp.compiler
        nlp, derivatives = nlp.functions(x_scale)
        opts.update(derivatives)
        compiled = sorted(set(compiler.compiled)) if compiler is not None else []
        compiled_own = sorted(set(compiler.compiled_own)) if compiler is not None else []
        compile_s = compiler.compile_s if compiler is not None else 0.0
        x0, lbx, ubx = x0 / D, lbx / D, ubx / D
    elif x_scale is not None:
        xs = ca.SX.sym("x_scaled", len(x0))
        f, g = ca.Function("fg", [nlp["x"]], [nlp["f"], nlp["g"]])(ca.DM(D) * xs)
        nlp = {"x": xs, "f": f, "g": g}
        x0, lbx, ubx = x0 / D, lbx / D, ubx / D
    keeper = IterateKeeper(len(x0), int(nlp["g"].numel()), lbx, ubx, lbg, ubg,
                           float(ipopt.get("constr_viol_tol", 1e-4)))
    opts["iteration_callback"] = keeper
    solver = ca.nlpsol("gait", "ipopt", nlp, opts)
    setup = time.perf_counter() - t0
    if interrupt is not None and interrupt.hit:  # Ctrl-C while the derivatives were built
        raise KeyboardInterrupt
    x0 = np.clip(x0, lbx, ubx)
    t1, c1 = time.perf_counter(), time.process_time()
    # Ctrl-C: IPOPT stops at its next iteration, then KeyboardInterrupt (gaitopt.interrupts)
    starts = {}
    if lam_g0 is not None and lam_x0 is not None:  # IPOPT works on x / D: its bound multipliers are D·λ_x
        starts = {"lam_g0": np.asarray(lam_g0, float), "lam_x0": np.asarray(lam_x0, float) * D}
    with noted_sigint(raise_now=False) as keeper.interrupt, kept_on_heap():  # MUMPS's work space reused
        sol = solver(x0=x0, lbx=lbx, ubx=ubx, lbg=lbg, ubg=ubg, **starts)
    wall, cpu = time.perf_counter() - t1, time.process_time() - c1
    st = solver.stats()
    status = st.get("return_status", "unknown")
    success = bool(st.get("success", False)) and status in SUCCESS_STATUSES
    x, lam_g, f = np.array(sol["x"]).ravel(), np.array(sol["lam_g"]).ravel(), float(sol["f"])
    lam_x = np.array(sol["lam_x"]).ravel() / D
    message = _status_message(status)
    final_violation = keeper.violation(x, np.array(sol["g"]).ravel())
    returned = int(st.get("iter_count", -1))
    if not success and keeper.best is not None:
        key, k, xb, fb, lb, vb = keeper.best
        if key < keeper.rank(f, final_violation):
            x, f, lam_g, returned, lam_x = xb, fb, lb, k, None
            message += (f"; returned iteration {k}, the best iterate (largest bound violation "
                        f"{vb:.2e}; the last one's: {final_violation:.2e})")
    t_eval = sum(v for k, v in st.items() if k.startswith("t_wall_nlp_") and isinstance(v, float))
    stats = {
        "iterations": int(st.get("iter_count", -1)),
        "solve_time_s": wall,
        "solve_cpu_s": cpu,  # CPU time of this process during the solve (bench/: shared machines)
        "setup_time_s": setup,
        "function_eval_time_s": t_eval,
        "solver_time_s": max(wall - t_eval, 0.0),
        "n_variables": int(nlp["x"].numel()),
        "n_constraints": int(nlp["g"].numel()),
        "status": status,
        # the iterate returned (the last one unless a failed solve passed a better one) and the
        # last iterate's largest bound violation
        "returned_iteration": returned,
        "final_iterate_violation": final_violation,
        # every option IPOPT was given: gaitopt's defaults, the problem's and the warm-start ones
        "ipopt_options": {k: v for k, v in ipopt.items() if k not in ("sb",)},
        # blocks whose derivatives ran as compiled code, sorted (`solver.codegen`, gaitopt.codegen):
        # the robot functions', and the problem's own (from `gaitopt compile PROBLEM`)
        "compiled_blocks": compiled,
        "compiled_own_blocks": compiled_own,
        "compile_time_s": compile_s,  # of them, in this set-up (0 when all came from the cache)
    }
    return NlpSolution(x * D, lam_g, f, success, status, message, stats, lam_x)
