"""URDF files of a robot folder: where they are (a path or an installed package) and reading
them with Pinocchio, the parser's printing captured, their numbers checked finite."""
from __future__ import annotations

import os
import site
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pinocchio as pin

from .errors import InputError
from .robot_yaml import _short_repr
from .yamlio import Fields


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError, AttributeError):
            pass


@contextmanager
def _captured_output():
    """Redirect the process's stdout and stderr (file descriptors 1 and 2, where Pinocchio's C++
    parser prints) into a temporary file; yields a function returning what was written."""
    _flush()
    saved, tmp = [], None
    try:
        tmp = tempfile.TemporaryFile(mode="w+b")
        for fd in (1, 2):
            saved.append((fd, os.dup(fd)))
        for fd, _ in saved:
            os.dup2(tmp.fileno(), fd)
    except OSError:  # no file descriptors to redirect (e.g. an embedding host): do not capture
        for fd, dup in saved:
            os.dup2(dup, fd)
            os.close(dup)
        saved = []

    def text() -> str:
        if tmp is None or saved == []:
            return ""
        try:
            tmp.seek(0)
            return tmp.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    try:
        yield text
    finally:
        _flush()
        for fd, dup in saved:
            os.dup2(dup, fd)
            os.close(dup)
        if tmp is not None:
            tmp.close()


def _one_line(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _build_urdf_model(urdf: Path, file: Path) -> pin.Model:
    """pin.buildModelFromUrdf with the parser's own printing captured: a broken URDF is one
    InputError naming the URDF and robot.yaml's `urdf`."""
    try:
        urdf.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"the URDF {urdf} is not UTF-8 text", file=str(file), field="urdf") from None
    except OSError as err:
        raise InputError(f"cannot read the URDF {urdf}: {err.strerror or err}", file=str(file), field="urdf") from None
    with _captured_output() as printed:
        try:
            model, err = pin.buildModelFromUrdf(str(urdf)), None
        except Exception as exc:  # pinocchio raises plain RuntimeError/ValueError
            model, err = None, exc
        text = printed()
    # urdfdom prints "Error:   <reason>\n         at line N in .../model.cpp" (and may still return
    # a model, e.g. without a link's unreadable <inertial>): any error line refuses the URDF
    reasons = [ln.strip()[len("Error:"):].strip() for ln in text.splitlines() if ln.strip().startswith("Error:")]
    if model is None or reasons:
        why = _one_line("; ".join(r for r in reasons if r)) or _one_line(err) or type(err).__name__
        raise InputError(f"Pinocchio cannot read the URDF {urdf}: {why}", file=str(file), field="urdf")
    return model


MAX_SPAN = 50.0  # m, largest distance of a URDF frame from the root accepted


def _check_urdf_numbers(model: pin.Model, urdf: Path, file: Path) -> None:
    """The URDF's masses, inertias, placements and limits are finite (limits may be ±inf, not
    NaN; lower <= upper), so nothing later divides by or propagates a NaN."""
    def bad(what):
        return InputError(f"the URDF {urdf} has {what}", file=str(file), field="urdf")
    for j in range(model.njoints):
        inertia = model.inertias[j]
        if not (np.isfinite(inertia.mass) and inertia.mass >= 0 and np.all(np.isfinite(inertia.lever))
                and np.all(np.isfinite(inertia.inertia))):
            raise bad(f"a non-finite or negative mass or inertia on joint {model.names[j]!r}")
        if not np.all(np.isfinite(model.jointPlacements[j].homogeneous)):
            raise bad(f"a non-finite origin on joint {model.names[j]!r}")
    for fr in model.frames:
        if not np.all(np.isfinite(fr.placement.homogeneous)):
            raise bad(f"a non-finite origin on frame {fr.name!r}")
    data = model.createData()
    pin.framesForwardKinematics(model, data, pin.neutral(model))
    span = max(float(np.linalg.norm(f.translation)) for f in data.oMf)
    if span > MAX_SPAN:  # millimetres typed as metres, most often: say so before a foot or base_z does
        raise bad(f"a frame {span:.4g} m from its root (at most {MAX_SPAN:g} m): give lengths in metres")
    for j in range(1, model.njoints):
        jm = model.joints[j]
        lo = model.lowerPositionLimit[jm.idx_q:jm.idx_q + jm.nq]
        hi = model.upperPositionLimit[jm.idx_q:jm.idx_q + jm.nq]
        vel = model.velocityLimit[jm.idx_v:jm.idx_v + jm.nv]
        eff = model.effortLimit[jm.idx_v:jm.idx_v + jm.nv]
        if np.any(np.isnan(lo)) or np.any(np.isnan(hi)) or np.any(np.isnan(vel)) or np.any(np.isnan(eff)):
            raise bad(f"a NaN limit on joint {model.names[j]!r}")
        if np.any(lo > hi):
            raise bad(f"lower > upper limit on joint {model.names[j]!r}")
        if np.any(vel < 0) or np.any(eff < 0):
            raise bad(f"a negative velocity or effort limit on joint {model.names[j]!r}")


def _check_moving_masses(model: pin.Model, urdf: Path, file: Path) -> None:
    """Every body a joint moves (its links merged across fixed and locked joints) has a mass > 0:
    a link without <inertial> (or with mass 0) gets none in Pinocchio, the solve then moves a
    massless body on its rotor inertia alone, and MuJoCo refuses the model only at `gaitopt
    verify`. model: the URDF's fixed-base model after locking (base joints not yet added)."""
    for j in range(1, model.njoints):
        if model.inertias[j].mass <= 0.0:
            links = [fr.name for fr in model.frames if fr.parentJoint == j and fr.type == pin.FrameType.BODY]
            raise InputError(f"{urdf.name}: link {', '.join(links) or '?'} (moved by joint {model.names[j]!r}) "
                             "has no mass (no <inertial>, or mass 0): give every moving link its <inertial>",
                             file=str(file), field="urdf", allowed="mass > 0 kg")


def package_share(package: str) -> Path:
    """Folder where a cmeel package (e.g. example-robot-data) installs its data files."""
    roots = []
    try:
        roots += site.getsitepackages()
    except AttributeError:  # virtualenvs without site.getsitepackages
        pass
    roots += [p for p in sys.path if p]
    for root in roots:
        cand = Path(root) / "cmeel.prefix" / "share" / package
        if cand.is_dir():
            return cand
    raise InputError(f"package {package!r} is not installed (pip install {package})", field="urdf.package")


def _urdf_path(f: Fields, folder: Path) -> Path:
    value = f.raw("urdf")
    key = "urdf"
    if isinstance(value, str) and value.strip() and "\0" not in value:
        path = (folder / value).resolve()
    elif isinstance(value, dict):
        u = f.mapping("urdf")
        package = u.string("package", allowed=["example-robot-data"])
        rel = u.string("path")
        u.done(["package", "path"])
        if not rel.strip() or "\0" in rel or Path(rel).is_absolute():
            raise u.error("path", f"expected a path inside the package, got {_short_repr(rel)}")
        try:
            share = package_share(package)
        except InputError as err:
            raise u.error("package", err.message) from None
        path = share / rel
        key = "urdf.path"
    else:
        raise f.error("urdf", f"expected a path or {{package:, path:}}, got {_short_repr(value, 60)}")
    try:
        found, is_dir = path.is_file(), path.is_dir()
    except OSError:  # e.g. a name too long for the file system
        found, is_dir = False, False
    if not found:
        what = "is a directory, not a URDF file" if is_dir else "not found"
        raise InputError(f"URDF {what}: {_short_repr(str(path), 200)}", file=f.file, field=key)
    return path
