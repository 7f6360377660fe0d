# engine/data sources (included by engine/CMakeLists.txt).
set(STRATA_DATA_SOURCES
  data/dataset.cpp
  data/pipeline.cpp
  data/shard.cpp
  data/idx_loader.cpp
  data/cifar10_loader.cpp
  data/text_loader.cpp
  data/synthetic.cpp
  data/load_datasets.cpp
)
