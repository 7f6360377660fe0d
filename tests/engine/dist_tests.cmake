# Distribution strategies and the collectives they use.
strata_add_test(tst_communicator SOURCES tst_communicator.cpp LIBS strata::engine)
strata_add_test(tst_strategies SOURCES tst_strategies.cpp LIBS strata::engine)
strata_add_test(tst_partitioner SOURCES tst_partitioner.cpp LIBS strata::engine)
# MultiWorkerMirrored's tuned buckets and algorithm: candidates, schedule, samples, decision.
strata_add_test(tst_reduction_tuner SOURCES tst_reduction_tuner.cpp LIBS strata::engine)

strata_add_test(tst_strategy_runs SOURCES tst_strategy_runs.cpp engine_process.h LIBS strata::engine)
target_compile_definitions(tst_strategy_runs PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>")
add_dependencies(tst_strategy_runs strata-engine)

# Multi-worker: the rendezvous and the Gloo process group (ranks as threads, real TCP).
strata_add_test(tst_process_group SOURCES tst_process_group.cpp LIBS strata::engine)

# MultiWorkerMirrored through real strata-engine processes: equivalence, faults, resume.
strata_add_test(tst_multi_worker SOURCES tst_multi_worker.cpp engine_process.h LIBS strata::engine Qt6::Core
                TIMEOUT 3600)
target_compile_definitions(tst_multi_worker PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>")
add_dependencies(tst_multi_worker strata-engine)

# ParameterServer's coordinator/worker messages: each writer read back by its reader.
strata_add_test(tst_ps_messages SOURCES tst_ps_messages.cpp LIBS strata::engine cppzmq)
target_include_directories(tst_ps_messages PRIVATE ${PROJECT_SOURCE_DIR}/engine)

# ParameterServer through real strata-engine processes: accuracy, equivalence, faults, security.
strata_add_test(tst_parameter_server SOURCES tst_parameter_server.cpp engine_job.h engine_process.h
                LIBS strata::engine Qt6::Core cppzmq TIMEOUT 3600)
target_compile_definitions(tst_parameter_server PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>"
                           STRATA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(tst_parameter_server strata-engine)
# Jobs of several engine processes: on a loaded 2-core machine a whole test function can take
# minutes. Their waits end on events; these deadlines are only for a hang.
set_property(TEST tst_multi_worker tst_parameter_server APPEND PROPERTY ENVIRONMENT "QTEST_FUNCTION_TIMEOUT=1800000")
