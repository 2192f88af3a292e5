"""Robot functions kept on disk by content: the CasADi Functions of gaitopt.dynamics built once
per robot model, loaded by later set-ups of any problem on that robot.

Building a robot's inverse dynamics or contact kinematics as SX expressions runs a Python loop
over its joints (thousands of small CasADi operations: 18 ms of the biped7 heel–toe walk's 62 ms
transcription, 80 ms of ANYmal's 190 ms); loading the same Function from CasADi's serialized
form takes about 0.5 ms. The file is named by a SHA-256 of everything the Function is built
from: the Pinocchio model (its serialized form: joints, placements, inertias, armature, frames),
the contact points, the source of the modules that build it, and the CasADi version. A loaded
Function is the built one (its serialization is equal), so its values, its derivatives and the
compiled derivatives' cache keys (gaitopt.codegen) are the same.

The store lives in the code generation cache (gaitopt.codegen.cache_dir) and follows its rules:
filled where compiled derivatives are (`gaitopt compile`, `solver.codegen: true`), read by
default (`auto`), neither with `false`; a file is read only from a directory and files of the
user's own that other users cannot write (CasADi's serialized form can name native code to
load), and only when it matches the SHA-256 written beside it, else the Function is built as
without a store; one that cannot be written is simply not kept.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import casadi as ca

VERSION = "1"  # of the file layout: part of every key
# The modules whose code builds the stored Functions (gaitopt.dynamics, the contact rows it
# inherits and their rigid-foot helper): a change to any is a new key, so an edited checkout never
# loads stale functions.
_BUILDERS = ("dynamics.py", "dynamics_impacts.py", "rigid_points.py")


def model_key(model, contacts) -> str:
    """SHA-256 (hex) of a Pinocchio model, its contact points [(frame id, point (3,))], the
    builders' source, the layout version and CasADi's version."""
    h = hashlib.sha256()
    for part in (VERSION, ca.__version__, model.saveToString(), repr([(int(f), [float(c) for c in p])
                                                                         for f, p in contacts])):
        h.update(part.encode())
    here = Path(__file__).parent
    for name in _BUILDERS:
        h.update((here / name).read_bytes())
    return h.hexdigest()


class FunctionStore:
    """Functions of one robot model in `directory`, each file named `<name>_<key[:20]>.casadi`
    with `<file>.sha256` beside it; write: whether Functions built here are stored."""

    def __init__(self, directory: Path, key: str, write: bool = False):
        self.directory, self.key, self.write = Path(directory), key, bool(write)

    def function(self, name: str, build) -> ca.Function:
        """The stored Function `name`, else build() (then stored, when this store writes)."""
        path = self.directory / f"{name}_{self.key[:20]}.casadi"
        fn = self._load(path)
        if fn is None:
            fn = build()
            if self.write:
                self._save(path, fn)
        return fn

    @staticmethod
    def _load(path: Path):
        from .codegen import _digest_path, _trusted

        digest = _digest_path(path)
        try:
            text = path.read_text()
            if not _trusted(path.parent, path, digest) or digest.read_text().strip() != _sha(text):
                return None
            return ca.Function.deserialize(text)
        except (OSError, UnicodeDecodeError, RuntimeError):
            return None  # missing, unreadable or not a Function: built again

    def _save(self, path: Path, fn: ca.Function) -> None:
        from .codegen import _digest_path, _trusted, make_cache_dir

        text = fn.serialize()
        try:
            make_cache_dir(self.directory)
            if not _trusted(self.directory):  # never read from there either
                return
            # the file first, then its digest: a reader in between sees a mismatch and builds
            _replace_with(path, text)
            _replace_with(_digest_path(path), _sha(text))
        except OSError:
            pass  # an unwritable cache: the next set-up builds it again


def robot_function_store(dynamics, write: bool = False) -> FunctionStore:
    """The store of a SymbolicDynamics' model and contacts in the code generation cache."""
    from .codegen import cache_dir

    return FunctionStore(cache_dir() / "functions", model_key(dynamics.model, dynamics.contacts), write)


def _replace_with(path: Path, text: str) -> None:
    """Write text to path through a temporary file renamed into place (removed if it fails)."""
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
