"""from_torch: PyTorch modules with DTensor parameters and inputs (over the
fake process group) or plain tensors with a placements map."""

import numpy as np
import pytest

import dtensor_mlir as dm

pytestmark = pytest.mark.torch


@pytest.fixture(scope="module")
def seed(mesh_dp):
    """The seed test: the Block with replicated DTensor parameters and the
    batch distributed S(0) over a 1-D mesh of 4."""
    import torch
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor
    from models import Block, to_dtensor_params

    model = to_dtensor_params(Block(), mesh_dp, [Replicate()])
    x = torch.randn(32, 128, 512, generator=torch.Generator().manual_seed(7))
    program = dm.from_torch(model, (distribute_tensor(x, mesh_dp, [Shard(0)]),))
    return program, x


def test_seed_block_signature(seed):
    program, _ = seed
    assert program.input_names == ["x", "wq", "wk", "wv", "wo", "w1", "w2"]
    text = program.mlir
    assert 'dtensor.mesh @mesh = <["dp" = 4]>' in text
    assert ("%arg0: tensor<32x128x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}"
            in text)
    assert ('%arg1: tensor<512x512xf32> {dtensor.param = "wq", '
            "dtensor.spec = #dtensor.spec<@mesh, [R]>}") in text
    assert "-> (tensor<32x128x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})" in text
    # Parameters are arguments, not constants.
    assert "dense_resource" not in program.source


def test_seed_block_plan_is_examples_block(seed):
    """Every activation S(0), local x [8, 128, 512], zero collectives: the
    plan of examples/block.mlir."""
    program, _ = seed
    f = program.function_report()
    assert f["totals"]["num_collectives"] == 0 and f["collectives"] == []
    x = f["values"][0]
    assert x["placements"] == ["S(0)"] and x["local_shapes"] == [[8, 128, 512]] * 4
    params = f["values"][1:7]
    assert all(v["placements"] == ["R"] for v in params)
    activations = [v for v in f["values"][7:] if v["global_shape"] and v["global_shape"][0] in
                   (32, 256, 4096)]
    assert activations and all(v["placements"] == ["S(0)"] for v in activations)
    assert [r["placements"] for r in f["returns"]] == [["S(0)"]]
    with open(_example("block.mlir")) as fh:
        hand = dm.compile(fh.read()).function_report()
    assert hand["totals"]["num_collectives"] == 0
    assert hand["values"][0]["local_shapes"] == x["local_shapes"]


def _example(name):
    import os
    return os.path.join(os.path.dirname(__file__), "..", "..", "examples", name)


def test_seed_block_runs_on_4_ranks_as_pytorch(seed):
    import torch
    from models import Block

    program, x = seed
    out = program.run(np=4, inputs={"x": x.numpy()}, check=True)
    assert out.check.passed, out.output
    assert out.plan == "plan: 0 collectives, comm_cost_us=0.0 on 4 ranks"
    with torch.no_grad():
        ref = Block()(x).numpy()
    assert np.abs(out[0] - ref).max() <= 1e-5


def test_seed_block_ddp_split(seed):
    program, _ = seed
    split = program.ddp_split(bucket_cap_mb=4)
    assert [b["params"] for b in split.buckets["forward"]] == [
        ["wq", "wk", "wv", "wo"], ["w1"], ["w2"]]


def test_seed_visualize_sharding(seed):
    program, _ = seed
    assert program.visualize_sharding("x").splitlines()[1:] == [
        "Block                  Devices",
        "---------------------  -------",
        "[0-7, 0-127, 0-511]    cpu:0",
        "[8-15, 0-127, 0-511]   cpu:1",
        "[16-23, 0-127, 0-511]  cpu:2",
        "[24-31, 0-127, 0-511]  cpu:3",
    ]


def test_megatron_mlp_one_all_reduce(mesh_tp):
    import torch
    from torch.distributed.tensor import DTensor, Replicate, Shard
    from models import MLP, to_dtensor_params

    plain = MLP()
    w1, w2 = plain.w1.detach().numpy(), plain.w2.detach().numpy()
    model = to_dtensor_params(MLP(), mesh_tp, {"w1": [Shard(1)], "w2": [Shard(0)]})
    x = torch.randn(32, 512, generator=torch.Generator().manual_seed(3))
    program = dm.from_torch(model, (DTensor.from_local(x, mesh_tp, [Replicate()]),),
                            placements={"output": [dm.Replicate()]})
    assert 'dtensor.mesh @mesh = <["tp" = 4]>' in program.mlir
    f = program.function_report()
    assert [c["kind"] for c in f["collectives"]] == ["all_reduce"]
    assert f["collectives"][0]["from"] == "[P(sum)]" and f["collectives"][0]["to"] == "[R]"
    # Without the request the result stays what DTensor's forward gives: P(sum).
    partial = dm.from_torch(model, (DTensor.from_local(x, mesh_tp, [Replicate()]),))
    assert partial.function_report()["returns"][0]["placements"] == ["P(sum)"]
    assert partial.function_report()["totals"]["num_collectives"] == 0
    out = program.run(np=4, inputs={"x": x.numpy(), "w1": w1, "w2": w2})
    assert out.check.passed, out.output
    with torch.no_grad():
        ref = plain(x).numpy()
    assert np.abs(out[0] - ref).max() <= 1e-5


