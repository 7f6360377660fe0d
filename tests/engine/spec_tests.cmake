# Document-layer tests: link strata::schema only (no compute), as the app will.
strata_add_test(tst_model_spec SOURCES tst_model_spec.cpp LIBS strata::schema)
strata_add_test(tst_experiment SOURCES tst_experiment.cpp LIBS strata::schema)
target_compile_definitions(tst_experiment PRIVATE
  STRATA_EXPERIMENTS_DIR="${PROJECT_SOURCE_DIR}/resources/experiments")
strata_add_test(tst_cluster_spec SOURCES tst_cluster_spec.cpp LIBS strata::schema)
strata_add_test(tst_slurm_resolver SOURCES tst_slurm_resolver.cpp config_error_of.h LIBS strata::schema)
strata_add_test(tst_task_gpus SOURCES tst_task_gpus.cpp config_error_of.h LIBS strata::schema)
strata_add_test(tst_keras_format SOURCES tst_keras_format.cpp LIBS strata::schema)
strata_add_test(tst_event_types SOURCES tst_event_types.cpp LIBS strata::schema)
