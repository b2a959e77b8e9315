"""The package without torch: placements, meshes, compile, the report, the
partitioned and split programs, runs on 4 ranks, the sharding picture and
errors as exceptions."""

import os

import numpy as np
import pytest

import dtensor_mlir as dm

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def example(name):
    with open(os.path.join(ROOT, "examples", name)) as f:
        return f.read()


@pytest.fixture(scope="module")
def mlp():
    return dm.compile(example("mlp.mlir"), source_name="mlp.mlir")


def test_placements_print_as_the_dialect():
    assert [str(p) for p in (dm.Shard(1), dm.Replicate(), dm.Partial(), dm.Partial("max"))] == [
        "S(1)", "R", "P(sum)", "P(max)"]
    assert dm.parse_placements("[S(0), P(avg), R]") == [dm.Shard(0), dm.Partial("avg"),
                                                        dm.Replicate()]
    assert dm.Shard(0) != dm.Shard(1) and dm.Partial("min").is_partial()
    with pytest.raises(ValueError, match="reduce_op must be one of sum, avg, max, min"):
        dm.Partial("prod")
    with pytest.raises(ValueError):
        dm.Shard(-1)


def test_device_mesh_named_axes():
    mesh = dm.DeviceMesh((2, 4), mesh_dim_names=("dp", "tp"))
    assert mesh.mlir == 'dtensor.mesh @mesh = <["dp" = 2, "tp" = 4]>'
    assert mesh.size() == 8 and mesh.ndim == 2 and mesh.size(1) == 4
    assert mesh.coordinates(5) == (1, 1)
    assert mesh.spec([dm.Shard(0), dm.Replicate()]) == "#dtensor.spec<@mesh, [S(0), R]>"
    assert dm.DeviceMesh({"dp": 2, "tp": 4}) == mesh
    with pytest.raises(ValueError, match="1 placements"):
        mesh.spec([dm.Shard(0)])
    with pytest.raises(ValueError, match="unique"):
        dm.DeviceMesh((2, 2), ("a", "a"))


def test_compile_annotates_the_global_view(mlp):
    text = mlp.mlir
    assert "dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]" in text
    assert "dtensor.redistribute" in text
    assert "dtensor.redistribute" not in mlp.source


def test_report_is_the_json_contract(mlp):
    report = mlp.report()
    assert list(report) == ["functions"]
    f = report["functions"][0]
    for key in ("name", "mesh", "values", "returns", "collectives", "totals"):
        assert key in f
    assert f["name"] == "mlp"
    assert f["mesh"] == {"axis_names": ["tp"], "name": "mesh", "shape": [4]}
    assert [c["kind"] for c in f["collectives"]] == ["all_reduce"]
    assert f["totals"]["num_collectives"] == 1
    assert f["values"][1]["local_shapes"] == [[512, 512]] * 4
    pytorch = mlp.report(strategy="pytorch", compare_pytorch=True)["functions"][0]
    assert pytorch["totals"]["num_collectives"] == 1
    with pytest.raises(ValueError, match="strategy must be one of global, pytorch"):
        mlp.report(strategy="best")


def test_placements_of_values(mlp):
    assert mlp.placements("w1") == [dm.Shard(1)]
    assert mlp.placements(2) == [dm.Shard(0)]
    assert mlp.placements("result0") == [dm.Replicate()]
    assert mlp.argument_names() == [None, "w1", "w2"]


def test_partition_gives_local_types_and_collectives(mlp):
    text = mlp.partition()
    assert "tensor<512x512xf32>" in text and "tensor<512x2048xf32>" not in text
    assert "dtensor.all_reduce" in text


def test_ddp_split_buckets(mlp):
    split = mlp.ddp_split(bucket_cap_mb=4)
    assert [b["params"] for b in split.buckets["mlp"]] == [["w1"], ["w2"]]
    assert "func.func private @mlp_submod_0" in split.mlir
    one = mlp.ddp_split(bucket_cap_mb=25, first_bucket_cap_mb=25)
    assert [b["params"] for b in one.buckets["mlp"]] == [["w1", "w2"]]


