"""Shared fixtures: the command-line binary (the reference the package must
match bit for bit) and the shared meshes beside the repository."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
MESHES = REPO.parent / "shared" / "meshes"


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The `widephase` binary: $WIDEPHASE_BIN, else target/release/widephase
    (built here when missing, so the comparison never silently drops out)."""
    env = os.environ.get("WIDEPHASE_BIN")
    path = pathlib.Path(env) if env else REPO / "target" / "release" / "widephase"
    if not path.exists():
        subprocess.run(["cargo", "build", "--release", "--bin", "widephase"], cwd=REPO, check=True)
    assert path.exists(), f"no widephase binary at {path}"
    return path


def shared_mesh(name: str) -> pathlib.Path:
    """A mesh of ../shared/meshes, or a visible skip (shown by `pytest -rs`)."""
    p = MESHES / name
    if not p.exists():
        pytest.skip(f"SKIPPED: {p} not found (../shared/meshes is beside the repository only on developer machines and CI)")
    return p


def run_cli(cli, *args) -> subprocess.CompletedProcess:
    return subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True)


def read_npy(path) -> np.ndarray:
    return np.load(path, allow_pickle=False)
