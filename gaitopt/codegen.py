"""Compiled derivatives of the robot functions, cached on disk by content: compiled by
`solver.codegen: true`, used from the cache by default (`auto`), never with `false`.

Every solve evaluates the Jacobian and the Lagrangian Hessian of the robot functions shared by
the collocation points (gaitopt.tracing: the inverse dynamics above all; its Hessian is 20–30×
the function's size: anymal 86 000 instructions per point) once per IPOPT iteration, in
CasADi's virtual machine, and builds them symbolically at every set-up. With code generation
each such block's derivative pair (J, H) of gaitopt.assembly.MappedRows is generated as C,
compiled once with the system C compiler and kept in a cache directory under a hash of the
block's Function, the CasADi version and the compiler flags; later solves load it instead of
building it (any problem of that robot: the shared functions do not depend on the gait).
The compiled functions compute the same operations in the same order as CasADi's virtual
machine (no fused multiply-add at these flags), and have the same sparsity.

Only blocks whose derivatives have at least `MIN_INSTRUCTIONS` instructions are compiled:
smaller ones take longer to compile than they ever save.

`gaitopt compile PROBLEM` also compiles the problem's own blocks (the rows of each class of
points, the inline rows, the cost's terms) whose derivatives have at least
`MIN_OWN_INSTRUCTIONS` instructions. They hold the problem's numbers (friction, durations,
clearances), so a library serves set-ups of blocks with those very numbers: a re-solve of the
unchanged file, or a variant whose edit left the block alone. Set-ups look for them only under
names the cache holds (one listing), so an uncompiled problem computes no keys for them.

Cache: $GAITOPT_CACHE, else $XDG_CACHE_HOME/gaitopt, else ~/.cache/gaitopt. Compiler: $CC,
else gcc, else cc. A library is written under a temporary name and renamed into place, with a
SHA-256 digest beside it that is
checked before loading: neither a half-written file of a concurrent solve nor a damaged one is
loaded (a truncated library crashes the process that maps it); either is compiled again. A
library is loaded only from a directory and files of the user's own that other users cannot
write (a cache is native code run by every solve). A compiler is needed only for what the cache
lacks. Measurements: docs/speed.md, "Code generation".
"""
from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

import casadi as ca

from .errors import InputError

# -Og: gcc's register allocation on straight-line code of 10⁵ statements is most of the
# compile; -Og runs as fast as -O1 here at a quarter of its compile time (anymal's inverse
# dynamics: 6 s instead of 25 s, 11× faster than the virtual machine; -O0: 3 s, 3× faster)
FLAGS = ("-Og", "-ffp-contract=off", "-fPIC")  # no fused multiply-add: the VM's rounding
MIN_INSTRUCTIONS = 3_000
# a problem's own block: built in 0.3 ms at ~30 instructions, 0.8 ms at ~300, while a library
# loads in about 0.2 ms and its key takes 0.15 ms (biped7 heel-toe walk, docs/speed.md)
MIN_OWN_INSTRUCTIONS = 100
VERSION = "2"  # of the library layout: part of every cache key


def cache_dir() -> Path:
    """Where compiled libraries are kept (created on first use)."""
    env = os.environ.get("GAITOPT_CACHE")
    if env:
        # "~/..." as a quoted shell value or a .env file leaves it unexpanded: not a folder "~" here
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gaitopt"


def find_compiler() -> str | None:
    """The C compiler to use ($CC, gcc or cc on PATH), or None."""
    import shutil  # here: a solve that loads from the cache never looks for a compiler

    cc = os.environ.get("CC")
    if cc:
        return shutil.which(cc)
    return shutil.which("gcc") or shutil.which("cc")


def require_compiler(file=None) -> str:
    """The C compiler (`find_compiler`), or InputError (field solver.codegen; file: the problem
    or study file to name) when there is none."""
    cc = find_compiler()
    if cc is None:
        given = os.environ.get("CC")
        raise InputError("code generation needs a C compiler ("
                         + (f"$CC={given} is not one on PATH" if given else "$CC or gcc on PATH; none found") + ")",
                         file=file, field="solver.codegen", allowed=["true", "false", "auto"])
    return cc


