"""The benchmark camera shared by scripts/raycast_peers.py and
python/bench/peers.py: a pinhole image framing a mesh, in the arguments of
Open3D's `create_rays_pinhole` (and widephase's `pinhole_rays` and
`raycast --camera`)."""

import numpy as np


def camera_of(verts, w, h, fov=60.0):
    """Eye on the +z side of the bounding box's centre, the bounding sphere
    filling the narrower field of view (the CLI's default framing). Returns
    `(fov, center, eye, up)`."""
    verts = np.asarray(verts, np.float64)
    lo, hi = verts.min(0), verts.max(0)
    c = 0.5 * (lo + hi)
    r = 0.5 * np.linalg.norm(hi - lo)
    half_h = np.radians(fov / 2)
    half_v = np.arctan(np.tan(half_h) * h / w)
    eye = c + np.array([0.0, 0.0, r / np.sin(min(half_h, half_v))])
    return fov, c, eye, np.array([0.0, 1.0, 0.0])
