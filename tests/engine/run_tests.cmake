# The run layer and the strata-engine binary (real processes).
strata_add_test(tst_engine_cli SOURCES tst_engine_cli.cpp engine_process.h LIBS nlohmann_json::nlohmann_json)
target_compile_definitions(tst_engine_cli PRIVATE STRATA_ENGINE_PATH="$<TARGET_FILE:strata-engine>")
add_dependencies(tst_engine_cli strata-engine)