def library_key(fn: ca.Function) -> str:
    """Content hash naming the library of fn's derivatives: the Function, the CasADi version,
    the flags and the platform (a cache in a home directory shared by machines of two
    architectures holds one library for each)."""
    import platform

    h = hashlib.sha256()
    for part in (fn.serialize(), ca.__version__, " ".join(FLAGS), VERSION, sys.platform, platform.machine()):
        h.update(part.encode())
    return h.hexdigest()[:20]


def library_file(block: str, key: str) -> str:
    """The cache's file name of a block's derivatives: `<block>_<key>.so` (key: `library_key`)."""
    return f"{block}_{key}.so"


def library_block(file_name: str) -> str | None:
    """The block name of a cache file named by `library_file`, None for any other file."""
    if not file_name.endswith(".so") or "_" not in file_name:
        return None
    return file_name[:-len(".so")].rsplit("_", 1)[0]


class DerivativeCompiler:
    """Compiles and caches the derivatives of mapped blocks (gaitopt.assembly.MappedRows).

    cache: directory (default `cache_dir()`); min_instructions: blocks whose J and H together
    have fewer stay in CasADi's virtual machine; report: None or a callable given one line
    before each compile (a compile takes seconds). A compile that is needed and cannot be made
    (no C compiler, an unwritable cache, the compiler failing) raises InputError (field
    solver.codegen); libraries already in the cache need no compiler. With compile_missing
    False (`solver.codegen: auto`) a block the cache lacks keeps its symbolic derivatives and
    nothing is compiled. own_blocks (`gaitopt compile`): the problem's own blocks are compiled
    too, and every block down to min_own_instructions. `compiled` lists the names of the robot
    functions' blocks served compiled, `compiled_own` the problem's own, and `compile_s` the
    seconds spent compiling, in this object's life."""

    def __init__(self, cache: Path | None = None, min_instructions: int | None = None, report=None,
                 compile_missing: bool = True, own_blocks: bool = False,
                 min_own_instructions: int | None = None):
        self.cache = Path(cache) if cache is not None else cache_dir()
        self.compile_missing = bool(compile_missing)
        self.own_blocks = bool(own_blocks)
        self.min_instructions = int(MIN_INSTRUCTIONS if min_instructions is None else min_instructions)
        self.min_own_instructions = int(MIN_OWN_INSTRUCTIONS if min_own_instructions is None else min_own_instructions)
        self.report = report
        self.compiled: list = []
        self.compiled_own: list = []
        self.compile_s = 0.0
        self._names = None  # block names with a library in the cache (listed once)
        self._cache_ok = None  # whether the cache directory may be loaded from (checked once)
        self._distrust_said = False  # the line saying the cache is not used was given
        self._own_said = False  # the progress line for the problem's own blocks was given

    def _listed(self, name: str) -> bool:
        """Whether the cache holds a library of a block of this name (any key)."""
        if self._names is None:
            try:
                files = os.listdir(self.cache)
            except OSError:  # no cache yet: nothing to load
                files = []
            self._names = {library_block(f) for f in files} - {None}
        return name in self._names

    def derivatives(self, fn: ca.Function, build, shared: bool = True) -> tuple:
        """(J, H) of the block Function fn: loaded from the cache, else build() (the SX pair,
        gaitopt.assembly.MappedRows.derivatives' form) compiled there when large enough, else
        build()'s pair itself. shared: a robot function's block (compiled when compile_missing);
        else one of the problem's own (compiled only with own_blocks: `gaitopt compile`)."""
        compiling = self.compile_missing and (shared or self.own_blocks)
        if not compiling and not self._listed(fn.name()):
            return build()
        if not self._cache_trusted():
            # the directory, not a library, is at fault: said once, not for each of its blocks
            # (a problem has up to ~40), with the remedy that works (a compile into it fails)
            J, H = build()
            if compiling and J.n_instructions() + H.n_instructions() >= self._threshold(shared):
                raise InputError(f"set GAITOPT_CACHE to a directory of your own: {self.cache} is not yours or other "
                                 "users can write it (its libraries are never loaded)", field="solver.codegen")
            if not compiling and self.report is not None and not self._distrust_said:
                self.report(f"the compiled derivatives in {self.cache} are not used: it is not yours or other users "
                            "can write it; set GAITOPT_CACHE to a directory of your own (or, if it is yours, "
                            f"chmod o-w {self.cache}); this set-up builds them symbolically")
                self._distrust_said = True
            return J, H
        threshold = self._threshold(shared)
        key = library_key(fn)
        lib = self.cache / library_file(fn.name(), key)
        names = (f"gaitopt_jac_{key}", f"gaitopt_hess_{key}")
        loaded, why = _load(lib, names)
        if why is not None and self.report is not None:  # present but refused: say why it is slower
            then = "compiling it again" if compiling else "`gaitopt compile PROBLEM` compiles it again"
            self.report(f"the compiled derivatives of {fn.name()} in {lib} are not used ({why}); {then}")
        if loaded is None:
            J, H = build()
            if not compiling or J.n_instructions() + H.n_instructions() < threshold:
                return J, H
            self._compile(lib, fn.name(), [_renamed(J, names[0]), _renamed(H, names[1])], shared)
            loaded, why = _load(lib, names)
            if loaded is None:
                raise InputError(f"the library compiled for {fn.name()} ({lib}) does not load ({why})",
                                 field="solver.codegen")
        (self.compiled if shared else self.compiled_own).append(fn.name())
        return loaded

    def _threshold(self, shared: bool) -> int:
        """Instructions (J and H together) from which a block is compiled."""
        # the problem's own blocks, and under `gaitopt compile` (own_blocks) the robot functions
        # too, down to the smaller threshold: a library loads faster than the derivatives build
        small = not shared or self.own_blocks
        return min(self.min_own_instructions, self.min_instructions) if small else self.min_instructions

    def _cache_trusted(self) -> bool:
        """Whether the cache directory is one of the user's own that other users cannot write
        (`_trusted`; checked once per object; a cache not made yet is: `make_cache_dir` makes it so)."""
        if self._cache_ok is None:
            try:
                self._cache_ok = not self.cache.is_dir() or _trusted(self.cache)
            except OSError:  # vanished or unreadable: nothing will load from it, a compile says why
                self._cache_ok = True
        return self._cache_ok

    def _compile(self, lib: Path, block: str, fns: list, shared: bool = True) -> None:
        import tempfile

        cc = require_compiler()
        t0 = time.perf_counter()
        try:
            make_cache_dir(self.cache)
            workdir = tempfile.TemporaryDirectory(dir=self.cache)
        except OSError as err:
            raise InputError(f"cannot write the code generation cache {self.cache} ({err.strerror or err}); "
                             "set GAITOPT_CACHE to a writable directory", field="solver.codegen") from None
        if self.report is not None and shared:
            self.report(f"compiling the derivatives of {block} into {self.cache} (a robot function, once; seconds to "
                        "a minute)")
        elif self.report is not None and not self._own_said:
            # one line for all of them: a tenth of a second each, ~20-40 of them (a go2 walk: 29
            # lines that said nothing the closing count does not)
            self.report(f"compiling the derivatives of this problem's own blocks into {self.cache} (about 0.1 s "
                        "each; the closing line counts them)")
            self._own_said = True
        with workdir as tmp:
            # one translation unit per function, compiled side by side (the Hessian's is the
            # larger: anymal 6.8 s as one unit, 4.9 s as two on two cores), then linked
            objects = []
            for f in fns:
                src = Path(tmp) / f"{f.name()}.c"
                cg = ca.CodeGenerator(src.name)
                cg.add(f)
                cg.generate(tmp + os.sep)
                objects.append(src.with_suffix(".o"))
            _run_all([[cc, *FLAGS, "-c", str(o.with_suffix(".c")), "-o", str(o)] for o in objects], cc, block)
            out = Path(tmp) / lib.name
            _run_all([[cc, "-shared", *map(str, objects), "-o", str(out), "-lm"]], cc, block)
            if not out.is_file():
                raise InputError(f"the C compiler {cc} wrote no library for {block}", field="solver.codegen")
            digest = Path(tmp) / "digest"
            digest.write_text(_digest(out))
            _not_others_writable(out, digest)  # under umask 000 they would be, and never load
            # the library first, then its digest: a reader in between sees a mismatch and compiles
            # again; it never loads a file whose digest it has not checked
            os.replace(out, lib)
            os.replace(digest, _digest_path(lib))
        self.compile_s += time.perf_counter() - t0


