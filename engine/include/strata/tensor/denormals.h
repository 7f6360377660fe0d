#pragma once
// Flushing subnormal floats to zero on the calling thread (and threads it creates later),
// as TensorFlow does in its compute threads. Arithmetic on subnormals is many times slower,
// and Adam's moments of parameters whose gradient stays zero (dead ReLU units) decay into
// that range after about a thousand steps.

namespace strata {

void flushDenormalsToZero();

} // namespace strata
