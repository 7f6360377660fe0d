#pragma once
// The text of the ConfigError a call throws, for tests of what the schema refuses and why.

#include "strata/core/error.h"

#include <QString>

// The ConfigError's text, or "" when `f` does not throw one.
template<typename F>
QString errorOf(F f)
{
    try {
        f();
    } catch (const strata::ConfigError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}