def block_list(names, shown: int = 3) -> str:
    """Robot functions' block names for a line a user reads: the inverse dynamics first, at most
    `shown` names, the rest counted ("call_rigid_inverse_dynamics, call_impact_rows and 7 more")."""
    names = sorted(set(names), key=lambda n: ("inverse_dynamics" not in n, n))
    head = ", ".join(names[:shown])
    return head if len(names) <= shown else f"{head} and {len(names) - shown} more"


def make_cache_dir(path: Path) -> None:
    """Create the cache directory (and its missing parents). Under a umask that lets other users
    write new directories (000) they are made 0o755 all the same: `_trusted` would refuse a
    cache gaitopt made itself (its compile then fails, its libraries never load)."""
    missing = []
    while not path.exists() and path != path.parent:  # mkdir(parents=True) gives parents no mode
        missing.append(path)
        path = path.parent
    for p in reversed(missing):
        p.mkdir(exist_ok=True, mode=0o755)  # mode & ~umask: a stricter umask stays


def _not_others_writable(*paths: Path) -> None:
    import stat

    for path in paths:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode & stat.S_IWOTH:
            os.chmod(path, mode & ~stat.S_IWOTH)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _digest_path(lib: Path) -> Path:
    return lib.with_name(lib.name + ".sha256")


