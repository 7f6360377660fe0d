# Data module tests (included by tests/engine/CMakeLists.txt). data_test_files.h writes
# gzip files itself, hence zlib.
strata_add_test(tst_idx_loader SOURCES tst_idx_loader.cpp LIBS strata::engine ZLIB::ZLIB)
strata_add_test(tst_cifar10_loader SOURCES tst_cifar10_loader.cpp LIBS strata::engine ZLIB::ZLIB)
strata_add_test(tst_text_loader SOURCES tst_text_loader.cpp LIBS strata::engine)
strata_add_test(tst_synthetic SOURCES tst_synthetic.cpp LIBS strata::engine)
strata_add_test(tst_pipeline SOURCES tst_pipeline.cpp numbered_dataset.h LIBS strata::engine)
strata_add_test(tst_shard SOURCES tst_shard.cpp numbered_dataset.h LIBS strata::engine)
strata_add_test(tst_load_datasets SOURCES tst_load_datasets.cpp LIBS strata::engine ZLIB::ZLIB)
