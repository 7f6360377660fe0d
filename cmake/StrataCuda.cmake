# The engine's CUDA backend is optional: it is built when a CUDA toolkit with cuBLAS, cuDNN and
# NCCL is found (at /usr/local/cuda, or CUDAToolkit_ROOT), and the engine builds without it
# otherwise (gpu:N devices then say that this build has no CUDA backend).
option(STRATA_CUDA "Build the engine's CUDA backend when a CUDA toolkit is found" ON)
set(STRATA_HAVE_CUDA OFF)
if(NOT STRATA_CUDA)
  return()
endif()

if(NOT DEFINED CUDAToolkit_ROOT AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
find_package(CUDAToolkit QUIET)
if(NOT CUDAToolkit_FOUND)
  message(STATUS "Strata: no CUDA toolkit found; building the engine without its CUDA backend")
  return()
endif()
find_path(STRATA_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(STRATA_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
find_path(STRATA_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(STRATA_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
if(NOT STRATA_CUDNN_LIBRARY OR NOT STRATA_CUDNN_INCLUDE_DIR OR NOT STRATA_NCCL_LIBRARY OR NOT STRATA_NCCL_INCLUDE_DIR)
  message(STATUS "Strata: CUDA ${CUDAToolkit_VERSION} found without cuDNN or NCCL; building without the CUDA backend")
  return()
endif()

if(NOT CMAKE_CUDA_COMPILER)
  set(CMAKE_CUDA_COMPILER ${CUDAToolkit_NVCC_EXECUTABLE})
endif()
# Explicit architectures: with no GPU present, "native" silently falls back (docs/decisions.md, Build).
# 80 (A100) and 90 (H100/H200) as SASS; 90's PTX also serves newer GPUs.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 80-real 90)
endif()
if(STRATA_CCACHE)
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${STRATA_CCACHE})
endif()
enable_language(CUDA)
set(STRATA_HAVE_CUDA ON)

# The module's place in an installation, relative to the prefix.
set(STRATA_CUDA_MODULE_DIR lib/strata)
add_library(strata_cuda_libs INTERFACE)
target_include_directories(strata_cuda_libs SYSTEM INTERFACE ${STRATA_CUDNN_INCLUDE_DIR} ${STRATA_NCCL_INCLUDE_DIR})
target_link_libraries(strata_cuda_libs INTERFACE CUDA::cudart CUDA::cublas CUDA::cublasLt ${STRATA_CUDNN_LIBRARY}
                                                 ${STRATA_NCCL_LIBRARY} ${CMAKE_DL_LIBS})
message(STATUS "Strata: CUDA backend on (CUDA ${CUDAToolkit_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
