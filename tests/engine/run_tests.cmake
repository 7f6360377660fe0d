# The run layer and the strata-engine binary (real processes).
strata_add_test(tst_engine_cli SOURCES tst_engine_cli.cpp engine_process.h LIBS nlohmann_json::nlohmann_json)
target_compile_definitions(tst_engine_cli PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>"
  STRATA_HAVE_HDF5=$<BOOL:${STRATA_HAVE_HDF5}>)
add_dependencies(tst_engine_cli strata-engine)

strata_add_test(tst_checkpoint SOURCES tst_checkpoint.cpp LIBS strata::engine)

strata_add_test(tst_resume SOURCES tst_resume.cpp engine_process.h LIBS strata::engine)
target_compile_definitions(tst_resume PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>")
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

# Sizes declared in files and frames checked before allocation (checkpoints, IDX, text,
# rendezvous and ParameterServer frames); reads ps/transport.h, the engine's own header.
strata_add_test(tst_size_limits SOURCES tst_size_limits.cpp data_test_files.h dist_test_helpers.h
                LIBS strata::engine ZLIB::ZLIB cppzmq)
target_include_directories(tst_size_limits PRIVATE ${PROJECT_SOURCE_DIR}/engine)
