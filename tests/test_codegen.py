"""Compiled derivatives of the shared robot functions (`solver.codegen: true`, gaitopt.codegen).

The compiled Jacobian and Hessian of a shared block must be the virtual machine's, with the
same sparsity, bit for bit (the same operations in the same order); libraries are cached by
content across transcriptions; small blocks stay uncompiled; a solve with code generation
reaches the same optimum; a missing compiler or an unwritable cache is a clear input error.
"""
from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pytest

import gaitopt as go
from gaitopt.codegen import DerivativeCompiler, find_compiler, library_block, library_file, library_key
from gaitopt.errors import InputError
from gaitopt.gait import robot_of
from gaitopt.transcription import transcribe

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "problems" / "biped7_static_walk.yaml"

needs_compiler = pytest.mark.skipif(find_compiler() is None, reason="no C compiler on this machine")


def quiet(problem, codegen):
    return problem.replace(solver=dataclasses.replace(problem.solver, print_level=0, codegen=codegen))


@pytest.fixture(scope="module")
def static():
    return go.load_problem(STATIC).scaled_knots(0.5)


@pytest.fixture(scope="module")
def shared_block(static):
    """The static walk's shared inverse-dynamics block (gaitopt.tracing)."""
    tr = transcribe(quiet(static, False), robot_of(static))
    blocks = [mr for mr in tr.assembly.maps if mr.shared and "inverse_dynamics" in mr.fn.name()]
    assert blocks, [mr.fn.name() for mr in tr.assembly.maps]
    return blocks[0]


def evaluate(J, H, mr, seed=5, points=4):
    rng = np.random.default_rng(seed)
    nz, nk, m = mr.fn.size1_in(0), mr.fn.size1_in(1), mr.fn.size1_out(0)
    out = []
    for _ in range(points):
        z, k, lam = rng.uniform(-1, 1, nz), rng.uniform(-1, 1, nk), rng.normal(size=m)
        out.append((np.asarray(J(z, k).nonzeros()), np.asarray(H(z, k, lam).nonzeros())))
    return out


@needs_compiler
def test_compiled_derivatives_are_the_virtual_machines(shared_block, tmp_path):
    J0, H0 = shared_block.derivatives()
    compiler = DerivativeCompiler(tmp_path, min_instructions=0)
    J1, H1 = shared_block.derivatives(compiler)
    assert compiler.compiled == [shared_block.fn.name()] and compiler.compile_s > 0
    assert "External" in J1.class_name() and "External" in H1.class_name()
    assert J1.sparsity_out(0) == J0.sparsity_out(0) and H1.sparsity_out(0) == H0.sparsity_out(0)
    for (j0, h0), (j1, h1) in zip(evaluate(J0, H0, shared_block), evaluate(J1, H1, shared_block)):
        assert np.array_equal(j0, j1) and np.array_equal(h0, h1)
        assert np.abs(h0).max() > 0  # not a vacuous comparison


@needs_compiler
def test_cached_by_content(static, tmp_path):
    """A second transcription of the same robot loads the library instead of compiling it."""
    libs, compilers = [], []
    for _ in range(2):
        tr = transcribe(quiet(static, True), robot_of(static))
        tr.assembly.compiler = DerivativeCompiler(tmp_path, min_instructions=0)
        tr.assembly.functions()
        compilers.append(tr.assembly.compiler)
        libs.append({p.name: p.stat().st_mtime_ns for p in tmp_path.glob("*.so")})
    assert libs[0] and libs[1] == libs[0]
    assert compilers[0].compile_s > 0 and compilers[1].compile_s == 0.0
    assert sorted(compilers[1].compiled) == sorted(compilers[0].compiled)


@needs_compiler
def test_small_blocks_stay_uncompiled(shared_block, tmp_path):
    compiler = DerivativeCompiler(tmp_path, min_instructions=10 ** 9)
    J, H = shared_block.derivatives(compiler)
    assert "External" not in J.class_name() and compiler.compiled == []
    assert not list(tmp_path.glob("*.so"))


