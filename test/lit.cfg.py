# -*- Python -*-
import os
import shutil
import subprocess
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "DTENSOR"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dtensor_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%dtensor_src_root", config.dtensor_src_root))
config.substitutions.append(("%dtensor_obj_root", config.dtensor_obj_root))
config.substitutions.append(("%cmake_cxx", " ".join(
    ["-DCMAKE_MAKE_PROGRAM=" + config.cmake_make_program,
     "-DCMAKE_CXX_COMPILER=" + config.cxx_compiler]
    + (["-DCMAKE_CXX_COMPILER_LAUNCHER=" + config.cxx_launcher] if config.cxx_launcher else []))))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%python", config.python_executable or sys.executable))
config.substitutions.append(("%jsonq", "%s %s" % (config.python_executable or sys.executable, os.path.join(config.test_source_root, "Inputs", "jsonq.py"))))

llvm_config.use_default_substitutions()
llvm_config.with_system_environment(["HOME", "TMPDIR"])
tool_dirs = [config.dtensor_tools_dir, config.llvm_tools_dir]
tools = ["dtensor-opt", "dtensor-run", ToolSubst("%unittests", os.path.join(config.dtensor_obj_root, "unittests"))]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.dtensor_tools_dir, append_path=True)

if shutil.which("mlir-opt-22") or os.path.exists(os.path.join(config.llvm_tools_dir, "mlir-opt")):
    config.available_features.add("upstream-mlir-opt")

# The runtime (runtime/): its test driver under mpirun, and the shared library.
config.substitutions.append(("%dtrt_test", os.path.join(config.dtensor_tools_dir, "dtrt_test")))
config.substitutions.append(("%dtrt_lib", os.path.join(config.dtensor_obj_root, "lib", "libdtrt.so")))
# dtensor-run --threads runs the generated loops on OpenMP threads (libomp).
if config.dtensor_libomp and not config.dtensor_libomp.endswith("NOTFOUND"):
    config.available_features.add("libomp")
if config.mpirun:
    config.available_features.add("mpi")
    mpirun = config.mpirun
    # Open MPI refuses root (as in containers) and more ranks than cores
    # unless told.
    if "Open MPI" in subprocess.run([mpirun, "--version"], capture_output=True, text=True).stdout:
        mpirun += " --allow-run-as-root --oversubscribe"
    config.substitutions.append(("%mpirun", mpirun))
if config.dtrt_enable_cuda:
    config.available_features.add("dtrt-nccl")
    config.available_features.add("dtrt-cuda")
    # A visible NVIDIA GPU with a driver: the tests that run GPU code.
    smi = shutil.which("nvidia-smi")
    if smi and "GPU" in subprocess.run([smi, "-L"], capture_output=True, text=True).stdout:
        config.available_features.add("cuda-gpu")
    config.substitutions.append(("%cuda_include", os.path.join(config.dtrt_cuda_root, "include")))
    config.substitutions.append(("%cuda_stub_libcuda", os.path.join(config.dtrt_cuda_root, "lib64", "stubs", "libcuda.so")))
# Check prefixes that differ with and without the CUDA part or a GPU.
config.substitutions.append(("%{cuda_enabled}", "ON" if config.dtrt_enable_cuda else "OFF"))
config.substitutions.append(("%{cuda_gpu}", "GPU" if "cuda-gpu" in config.available_features else "NOGPU"))
# Host programs compiled against the runtime's headers and linked with it.
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%{dtrt_include}", os.path.join(config.dtensor_src_root, "runtime", "include")))
config.substitutions.append(("%{dtrt_libdir}", os.path.join(config.dtensor_obj_root, "lib")))

# dtensor-gpu-pipeline: the toolkit's ptxas assembles cubins (no GPU needed).
if config.cuda_toolkit and os.path.exists(os.path.join(config.cuda_toolkit, "bin", "ptxas")):
    config.available_features.add("ptxas")
    config.substitutions.append(("%cuda_toolkit", config.cuda_toolkit))
