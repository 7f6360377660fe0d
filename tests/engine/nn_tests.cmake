# Numerical correctness tests of the training engine's nn library (layers, losses,
# optimizers, activations, Sequential), against double-precision references.
strata_add_test(tst_layer_gradients SOURCES tst_layer_gradients.cpp gradcheck.h reference_ops.h LIBS strata::engine)
strata_add_test(tst_loss_gradients SOURCES tst_loss_gradients.cpp gradcheck.h reference_ops.h LIBS strata::engine)