@needs_compiler
def test_same_nlp_and_same_gait(static, tmp_path, monkeypatch):
    """The static walk (knots × 0.5) with and without code generation: the same derivative
    sparsity, iterations and optimum."""
    monkeypatch.setenv("GAITOPT_CACHE", str(tmp_path))
    robot = robot_of(static)
    sparsity = []
    for cg in (False, True):
        _, opts = transcribe(quiet(static, cg), robot).assembly.functions()
        sparsity.append((opts["jac_g"].sparsity_out(1), opts["hess_lag"].sparsity_out(0)))
    assert sparsity[0] == sparsity[1]
    results = [go.solve(quiet(static, cg), robot=robot) for cg in (False, True)]
    assert all(r.success for r in results), [r.status for r in results]
    assert results[0].stats["compiled_blocks"] == []
    assert any("inverse_dynamics" in b for b in results[1].stats["compiled_blocks"])
    [line] = [ln for ln in results[1].summary().splitlines() if ln.startswith("compiled derivatives: ")]
    assert "call_rigid_inverse_dynamics" in line
    assert "compiled derivatives" not in results[0].summary()
    assert results[1].stats["iterations"] == results[0].stats["iterations"]
    assert results[1].cost == pytest.approx(results[0].cost, rel=1e-12)
    assert results[1].max_violation < 1e-6
    assert results[1].problem.solver.codegen


@pytest.mark.fast
def test_no_compiler_is_an_input_error(shared_block, tmp_path, monkeypatch):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    with pytest.raises(InputError) as err:
        shared_block.derivatives(DerivativeCompiler(tmp_path, min_instructions=0))
    assert "solver.codegen" in str(err.value) and "compiler" in str(err.value)
    assert "no-such-compiler" in str(err.value)


@needs_compiler
def test_a_filled_cache_needs_no_compiler(shared_block, tmp_path, monkeypatch):
    shared_block.derivatives(DerivativeCompiler(tmp_path, min_instructions=0))
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    again = DerivativeCompiler(tmp_path, min_instructions=0)
    J, H = shared_block.derivatives(again)
    assert "External" in H.class_name() and again.compile_s == 0.0


@pytest.mark.fast
@pytest.mark.parametrize("cc, says", [("true", "wrote no library"), ("false", "(exit 1): no message")])
def test_a_failing_compiler_is_an_input_error(shared_block, tmp_path, monkeypatch, cc, says):
    """A compiler that fails silently, or exits 0 having written nothing: one clear message."""
    if shutil.which(cc) is None:
        pytest.skip(f"no {cc} command")
    monkeypatch.setenv("CC", cc)
    with pytest.raises(InputError) as err:
        shared_block.derivatives(DerivativeCompiler(tmp_path, min_instructions=0))
    assert "solver.codegen" in str(err.value) and says in str(err.value), str(err.value)