def test_lower_to_llvm(mlp):
    assert "llvm.func @mlp" in mlp.lower()


def test_run_on_4_ranks_matches_numpy(mlp):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 512), dtype=np.float32)
    w1 = rng.standard_normal((512, 2048), dtype=np.float32) / np.float32(512 ** 0.5)
    w2 = rng.standard_normal((2048, 512), dtype=np.float32) / np.float32(2048 ** 0.5)
    out = mlp.run(np=4, inputs=[x, w1, w2], check=True)
    assert out.check.passed, out.output
    assert out.plan == "plan: 1 collectives, comm_cost_us=11.2 on 4 ranks"
    assert sorted(out.rank_ms) == [0, 1, 2, 3]
    ref = np.maximum(x @ w1, 0) @ w2
    assert len(out) == 1 and out[0].shape == (32, 512)
    np.testing.assert_allclose(out[0], ref, rtol=1e-4, atol=1e-4)


def test_run_with_threads_matches_one_thread(mlp):
    # Two BLAS and two OpenMP threads per rank: the outputs of one thread.
    rng = np.random.default_rng(2)
    args = [rng.standard_normal((32, 512), dtype=np.float32),
            rng.standard_normal((512, 2048), dtype=np.float32) / np.float32(512 ** 0.5),
            rng.standard_normal((2048, 512), dtype=np.float32) / np.float32(2048 ** 0.5)]
    one = mlp.run(np=4, inputs=args, check=False)
    two = mlp.run(np=4, inputs=args, check=True, threads=2)
    assert two.check.passed, two.output
    np.testing.assert_allclose(two[0], one[0], rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="threads must be a positive integer"):
        mlp.run(np=4, inputs=args, threads=0)


def test_failed_check_is_on_the_result(mlp):
    # Tolerances of zero: the 4-rank sum differs from one rank's in the last bits.
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 512), dtype=np.float32)
    w1 = rng.standard_normal((512, 2048), dtype=np.float32)
    w2 = rng.standard_normal((2048, 512), dtype=np.float32)
    out = mlp.run(np=4, inputs=[x, w1, w2], check=True, rtol=0, atol=0)
    assert not out.check.passed and out.check.max_abs_err > 0
    assert out.check.details[0].startswith("output #0 differs first at")
    assert out[0].shape == (32, 512)


def test_run_random_inputs_without_check():
    p = dm.compile(example("where_layer.mlir"))
    out = p.run(np=4, check=False, seed=3)
    assert out.check is None and out[0].shape == (16, 32)


def test_visualize_sharding_like_pytorch(mlp):
    picture = mlp.visualize_sharding("w1")
    assert picture.splitlines() == [
        "w1 (%arg1) of @mlp: [512, 2048] f32 [S(1)] on mesh @mesh (tp=4)",
        "           Col 0-511  Col 512-1023  Col 1024-1535  Col 1536-2047",
        "---------  ---------  ------------  -------------  -------------",
        "Row 0-511  cpu:0      cpu:1         cpu:2          cpu:3",
    ]
    picture = mlp.visualize_sharding("%6", header="")
    assert picture.splitlines() == [
        "(partial: every block holds a P(sum) value)",
        "          Col 0-511",
        "--------  --------------------------",
        "Row 0-31  cpu:0, cpu:1, cpu:2, cpu:3",
    ]


def test_sharding_picture_2d_mesh_and_uneven():
    mesh = dm.DeviceMesh((2, 2), ("dp", "tp"))
    picture = dm.sharding_picture((4, 4), [dm.Replicate(), dm.Shard(0)], mesh)
    # PyTorch's example 4 of visualize_sharding.
    assert picture.splitlines()[2:] == ["Row 0-1  cpu:0, cpu:2", "Row 2-3  cpu:1, cpu:3"]
    uneven = dm.sharding_picture((10,), [dm.Shard(0)], dm.DeviceMesh(4, ("dp",)))
    assert uneven.splitlines()[0].split() == ["Col", "0-2", "Col", "3-5", "Col", "6-8",
                                              "Col", "9-9"]
    nd = dm.sharding_picture((4, 2, 2), [dm.Shard(0), dm.Shard(2)], mesh).splitlines()
    assert nd[2:] == ["[0-1, 0-1, 0-0]  cpu:0", "[0-1, 0-1, 1-1]  cpu:1",
                      "[2-3, 0-1, 0-0]  cpu:2", "[2-3, 0-1, 1-1]  cpu:3"]


