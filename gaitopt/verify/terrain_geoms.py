"""MuJoCo geoms of a `gaitopt.terrain` surface other than a plane: one box per tread of steps
(the true, sharp edges), or a height field sampling a height map's surface."""
from __future__ import annotations

import numpy as np

TERRAIN_EXTENT = ((-2.0, 4.0), (-1.0, 1.0))   # [m] x and y range of boxes and height fields
HFIELD_RESOLUTION = 0.005                       # [m] height-field sample spacing


def add_terrain(mj, spec, surface) -> list:
    """Add the surface's geoms to spec's world body; returns them (the caller sets contact
    classes and friction)."""
    (x0, x1), (y0, y1) = TERRAIN_EXTENT
    if surface.kind == "steps":
        edges = [x0] + list(surface.edges) + [x1]
        levels = [0.0] + list(surface.levels)
        bottom = min(levels) - 0.1
        return [spec.worldbody.add_geom(name=f"tread_{i}", type=mj.mjtGeom.mjGEOM_BOX,
                                        size=[(b - a) / 2, (y1 - y0) / 2, (z - bottom) / 2],
                                        pos=[(a + b) / 2, (y0 + y1) / 2, (z + bottom) / 2])
                for i, (a, b, z) in enumerate(zip(edges[:-1], edges[1:], levels))]
    nx, ny = int(round((x1 - x0) / HFIELD_RESOLUTION)) + 1, int(round((y1 - y0) / HFIELD_RESOLUTION)) + 1
    xs, ys = np.linspace(x0, x1, nx), np.linspace(y0, y1, ny)
    z = surface.height(xs[None, :], ys[:, None])       # rows along y, columns along x (MuJoCo's order)
    lo, span = float(z.min()), max(float(z.max() - z.min()), 1e-6)
    hf = spec.add_hfield(name="terrain", size=[(x1 - x0) / 2, (y1 - y0) / 2, span, 0.05], nrow=ny, ncol=nx)
    hf.userdata = ((z - lo) / span).ravel().tolist()
    return [spec.worldbody.add_geom(name="floor", type=mj.mjtGeom.mjGEOM_HFIELD, hfieldname="terrain",
                                    pos=[(x0 + x1) / 2, (y0 + y1) / 2, lo])]