def _trusted(*paths: Path) -> bool:
    """Whether every path is the user's own and not writable by other users: a library in the
    cache is loaded as native code by default (`auto`), so one that someone else could have
    written is not (the rule of ssh's StrictModes, group-writable allowed for user-private
    groups). True where the platform has no owners to compare."""
    if not hasattr(os, "geteuid"):
        return True
    import stat

    uid = os.geteuid()
    for path in paths:
        st = os.stat(path)
        if st.st_uid != uid or st.st_mode & stat.S_IWOTH:
            return False
    return True


def _load(lib: Path, names: tuple) -> tuple:
    """(the library's functions, None), or (None, why) if it is not used: None when it is
    missing, else the reason: it is not the file its digest names (a truncated or damaged file
    would crash the process when loaded; it is compiled again), it is not trusted (`_trusted`:
    it, its digest and the cache directory) or it does not load."""
    digest = _digest_path(lib)
    if not lib.is_file():
        return None, None
    try:
        if not _trusted(lib.parent, lib, digest):
            return None, "it, its digest or the cache directory is not yours or other users can write it"
        if digest.read_text().strip() != _digest(lib):
            return None, "it does not match its digest: damaged or changed since it was compiled"
        return tuple(ca.external(name, str(lib)) for name in names), None
    except OSError as err:
        return None, f"{err.strerror or err}: {err.filename or lib}"
    except RuntimeError as err:
        return None, str(err).strip().splitlines()[-1] if str(err).strip() else "CasADi cannot load it"


def _renamed(fn: ca.Function, name: str) -> ca.Function:
    """fn under another name (the library's symbol), same inputs, outputs and sparsity."""
    ins = [ca.SX.sym(fn.name_in(i), fn.sparsity_in(i)) for i in range(fn.n_in())]
    return ca.Function(name, ins, fn.call(ins))


def _run_all(cmds: list, cc: str, name: str) -> None:
    """Run the compiler commands side by side; InputError naming the first that failed."""
    import subprocess

    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for cmd in cmds]
    errors = [(p.communicate()[1], p.returncode) for p in procs]  # communicate drains each pipe
    for err, code in errors:
        if code != 0:
            tail = " ".join(err.strip().splitlines()[-3:]) or "no message"
            raise InputError(f"the C compiler {cc} failed on {name} (exit {code}): {tail}", field="solver.codegen")
