"""gaitopt: optimal periodic gaits for legged robots by multi-phase direct collocation.

    import gaitopt as go
    problem = go.load_problem("problems/biped7_heel_toe_walk.yaml")
    result = go.solve(problem.replace(cost="joule_loss"))
    print(result.success, result.cost, result.stats["iterations"])
"""
import gc
import importlib
import os
import signal
import sys


def _exit_130(signum, frame):
    # nothing is written yet, and an exception raised here could be caught inside a C extension's
    # import (numpy turns it into an ImportError): leave at once
    os._exit(130)


# Ctrl-C while the `gaitopt` command imports numpy, CasADi and Pinocchio (its first 0.2 s) exits
# 130 without a traceback, as it does once the command runs (gaitopt.cli.run hands SIGINT back
# to Python's KeyboardInterrupt); a program that imports gaitopt keeps its own handling, and a
# command started with SIGINT ignored (a background job) keeps ignoring it.
_COMMAND = os.path.basename(sys.argv[0]) == "gaitopt" or "gaitopt.cli" in getattr(sys, "orig_argv", ())
if _COMMAND and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _exit_130)
if _COMMAND:
    # The command's imports make objects that live until it exits; the cyclic collector's passes
    # over them while they are being made cost about 10 ms of a 0.58 s `gaitopt solve`
    # (docs/speed.md). gaitopt.cli resumes it once the command's modules are loaded, those
    # objects frozen out of its way (`gc.freeze`).
    gc.disable()
    # NumPy's OpenBLAS starts a thread per core that spins between calls; the command's NumPy
    # work (index arithmetic, small solves) gains nothing from it, and on a busy machine the spin
    # takes a core from the solve (heel–toe walk beside two other jobs: 0.626 → 0.573 s wall;
    # idle: CPU −15 %, wall within 2 %; docs/speed.md). NumPy is not loaded yet here. IPOPT's
    # BLAS is held to one thread likewise (gaitopt.solver). A value the user set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .errors import InputError  # noqa: E402
from .robot import Robot, load_robot, available_robots  # noqa: E402
from .dynamics import SymbolicDynamics  # noqa: E402
from .problem import Problem, load_problem  # noqa: E402
from .version import __version__  # noqa: E402

__all__ = ["InputError", "Robot", "load_robot", "available_robots", "SymbolicDynamics", "Problem",
           "load_problem", "solve", "compile_derivatives", "__version__"]

# `go.verify.replay`, `go.study.case_metrics` as the docs write them: without an import of their
# own they raised AttributeError after `import gaitopt as go` (a notebook user's trial, 2026-11-25)
_SUBMODULES = ("export", "plot", "animate", "quantities", "verify", "study")
_LAZY = ("solve", "compile_derivatives") + _SUBMODULES


def __getattr__(name):
    """`go.solve`, `go.plot`, `go.animate`, `go.export`, `go.quantities`, `go.verify`, `go.study`
    on first use: matplotlib is only imported when plots are drawn, MuJoCo when a gait is
    replayed, and the solve stack (transcription, IPOPT) only when something is solved, so that
    reading a saved result stays light."""
    if name in ("solve", "compile_derivatives"):
        return getattr(importlib.import_module(".gait", __name__), name)
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'gaitopt' has no attribute {name!r}")


def __dir__():
    """The module's names and the ones `__getattr__` loads on first use, so that `dir(go)` and
    Jupyter's completion of `go.` list `go.solve`, `go.plot`, … before their first use."""
    return sorted(set(globals()) | set(_LAZY))