@pytest.mark.fast
@needs_compiler
def test_unwritable_cache_is_an_input_error(shared_block, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(InputError) as err:
        shared_block.derivatives(DerivativeCompiler(blocker / "cache", min_instructions=0))
    assert "solver.codegen" in str(err.value) and "GAITOPT_CACHE" in str(err.value)


@needs_compiler
@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_damaged_library_is_compiled_again(shared_block, tmp_path, damage):
    """A library that is not the file its digest names is compiled again, never loaded (a
    truncated one would crash the process with a bus error when mapped)."""
    reports = []
    compiler = DerivativeCompiler(tmp_path, min_instructions=0, report=reports.append)
    shared_block.derivatives(compiler)
    assert len(reports) == 1 and shared_block.fn.name() in reports[0]
    (lib,) = tmp_path.glob("*.so")
    data = lib.read_bytes()
    lib.write_bytes(b"not a shared library" if damage == "garbage" else data[:4096])
    again = DerivativeCompiler(tmp_path, min_instructions=0)
    J, H = shared_block.derivatives(again)
    assert again.compile_s > 0 and "External" in H.class_name()
    (j0, h0), = evaluate(*shared_block.derivatives(), shared_block, points=1)
    (j1, h1), = evaluate(J, H, shared_block, points=1)
    assert np.array_equal(j0, j1) and np.array_equal(h0, h1)


@pytest.mark.fast
def test_one_library_for_every_gear_ratio(static):
    """The shared inverse-dynamics block leaves the rotor inertia (which the gear ratio scales)
    out of the call, so a gear sweep's cases share one compiled library."""
    robot = robot_of(static)
    j = robot.actuated[0]
    geared = robot.with_actuators({j: robot.actuators[j].with_gear(3 * robot.actuators[j].gear_ratio)})
    assert not np.array_equal(geared.model.armature, robot.model.armature)
    keys = []
    for r in (robot, geared):
        tr = transcribe(quiet(static, False), r)
        keys.append({library_key(mr.fn) for mr in tr.assembly.maps if mr.shared and "inverse_dynamics" in mr.fn.name()})
    assert len(keys[0]) == 1 and keys[0] == keys[1]


def test_nothing_large_enough_is_said(tmp_path, monkeypatch):
    """With every shared block under the threshold (here raised above RABBIT's largest), codegen
    compiles nothing, needs no compiler, and the summary says so instead of staying silent."""
    monkeypatch.setenv("GAITOPT_CACHE", str(tmp_path))
    monkeypatch.setenv("CC", "no-such-compiler")
    monkeypatch.setattr("gaitopt.codegen.MIN_INSTRUCTIONS", 10 ** 9)
    p = quiet(go.load_problem(ROOT / "problems" / "rabbit_walk.yaml"), True)
    r = go.solve(p, robot=robot_of(p))
    assert r.success and r.stats["compiled_blocks"] == []
    assert "compiled derivatives: none" in r.summary()
    assert not list(tmp_path.glob("*.so"))
    off = go.solve(quiet(p, False), robot=robot_of(p))
    assert "compiled derivatives" not in off.summary()


@pytest.mark.fast
@pytest.mark.parametrize("value, want", [(None, "auto"), ("auto", "auto"), (True, True), (False, False)])
def test_codegen_setting(value, want):
    """solver.codegen: auto by default; true, false or auto; anything else one clear error."""
    from gaitopt.problem import problem_from_dict
    import yaml

    data = yaml.safe_load(STATIC.read_text())
    if value is not None:
        data.setdefault("solver", {})["codegen"] = value
    assert problem_from_dict(data, STATIC).solver.codegen == want


@pytest.mark.fast
def test_codegen_setting_refuses_other_values():
    with pytest.raises(InputError) as err:
        go.load_problem(STATIC, ["solver.codegen=sometimes"])
    assert "solver.codegen" in str(err.value) and "auto" in str(err.value) and "sometimes" in str(err.value)


@needs_compiler
def test_auto_loads_what_the_cache_holds_and_compiles_nothing(static, tmp_path, monkeypatch):
    """The default (`solver.codegen: auto`): with an empty cache the derivatives stay symbolic,
    nothing is compiled or written and no compiler is looked for; once `compile_derivatives`
    filled the cache, the same solve loads the library and reaches the same iterate bit for bit."""
    monkeypatch.setenv("GAITOPT_CACHE", str(tmp_path / "cache"))
    problem = static.replace(solver=dataclasses.replace(static.solver, print_level=0))
    assert problem.solver.codegen == "auto"
    robot = robot_of(problem)
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    symbolic = go.solve(problem, robot=robot)
    assert symbolic.success and symbolic.stats["compiled_blocks"] == []
    assert not (tmp_path / "cache").exists()
    assert "compiled derivatives" not in symbolic.summary()
    monkeypatch.delenv("CC")
    blocks, seconds = go.compile_derivatives(problem, robot=robot)
    assert "call_rigid_inverse_dynamics" in blocks and seconds > 0
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))  # loading needs no compiler
    loaded = go.solve(problem, robot=robot)
    assert "call_rigid_inverse_dynamics" in loaded.stats["compiled_blocks"]
    assert "(from the cache)" in loaded.summary()
    assert loaded.stats["iterations"] == symbolic.stats["iterations"]
    assert np.array_equal(loaded.x, symbolic.x)