def test_parse_error_is_an_exception_with_the_diagnostic():
    with pytest.raises(dm.MLIRError) as info:
        dm.compile("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %y : tensor<4xf32>\n}",
                   source_name="bad.mlir")
    assert "bad.mlir:2:10: error: use of undeclared SSA value name" in str(info.value)


def test_analysis_error_names_the_op():
    text = """dtensor.mesh @mesh = <["dp" = 2]>
func.func @f(%x: tensor<4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<4xf32> {
  %c = arith.constant 0 : index
  %v = tensor.extract %x[%c] : tensor<4xf32>
  %r = "test.unknown"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}"""
    with pytest.raises(dm.MLIRError) as info:
        dm.compile(text, source_name="unknown.mlir")
    assert "unknown.mlir:5" in str(info.value)


def test_bad_pipeline_is_an_exception(mlp):
    from dtensor_mlir import _dtensor_mlir as core
    m = core.Module.parse(core.Context(), example("mlp.mlir").encode())
    with pytest.raises(dm.MLIRError, match="'dtensor-no-such-pass' does not refer to a registered"):
        m.run_pass_pipeline("builtin.module(dtensor-no-such-pass)")
    with pytest.raises(dm.MLIRError, match="expected 'builtin.module'"):
        m.run_pass_pipeline("func.func(canonicalize)")


def test_compile_bytecode():
    import subprocess
    bc = subprocess.run([dm.tool_path("dtensor-opt"), os.path.join(ROOT, "examples", "mlp.mlir"),
                         "--emit-bytecode"], capture_output=True, check=True).stdout
    assert bc[:4] == b"ML\xefR"
    p = dm.compile(bc)
    assert p.function_report()["totals"]["num_collectives"] == 1
    assert "func.func @mlp" in p.source


def test_run_error_carries_the_output(mlp):
    with pytest.raises(dm.RunError, match="dtensor-run failed"):
        mlp.run(np=4, inputs=[np.zeros((3, 3), np.float32)] * 3)


def test_annotate_signature_keeps_locations_and_attributes():
    """The signature rewrite of from_torch (pure text; no torch needed)."""
    from dtensor_mlir.torch_frontend import annotate_signature
    text = ('module {\n  func.func @f(%arg0: tensor<4x8xf32> loc(callsite(#loc1 at #loc2)), '
            '%arg1: tensor<8xf32> loc(#loc3)) -> (tensor<4x8xf32>, tensor<f32>) {\n'
            '    return %arg0, %c : tensor<4x8xf32>, tensor<f32>\n  }\n}\n')
    out = annotate_signature(text, "f", [["dtensor.spec = S"], ['dtensor.param = "b"']],
                             [["dtensor.spec = R"], []])
    assert out.splitlines()[1] == (
        '  func.func @f(%arg0: tensor<4x8xf32> {dtensor.spec = S} loc(callsite(#loc1 at #loc2)), '
        '%arg1: tensor<8xf32> {dtensor.param = "b"} loc(#loc3)) -> '
        '(tensor<4x8xf32> {dtensor.spec = R}, tensor<f32>) {')
    single = annotate_signature("func.func @g(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n}",
                                "g", [[]], [["x = 1"]])
    assert single.startswith("func.func @g(%arg0: tensor<2xf32>) -> (tensor<2xf32> {x = 1}) {")
    with pytest.raises(ValueError, match="has 1 arguments, expected 2"):
        annotate_signature(single, "g", [[], []], [[]])
