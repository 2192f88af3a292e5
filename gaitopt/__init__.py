"""gaitopt: optimal periodic gaits for legged robots by multi-phase direct collocation.

    import gaitopt as go
    problem = go.load_problem("problems/biped7_heel_toe_walk.yaml")
    result = go.solve(problem.replace(cost="joule_loss"))
    print(result.success, result.cost, result.stats["iterations"])
"""
import importlib

from .errors import InputError
from .robot import Robot, load_robot, available_robots
from .dynamics import SymbolicDynamics
from .problem import Problem, load_problem
from .version import __version__

__all__ = ["InputError", "Robot", "load_robot", "available_robots", "SymbolicDynamics", "Problem",
           "load_problem", "solve", "compile_derivatives", "__version__"]

_SUBMODULES = ("export", "plot", "animate", "quantities")


def __getattr__(name):
    """`go.solve`, `go.plot`, `go.animate`, `go.export`, `go.quantities` on first use: matplotlib
    is only imported when plots are drawn, and the solve stack (transcription, IPOPT) only when
    something is solved, so that reading a saved result stays light."""
    if name in ("solve", "compile_derivatives"):
        return getattr(importlib.import_module(".gait", __name__), name)
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'gaitopt' has no attribute {name!r}")
