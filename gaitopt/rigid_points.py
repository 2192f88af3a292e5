"""How many independent velocity (or height) rows the points of one rigid body add: the rank
bookkeeping shared by the contact rows (gaitopt.constraints.contact), the impact map
(gaitopt.dynamics_impacts) and the sole check at robot loading (gaitopt.robot_feet)."""
from __future__ import annotations

import numpy as np


def sole_rows(fixed, point, tol=1e-9) -> int:
    """How many velocity components [of 3] a point of a rigid foot adds to those of the foot's
    points already `fixed` (foot-frame positions (3,) [m], each of which added some): 3 for the
    first, 2 for a second apart from it, 1 for a third off their line, 0 otherwise (a point
    on that line, or a fourth: three points off one line hold a rigid body). A height row at
    a stance start is independent exactly where this is nonzero (one of the heights of a
    sole's plane)."""
    p = np.asarray(point, float)
    if not fixed:
        return 3
    d = [np.asarray(x, float) - fixed[0] for x in fixed[1:]] + [p - fixed[0]]
    rank = np.linalg.matrix_rank(np.array(d), tol=tol)
    return {1: 2, 2: 1}.get(len(fixed), 0) if rank == len(fixed) else 0


def rigid_plan(points) -> list:
    """For points [(body, position (3,) in the body's frame)] in order: [(n, earlier)] per point,
    n = `sole_rows` of it after the earlier points of its body that added rows, earlier the
    indices (into `points`) of those points, in order."""
    added, out = {}, []
    for i, (body, p) in enumerate(points):
        earlier = added.setdefault(body, [])
        n = sole_rows([points[j][1] for j in earlier], p)
        out.append((n, tuple(earlier)))
        if n:
            earlier.append(i)
    return out

