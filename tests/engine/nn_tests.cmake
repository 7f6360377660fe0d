# Numerical correctness tests of the training engine's nn library (layers, losses,
# optimizers, activations, Sequential), against double-precision references.
strata_add_test(tst_layer_gradients SOURCES tst_layer_gradients.cpp gradcheck.h layer_text.h reference_ops.h LIBS strata::engine)
strata_add_test(tst_recurrent SOURCES tst_recurrent.cpp gradcheck.h layer_text.h LIBS strata::engine)
strata_add_test(tst_loss_gradients SOURCES tst_loss_gradients.cpp gradcheck.h reference_ops.h LIBS strata::engine)
strata_add_test(tst_optimizers SOURCES tst_optimizers.cpp LIBS strata::engine)
strata_add_test(tst_activations SOURCES tst_activations.cpp gradcheck.h reference_ops.h LIBS strata::engine)
strata_add_test(tst_sequential SOURCES tst_sequential.cpp gradcheck.h LIBS strata::engine)
strata_add_test(tst_loss_scale SOURCES tst_loss_scale.cpp LIBS strata::engine)
strata_add_test(tst_batch_normalization SOURCES tst_batch_normalization.cpp gradcheck.h layer_text.h LIBS strata::engine)
