#pragma once
// A duration in a message: "2.5 s", "600.0 s".

#include <cstdio>
#include <string>

namespace strata {

inline std::string secondsText(double seconds)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", seconds);
    return text;
}

} // namespace strata
