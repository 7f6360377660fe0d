# The CUDA backend: its caching allocator (CPU-tested), every op against the CPU, and training
# on GPUs. The GPU tests skip, saying so, where there is no GPU or no CUDA backend; they carry
# the label `gpu` (scripts/gpu-check.sh runs them on a GPU machine: `ctest -L gpu`).
strata_add_test(tst_caching_allocator SOURCES tst_caching_allocator.cpp LIBS strata::engine)
strata_add_test(tst_gpu_ops SOURCES tst_gpu_ops.cpp layer_text.h LIBS strata::engine)
strata_add_test(tst_gpu_training SOURCES tst_gpu_training.cpp dist_test_helpers.h engine_process.h
  LIBS strata::engine)
target_compile_definitions(tst_gpu_training PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>"
  STRATA_EXPERIMENTS_DIR="${PROJECT_SOURCE_DIR}/resources/experiments")
add_dependencies(tst_gpu_training strata-engine)
set_tests_properties(tst_gpu_ops tst_gpu_training PROPERTIES LABELS gpu)

# The module itself, on any machine: loading it, its errors, and training with the CUDA
# toolkit hidden (a mount namespace: root).
strata_add_test(tst_gpu_module SOURCES tst_gpu_module.cpp engine_process.h datasets.h LIBS strata::engine)
if(STRATA_HAVE_CUDA)
  get_filename_component(cuda_root ${CUDAToolkit_BIN_DIR}/.. REALPATH)
else()
  set(cuda_root "")
endif()
target_compile_definitions(tst_gpu_module PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>"
  STRATA_CUDA_ROOT="${cuda_root}"
  STRATA_DEFAULT_EXPERIMENT="${PROJECT_SOURCE_DIR}/resources/experiments/fashion-mnist-mlp.strata.json")
add_dependencies(tst_gpu_module strata-engine)
