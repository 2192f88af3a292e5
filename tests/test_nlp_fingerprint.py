"""The NLP of every shipped problem (and of five schema variants) is the one recorded before the
constraints became components: same variables in the same order with the same bounds, the same
constraint rows per term up to row order, the same cost, and the same optimum."""
from __future__ import annotations

import json

import numpy as np
import pytest

from gaitopt.gait import robot_of, solve
from gaitopt.transcription import transcribe

from nlp_fingerprint import DATA, cases, fingerprint

RECORDED = json.loads(DATA.read_text())
CASES = dict(cases())
# This variant (abs_power with a torque-rate limit) has many local optima that IPOPT reaches by
# rounding: the code that recorded 1.43323 landed on 1.43323, 1.43323 and 1.42929 with bound_push
# 0.0099, 0.01 and 0.0101; during the set-up changes of 2026-11-24 (rows equal to 1e-12, tested
# above) the same starts landed on 1.43323, 1.43458, 1.30465 and 1.32669 at one commit, and with
# the cost summed per group of points (gaitopt.point_sum, third session), a change of rounding
# only, the default start lands on 1.41885. So for it the test checks what an unchanged NLP
# implies instead: started at the recorded optimum's x (stored, from the code that recorded it in
# a fresh process), IPOPT ends where that code ended from there (1.4333245086, both codes to 1e-11);
# and the default start reaches an optimum no worse than the recorded one. Re-recorded on
# 2026-11-25 when IPOPT stopped refining every KKT solve (min_refinement_steps 0, an option, not
# the NLP: the fingerprint above is unchanged): the default start reaches the same 1.5296001 in
# 106 instead of 125 iterations; from the old stored x IPOPT now ends on 1.5331 instead of 1.5468.
# Re-recorded again the same day when the impact rows became a shared robot function (the same
# rows to 1e-12, derivatives differentiated on their own: other rounding): the default start
# then reached 1.5298518 (117 iterations), from which IPOPT ends on 1.5296001.
MULTI_OPTIMUM = {"static_hs_abs_power_torque_rate": DATA.parent / "static_hs_abs_power_torque_rate_optimum.npz"}


@pytest.fixture(scope="module", params=[pytest.param(name, marks=pytest.mark.fast if name == "biped7_static_walk" else ())
                                        for name in sorted(CASES)])
def case(request):
    problem = CASES[request.param]
    return request.param, problem, transcribe(problem, robot_of(problem))


def test_variables_and_rows_match_the_recording(case):
    name, _, tr = case
    want, got = RECORDED[name], fingerprint(tr)
    for key in ("n_variables", "n_constraints", "variables_hash", "lbx_hash", "ubx_hash", "jac_nnz", "n_symbols"):
        assert got[key] == want[key], (name, key)
    assert sorted(got["terms"]) == sorted(want["terms"]), name
    for term, w in want["terms"].items():
        g = got["terms"][term]
        assert (g["rows"], g["jac_nnz"]) == (w["rows"], w["jac_nnz"]), (name, term)
        for key in ("lbg_sum", "ubg_sum"):
            assert g[key] == pytest.approx(w[key], rel=1e-12, abs=1e-9), (name, term, key)
        for key in ("g_sum", "g_sumsq"):
            assert np.allclose(g[key], w[key], rtol=1e-9, atol=1e-9), (name, term, key)
    assert np.allclose(got["cost"], want["cost"], rtol=1e-9), name


def test_optimum_matches_the_recording(case):
    name, problem, _ = case
    want = RECORDED[name]["optimum"]
    if not want["success"]:
        pytest.skip(f"{name} did not converge when recorded: its NLP is compared, not its optimum")
    res = solve(problem, print_level=0)
    assert res.success, res.message
    if name not in MULTI_OPTIMUM:
        assert res.cost == pytest.approx(want["cost"], rel=1e-6), name
        return
    assert res.cost <= want["cost"] * (1 + 1e-6), name
    stored = np.load(MULTI_OPTIMUM[name])
    warm = solve(problem, print_level=0, x0=stored["x"])
    assert warm.success, warm.message
    assert warm.cost == pytest.approx(float(stored["warm_cost"]), rel=1e-6), name