@needs_compiler
@pytest.mark.skipif(not hasattr(__import__("os"), "geteuid"), reason="no file owners on this platform")
def test_a_cache_others_can_write_is_never_loaded(shared_block, tmp_path):
    """Compiled libraries are native code that every default solve loads: from a cache directory
    other users can write, none is loaded (the derivatives stay symbolic), and compiling into it
    is an input error naming GAITOPT_CACHE."""
    import os
    import stat

    cache = tmp_path / "cache"
    shared_block.derivatives(DerivativeCompiler(cache, min_instructions=0))
    loaded = DerivativeCompiler(cache, min_instructions=0, compile_missing=False)
    J, H = shared_block.derivatives(loaded)
    assert "External" in H.class_name() and loaded.compiled  # the trusted case loads it
    os.chmod(cache, os.stat(cache).st_mode | stat.S_IWOTH)
    auto = DerivativeCompiler(cache, min_instructions=0, compile_missing=False)
    J, H = shared_block.derivatives(auto)
    assert "External" not in H.class_name() and auto.compiled == []
    with pytest.raises(InputError) as err:
        shared_block.derivatives(DerivativeCompiler(cache, min_instructions=0))
    assert "GAITOPT_CACHE" in str(err.value) and "other users" in str(err.value)


def test_auto_says_why_a_damaged_library_is_not_used(shared_block, tmp_path):
    """`auto` with a damaged library falls back to the symbolic derivatives (as fast to get
    right, slower to run) and says so in one line naming the file and the remedy; a missing
    library is the normal case and says nothing."""
    said = []
    shared_block.derivatives(DerivativeCompiler(tmp_path, min_instructions=0, compile_missing=False,
                                                report=said.append))
    assert said == []  # nothing cached yet: silent
    shared_block.derivatives(DerivativeCompiler(tmp_path, min_instructions=0))
    (lib,) = tmp_path.glob("*.so")
    lib.write_bytes(lib.read_bytes()[:4096])
    auto = DerivativeCompiler(tmp_path, min_instructions=0, compile_missing=False, report=said.append)
    J, H = shared_block.derivatives(auto)
    assert "External" not in H.class_name() and auto.compiled == []
    [line] = said
    assert str(lib) in line and "does not match its digest" in line and "gaitopt compile" in line


@needs_compiler
def test_a_compiled_problem_serves_its_own_blocks_until_an_edit_changes_them(static, tmp_path, monkeypatch):
    """`gaitopt compile PROBLEM` (compile_derivatives) also compiles the problem's own blocks:
    a later default set-up of the same problem loads them and reaches the same iterate bit for
    bit. An edit of one number (the friction coefficient) changes the blocks that hold it: those
    are built symbolically again (never a stale library), the others still load, and the
    solve equals the uncompiled one of the edited problem."""
    monkeypatch.setenv("GAITOPT_CACHE", str(tmp_path / "cache"))
    problem = quiet(static, "auto")
    robot = robot_of(problem)
    symbolic = go.solve(quiet(problem, False), robot=robot)
    go.compile_derivatives(problem, robot=robot)
    loaded = go.solve(problem, robot=robot)
    own = loaded.stats["compiled_own_blocks"]
    assert own and all(not b.startswith("call_") for b in own), own
    assert "of the problem's own blocks (from the cache)" in loaded.summary()
    assert np.array_equal(loaded.x, symbolic.x)

    edited = problem.replace(constraints={"friction": {"mu": problem.constraints.friction * 0.9}})
    edited_symbolic = go.solve(quiet(edited, False), robot=robot)
    edited_loaded = go.solve(edited, robot=robot)
    still = edited_loaded.stats["compiled_own_blocks"]
    assert still and set(still) < set(own)  # the friction rows' blocks are not loaded
    assert np.array_equal(edited_loaded.x, edited_symbolic.x)