def test_plain_tensors_with_a_placements_map():
    import torch
    from torch.distributed.tensor import Shard
    from models import MLP

    model = MLP()
    x = torch.randn(32, 512)
    program = dm.from_torch(model, (x,), mesh={"tp": 4},
                            placements={"w1": [Shard(1)], "w2": ["S(0)"], "output": ["R"]})
    f = program.function_report()
    assert f["totals"]["num_collectives"] == 1
    assert program.placements("w1") == [dm.Shard(1)] and program.placements("x") == [dm.Replicate()]
    # Every value is known: run() takes them by default.
    out = program.run(np=4)
    assert out.check.passed
    with torch.no_grad():
        assert np.abs(out[0] - model(x).numpy()).max() <= 1e-5
    with pytest.raises(KeyError, match="neither an argument"):
        dm.from_torch(model, (x,), mesh={"tp": 4}, placements={"w3": ["R"]})


def test_where_layer_scalars_are_0d_constants(mesh_dp):
    import torch
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor
    from models import WhereLayer, to_dtensor_params

    plain = WhereLayer()
    weight = plain.linear.weight.detach().numpy()
    model = to_dtensor_params(WhereLayer(), mesh_dp, [Replicate()])
    x = torch.randn(16, 32)
    program = dm.from_torch(model, (distribute_tensor(x, mesh_dp, [Shard(0)]),))
    assert program.input_names == ["x", "linear.weight"]
    assert 'dtensor.param = "linear.weight"' in program.mlir
    f = program.function_report()
    scalars = [v for v in f["values"] if v["op"] == "arith.constant" and v["global_shape"] == []]
    assert len(scalars) == 2 and all(v["placements"] == ["R"] for v in scalars)
    assert f["totals"]["num_collectives"] == 0
    out = program.run(np=4, inputs={"x": x.numpy(), "linear.weight": weight})
    assert out.check.passed
    with torch.no_grad():
        assert np.abs(out[0] - plain(x).numpy()).max() <= 1e-5


def test_unhandled_op_names_the_op_and_the_source_line():
    import inspect
    import torch
    from models import Sorted

    line = inspect.getsourcelines(Sorted.forward)[1] + 1
    with pytest.raises(dm.MLIRError) as info:
        dm.from_torch(Sorted(), (torch.randn(8, 4),), mesh={"dp": 4},
                      placements={"x": [dm.Shard(0)]})
    message = str(info.value)
    assert "no sharding rule for 'tm_tensor.sort'" in message
    assert f"models.py:{line}: return torch.sort(x, dim=0).values + 1" in message


def test_2d_mesh_and_several_results():
    """A 2-D mesh (dp x tp) from a dict, placements per axis, two results."""
    import torch
    from torch import nn

    class TwoOut(nn.Module):
        def __init__(self):
            super().__init__()
            g = torch.Generator().manual_seed(5)
            self.w = nn.Parameter(torch.randn(16, 32, generator=g) / 4)

        def forward(self, x):
            h = x @ self.w
            return torch.relu(h), h.sum(dim=1)

    model = TwoOut()
    x = torch.randn(8, 16)
    program = dm.from_torch(model, (x,), mesh={"dp": 2, "tp": 2},
                            placements={"x": [dm.Shard(0), dm.Replicate()],
                                        "w": [dm.Replicate(), dm.Shard(1)],
                                        "output1": [dm.Shard(0), dm.Replicate()]})
    text = program.mlir
    assert 'dtensor.mesh @mesh = <["dp" = 2, "tp" = 2]>' in text
    assert '{dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [R, S(1)]>}' in text
    f = program.function_report()
    assert f["returns"][1]["placements"] == ["S(0)", "R"]
    assert program.visualize_sharding("w", header="").splitlines()[2:] == [
        "Row 0-15  cpu:0, cpu:2  cpu:1, cpu:3"]
    out = program.run(np=4)
    assert out.check.passed, out.output
    with torch.no_grad():
        relu, sums = model(x)
    assert np.abs(out[0] - relu.numpy()).max() <= 1e-5
    assert np.abs(out[1] - sums.numpy()).max() <= 1e-5


def test_buffers_are_constants_and_biases_parameters():
    import torch
    from torch import nn

    class WithBuffer(nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(4)
            self.lin = nn.Linear(16, 16)
            self.register_buffer("scale", torch.rand(16))

        def forward(self, x):
            return self.lin(x) * self.scale

    model = WithBuffer().eval()
    x = torch.randn(8, 16)
    program = dm.from_torch(model, (x,), mesh={"dp": 4}, placements={"x": ["S(0)"]})
    assert program.input_names == ["x", "lin.weight", "lin.bias"]
    assert "dense_resource" in program.source          # the buffer, frozen
    out = program.run(np=4)
    assert out.check.passed
    with torch.no_grad():
        assert np.abs(out[0] - model(x).numpy()).max() <= 1e-5
