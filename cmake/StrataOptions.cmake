# Build options and the per-target flags every Strata target gets (no global flags).
option(STRATA_BUILD_TESTS "Build the Qt Test suites" ON)
option(STRATA_BUILD_BENCH "Build the benchmark drivers" ON)
option(STRATA_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
# engine/, its tests and its benchmark drivers only: no app/, ui/ or packaging/, and Qt only
# for the tests (Qt Test). For a machine with CUDA, a compiler and CMake but no Qt or package
# archive (scripts/gpu-check.sh).
option(STRATA_ENGINE_ONLY "Build only the engine, its tests and its benchmark drivers" OFF)
# The libFuzzer targets (tests/fuzz, docs/fuzzing.md): needs clang; every Strata target is then
# built with coverage for libFuzzer, ASan and UBSan, and only the libraries the targets link
# are configured (no tests, ui/, benchmarks or packages). scripts/fuzz.sh builds it in build-fuzz/.
option(STRATA_FUZZ "Build the libFuzzer targets (clang, ASan, UBSan) instead of the app and its tests" OFF)

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

find_program(STRATA_CCACHE ccache)
if(STRATA_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${STRATA_CCACHE})
endif()

include(${CMAKE_CURRENT_LIST_DIR}/StrataCuda.cmake)

# strata_target_defaults(<target>): C++20, warnings, optional sanitizers.
function(strata_target_defaults target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  # CXX only: nvcc takes host-compiler warnings through -Xcompiler (StrataCuda.cmake).
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow
                                           -Wnon-virtual-dtor -Wno-missing-field-initializers>)
  if(STRATA_FUZZ)
    # Coverage for libFuzzer everywhere (the fuzz targets add the fuzzer's main); a UBSan
    # report stops the run like an ASan one, so the fuzzer counts it as a crash; libstdc++'s
    # checked operator[] and front() turn an out-of-range index into a report too.
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address,undefined
                                             -fno-sanitize-recover=undefined -fno-omit-frame-pointer
                                             -D_GLIBCXX_ASSERTIONS>)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  elseif(STRATA_SANITIZE)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined
                                             -fno-omit-frame-pointer>)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()
