# The run layer and the strata-engine binary (real processes).
strata_add_test(tst_engine_cli SOURCES tst_engine_cli.cpp engine_process.h LIBS nlohmann_json::nlohmann_json)
target_compile_definitions(tst_engine_cli PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>"
  STRATA_HAVE_HDF5=$<BOOL:${STRATA_HAVE_HDF5}>)
add_dependencies(tst_engine_cli strata-engine)

# The step timeline's recorder, clock offsets and `trace` field (docs/timeline.md).
strata_add_test(tst_step_trace SOURCES tst_step_trace.cpp LIBS strata::engine)

strata_add_test(tst_checkpoint SOURCES tst_checkpoint.cpp LIBS strata::engine)

strata_add_test(tst_resume SOURCES tst_resume.cpp engine_process.h LIBS strata::engine)
# QT_NO_EMIT: the test calls EventSink::emit, which Qt's `emit` keyword would erase.
target_compile_definitions(tst_resume PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>" QT_NO_EMIT)
add_dependencies(tst_resume strata-engine)

# Three epochs of Fashion-MNIST (the MLP, the CNN with and without BatchNormalization): about
# 3 minutes on 2 cores, past QTest's 5-minute limit per function on a loaded machine.
strata_add_test(tst_fashion_mnist SOURCES tst_fashion_mnist.cpp engine_process.h LIBS nlohmann_json::nlohmann_json
  TIMEOUT 1200)
set_property(TEST tst_fashion_mnist APPEND PROPERTY ENVIRONMENT "QTEST_FUNCTION_TIMEOUT=1200000")
target_compile_definitions(tst_fashion_mnist PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>"
  STRATA_DEFAULT_EXPERIMENT="${PROJECT_SOURCE_DIR}/resources/experiments/fashion-mnist-mlp.strata.json"
  STRATA_EXPERIMENTS_DIR="${PROJECT_SOURCE_DIR}/resources/experiments")
add_dependencies(tst_fashion_mnist strata-engine)

strata_add_test(tst_task_supervisor SOURCES tst_task_supervisor.cpp engine_process.h dist_test_helpers.h
  LIBS nlohmann_json::nlohmann_json Qt6::Network)
target_compile_definitions(tst_task_supervisor PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>")
add_dependencies(tst_task_supervisor strata-engine)

strata_add_test(tst_text_lstm SOURCES tst_text_lstm.cpp engine_process.h LIBS nlohmann_json::nlohmann_json)
target_compile_definitions(tst_text_lstm PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>"
  STRATA_EXPERIMENTS_DIR="${PROJECT_SOURCE_DIR}/resources/experiments")
add_dependencies(tst_text_lstm strata-engine)
# Keras 3's model.weights.h5 (libhdf5); its structure test runs /usr/bin/python3 with h5py.
if(STRATA_HAVE_HDF5)
  strata_add_test(tst_keras_weights SOURCES tst_keras_weights.cpp LIBS strata::engine nlohmann_json::nlohmann_json)
endif()

# Resume safety: the fingerprint (unit), and the engine's refusals and choices (processes).
strata_add_test(tst_resume_fingerprint SOURCES tst_resume_fingerprint.cpp LIBS strata::engine)
strata_add_test(tst_resume_safety SOURCES tst_resume_safety.cpp engine_process.h engine_job.h LIBS strata::engine)
target_compile_definitions(tst_resume_safety PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>")
add_dependencies(tst_resume_safety strata-engine)

# Crash consistency: a checkpoint writer killed at random, and stopped between write, fsync
# and rename by an LD_PRELOAD library (no test hooks in the engine); the app's writers use the
# same library (tests/app).
add_library(strata_fault_injection SHARED fault_injection.cpp)
target_link_libraries(strata_fault_injection PRIVATE ${CMAKE_DL_LIBS})
target_compile_features(strata_fault_injection PRIVATE cxx_std_20)
add_executable(checkpoint_writer checkpoint_writer.cpp)
target_link_libraries(checkpoint_writer PRIVATE strata::engine)
strata_target_defaults(checkpoint_writer)
strata_add_test(tst_crash_consistency SOURCES tst_crash_consistency.cpp atomic_temporaries.h writer_process.h LIBS strata::engine)
target_compile_definitions(tst_crash_consistency PRIVATE STRATA_CHECKPOINT_WRITER="$<TARGET_FILE:checkpoint_writer>"
  STRATA_FAULT_INJECTION="$<TARGET_FILE:strata_fault_injection>")
add_dependencies(tst_crash_consistency checkpoint_writer strata_fault_injection)
# A full disk: a small tmpfs (root only; skipped with the reason otherwise).
strata_add_test(tst_full_disk SOURCES tst_full_disk.cpp atomic_temporaries.h engine_process.h LIBS strata::engine)
target_compile_definitions(tst_full_disk PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>")
add_dependencies(tst_full_disk strata-engine)

# Sizes declared in files and frames checked before allocation (checkpoints, IDX, text,
# rendezvous and ParameterServer frames); reads ps/transport.h, the engine's own header.
strata_add_test(tst_size_limits SOURCES tst_size_limits.cpp data_test_files.h dist_test_helpers.h
                LIBS strata::engine ZLIB::ZLIB cppzmq)
target_include_directories(tst_size_limits PRIVATE ${PROJECT_SOURCE_DIR}/engine)