@needs_compiler
def test_an_uncompiled_problem_computes_no_keys_for_its_own_blocks(static, tmp_path, monkeypatch):
    """With a cache that holds only the robot functions' libraries, a default set-up asks for
    no key of a block whose name the cache lacks (one listing instead of a serialization and
    a hash each), and `solver.codegen: true` compiles the robot functions only."""
    import gaitopt.codegen as codegen

    monkeypatch.setenv("GAITOPT_CACHE", str(tmp_path / "cache"))
    robot = robot_of(static)
    tr = transcribe(quiet(static, True), robot)
    tr.assembly.functions()
    assert tr.assembly.compiler.compiled and tr.assembly.compiler.compiled_own == []
    shared = {mr.fn.name() for mr in tr.assembly.maps if mr.shared}
    keyed = []
    real = codegen.library_key
    monkeypatch.setattr(codegen, "library_key", lambda fn: keyed.append(fn.name()) or real(fn))
    tr = transcribe(quiet(static, "auto"), robot)
    tr.assembly.functions()
    assert keyed and set(keyed) <= shared, set(keyed) - shared


@needs_compiler
def test_bench_compiled_equal_runs(tmp_path):
    """bench/compiled_equal.py (docs/speed.md's check of all shipped problems) on one: exit 0,
    the problem's own blocks served compiled, bit for bit the uncompiled solve's x."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, GAITOPT_CACHE=str(tmp_path / "cache"))
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "compiled_equal.py"), str(ROOT / "problems" / "rabbit_walk.yaml")],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "bit-equal" in run.stdout and " 0 own blocks" not in run.stdout, run.stdout


def test_a_limb_length_codesign_compiles_none_of_its_own_blocks(tmp_path, monkeypatch):
    """A limb-length co-design's solve starts from the best of several fixed-leg ratios, which
    changes the numbers its blocks hold: `gaitopt compile` leaves its own blocks alone (they
    took 18 s, and its solve used 1 of 6) and says why."""
    from gaitopt.gait import compile_problem_derivatives

    monkeypatch.setenv("GAITOPT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))  # nothing may need compiling
    problem = go.load_problem(ROOT / "problems" / "codesign" / "solo12_slope_limbs.yaml").scaled_knots(0.5)
    assert problem.limb_lengths is not None
    compiler = compile_problem_derivatives(problem)
    assert compiler.compiled_own == [] and compiler.own_blocks is False


@needs_compiler
@pytest.mark.skipif(not hasattr(__import__("os"), "geteuid"), reason="no file owners on this platform")
def test_a_cache_others_can_write_is_said_once_with_a_remedy_that_works(static, tmp_path):
    """A cache directory other users can write is the directory's fault, not each library's:
    `auto` says so in one line for the whole set-up (not one per block: a quadruped's walk has
    ~40), and does not advise `gaitopt compile`, which refuses that directory."""
    import os
    import stat

    cache = tmp_path / "cache"
    tr = transcribe(quiet(static, False), robot_of(static))
    blocks = [mr for mr in tr.assembly.maps if mr.shared][:2]
    assert len(blocks) == 2, [mr.fn.name() for mr in tr.assembly.maps]
    for mr in blocks:
        mr.derivatives(DerivativeCompiler(cache, min_instructions=0))
    os.chmod(cache, os.stat(cache).st_mode | stat.S_IWOTH)
    said = []
    auto = DerivativeCompiler(cache, min_instructions=0, compile_missing=False, report=said.append)
    for mr in blocks:
        J, H = mr.derivatives(auto)
        assert "External" not in H.class_name()
    assert auto.compiled == []
    [line] = said
    assert str(cache) in line and "GAITOPT_CACHE" in line and "gaitopt compile" not in line


@needs_compiler
@pytest.mark.skipif(not hasattr(__import__("os"), "geteuid"), reason="no file owners on this platform")
def test_a_cache_made_under_umask_000_is_loaded(shared_block, tmp_path):
    """Under umask 000 new directories and files are writable by every user, which `_trusted`
    refuses: gaitopt makes its cache (and missing parents) and its libraries without that
    permission, so that a cache it made itself compiles and loads (it raised 'does not load')."""
    import os
    import stat

    cache = tmp_path / "new" / "cache"
    old = os.umask(0)
    try:
        shared_block.derivatives(DerivativeCompiler(cache, min_instructions=0))
    finally:
        os.umask(old)
    for path in [cache.parent, cache, *cache.glob("*.so*")]:
        assert not os.stat(path).st_mode & stat.S_IWOTH, path
    auto = DerivativeCompiler(cache, min_instructions=0, compile_missing=False)
    J, H = shared_block.derivatives(auto)
    assert "External" in H.class_name() and auto.compiled


def test_a_cache_under_a_tilde_is_in_the_home_directory(tmp_path, monkeypatch):
    """GAITOPT_CACHE="~/..." (quoted in a shell, or from a .env file: not expanded) names the
    home directory's folder, not a folder "~" in the working directory."""
    from gaitopt.codegen import cache_dir

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GAITOPT_CACHE", "~/gaitopt-cache")
    assert cache_dir() == tmp_path / "gaitopt-cache"


