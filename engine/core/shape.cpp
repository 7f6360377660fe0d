#include "strata/core/shape.h"

namespace strata {

int64_t Shape::numel() const
{
    int64_t n = 1;
    for (int64_t d : m_dims)
        n *= d;
    return n;
}

Shape Shape::withBatch(int64_t batch) const
{
    std::vector<int64_t> dims;
    dims.reserve(m_dims.size() + 1);
    dims.push_back(batch);
    dims.insert(dims.end(), m_dims.begin(), m_dims.end());
    return Shape(std::move(dims));
}

Shape Shape::withoutBatch() const
{
    if (m_dims.empty())
        return {};
    return Shape(std::vector<int64_t>(m_dims.begin() + 1, m_dims.end()));
}

namespace {
std::string join(const std::vector<int64_t>& dims, bool batchPlaceholder)
{
    std::string out = "(";
    bool first = true;
    if (batchPlaceholder) {
        out += "None";
        first = false;
    }
    for (int64_t d : dims) {
        if (!first)
            out += ", ";
        out += std::to_string(d);
        first = false;
    }
    if (dims.size() == 1 && !batchPlaceholder)
        out += ",";
    return out + ")";
}
} // namespace

std::string Shape::str() const { return join(m_dims, false); }
std::string Shape::strWithBatch() const { return join(m_dims, true); }

} // namespace strata
