"""Every notebook in notebooks/ executes headless at a small size (GAITOPT_NOTEBOOK_SCALE=0.5)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.fast
def test_there_are_notebooks():
    assert {"cost_functions.ipynb", "actuator_sizing.ipynb", "speed_cot.ipynb",
            "titan8_postures.ipynb", "limb_lengths.ipynb", "hexapod_uneven.ipynb"} <= {p.name for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path, monkeypatch):
    # the kernel inherits this environment: small size, headless plots, one thread per solve
    monkeypatch.setenv("GAITOPT_NOTEBOOK_SCALE", "0.5")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError (with the cell and traceback) if a cell fails
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