@needs_compiler
def test_compiling_a_problems_own_blocks_is_one_progress_line(static, tmp_path):
    """`gaitopt compile`'s progress: one line per robot function (seconds each), one line for all
    the problem's own blocks (a tenth of a second each; a go2 walk printed 29 lines for them)."""
    said = []
    tr = transcribe(quiet(static, False), robot_of(static))
    tr.assembly.compiler = DerivativeCompiler(tmp_path, own_blocks=True, report=said.append)
    tr.assembly.functions()
    assert len(tr.assembly.compiler.compiled_own) > 1
    own = [line for line in said if "robot function" not in line]
    assert len(own) == 1 and "this problem's own blocks" in own[0], said
    assert [line for line in said if "robot function" in line]


def test_block_list_puts_the_inverse_dynamics_first_and_counts_the_rest():
    """The summary's and `gaitopt compile`'s list of robot-function blocks stays one readable
    phrase however many blocks a robot has (a go2 walk: 11)."""
    from gaitopt.codegen import block_list

    names = ["call_shared_contact_velocity_0_None", "call_impact_rows", "call_rigid_inverse_dynamics",
             "call_shared_foot_in_base_FL", "call_impact_rows"]
    assert block_list(names) == "call_rigid_inverse_dynamics, call_impact_rows, call_shared_contact_velocity_0_None and 1 more"
    assert block_list(names[:2]) == "call_impact_rows, call_shared_contact_velocity_0_None"


def test_library_file_names_read_back():
    """The compiler names a block's library and reads the cache's listing back with one rule
    (a block name may hold underscores; the checksum beside each library is not a library)."""
    for block in ("call_impact_rows", "call_shared_contact_velocity_0_None", "x"):
        name = library_file(block, "27ea4b0b5a88da097627")
        assert name.endswith(".so") and library_block(name) == block
    assert library_block("call_impact_rows_27ea4b0b5a88da097627.so.sha256") is None
    assert library_block("notes.txt") is None and library_block(".so") is None
