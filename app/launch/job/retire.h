#pragma once
// retire(): a QObject owned by a unique_ptr let go from inside a signal it may have sent.

#include <memory>

namespace strata::app {

// Moves `object` out to be deleted once control returns to the event loop: it may be the
// sender of the signal being handled.
template<typename T>
void retire(std::unique_ptr<T>& object)
{
    if (object)
        object.release()->deleteLater();
}

} // namespace strata::app
