"""IPOPT's plugin (and the OpenBLAS it carries) loads on CasADi's first `nlpsol(..., "ipopt")`:
whichever call does that must have set one BLAS thread first, or MUMPS runs its fronts on
spinning threads for the rest of the process (twice the CPU for the same wall time)."""
import casadi as ca

from gaitopt import solver


def _threads_seen_by_nlpsol(monkeypatch, call) -> list:
    seen = []
    real = ca.nlpsol

    def recording(*args, **kwargs):
        seen.append(solver.os.environ.get("OMP_NUM_THREADS"))
        return real(*args, **kwargs)

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(solver.ca, "nlpsol", recording)
    call()
    return seen


def test_option_check_sets_one_thread_before_loading_ipopt(monkeypatch):
    # a problem with solver.options is checked before it is solved: the check loads the plugin
    seen = _threads_seen_by_nlpsol(monkeypatch, lambda: solver.check_ipopt_options({"tol": 1e-6}))
    assert seen == ["1"]


def test_user_setting_is_kept(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    solver._one_blas_thread()
    assert solver.os.environ["OMP_NUM_THREADS"] == "2"
