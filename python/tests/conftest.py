"""pytest configuration of the dtensor_mlir tests.

Tests marked `torch` need torch and torch-mlir; without them they are
skipped, and `-rs` (the lit test's flags) prints why. The fake process
group of a 1-D mesh of 4 ("dp") is set up once per session.
"""

import importlib.util
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

HAVE_TORCH = all(importlib.util.find_spec(m) is not None for m in ("torch", "torch_mlir"))
SKIP_REASON = ("torch and torch-mlir are not installed "
               "(python3 -m pip install torch torch-mlir; see README.md)")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "torch: needs torch and torch-mlir (skipped when they are absent)")


def pytest_collection_modifyitems(config, items):
    if HAVE_TORCH:
        return
    skip = pytest.mark.skip(reason=SKIP_REASON)
    for item in items:
        if "torch" in item.keywords:
            item.add_marker(skip)


def pytest_report_header(config):
    return "torch tests: " + ("run" if HAVE_TORCH else "SKIPPED: " + SKIP_REASON)


@pytest.fixture(scope="session")
def fake_world():
    """A fake process group of 4 ranks (this process is rank 0)."""
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore
    if not dist.is_initialized():
        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=4)
    return 4


@pytest.fixture(scope="session")
def mesh_dp(fake_world):
    from torch.distributed.tensor import init_device_mesh
    return init_device_mesh("cpu", (4,), mesh_dim_names=("dp",))


@pytest.fixture(scope="session")
def mesh_tp(fake_world):
    from torch.distributed.tensor import init_device_mesh
    return init_device_mesh("cpu", (4,), mesh_dim_names=("tp",))
