// Slurm's compact lists, expanded as TensorFlow's slurm_cluster_resolver.py expands them:
// hostlists ("n[1-3],m5") and tasks per node ("3(x2),1").

#include "strata/schema/slurm_resolver.h"

#include <algorithm>
#include <cctype>

namespace strata::schema {

namespace {

// Expanding more than this many names is a typo ("n[1-99999999]"), not a cluster: refused
// before it takes the memory.
constexpr int64_t kMostHosts = 1 << 20;

bool allDigits(const std::string& s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// A whole number of at most 9 digits written in `text`, or -1.
int64_t smallNumber(const std::string& text)
{
    return allDigits(text) && text.size() <= 9 ? std::stoll(text) : -1;
}

std::vector<std::string> split(const std::string& s, char separator)
{
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t at; (at = s.find(separator, start)) != std::string::npos; start = at + 1)
        parts.push_back(s.substr(start, at - start));
    parts.push_back(s.substr(start));
    return parts;
}

class HostlistError {
public:
    explicit HostlistError(std::string why) : m_why(std::move(why)) {}
    const std::string& why() const { return m_why; }

private:
    std::string m_why;
};

// The hostlist's names and bracketed names, split at the commas outside brackets.
std::vector<std::string> splitOutsideBrackets(const std::string& hostlist)
{
    std::vector<std::string> parts;
    std::string current;
    bool inBrackets = false;
    for (const char c : hostlist) {
        if (inBrackets && c == '[')
            throw HostlistError("\"[\" inside brackets");
        if (c == '[' || c == ']')
            inBrackets = c == '[';
        if (c == ',' && !inBrackets) {
            if (current.empty())
                throw HostlistError("an empty name before a \",\"");
            parts.push_back(current);
            current.clear();
            continue;
        }
        current += c;
    }
    if (!current.empty()) // a trailing comma is accepted, as by TensorFlow
        parts.push_back(current);
    return parts;
}

// "1-3,5" inside brackets: the numbers, each as wide as the range's first bound ("009").
void expandRanges(const std::string& prefix, const std::string& ranges, std::vector<std::string>& hosts)
{
    for (const std::string& range : split(ranges, ',')) {
        std::vector<std::string> bounds = split(range, '-');
        if (bounds.size() == 1)
            bounds.push_back(bounds[0]);
        if (bounds.size() != 2)
            throw HostlistError("\"" + range + "\" is not a number or a range \"first-last\"");
        const int64_t first = smallNumber(bounds[0]), last = smallNumber(bounds[1]);
        if (first < 0 || last < 0)
            throw HostlistError("\"" + range + "\" is not a number or a range \"first-last\"");
        if (last < first)
            throw HostlistError("the range \"" + range + "\" runs backwards");
        if (static_cast<int64_t>(hosts.size()) + last - first + 1 > kMostHosts)
            throw HostlistError("more than " + std::to_string(kMostHosts) + " hosts");
        for (int64_t i = first; i <= last; ++i) {
            std::string digits = std::to_string(i);
            if (digits.size() < bounds[0].size())
                digits.insert(0, bounds[0].size() - digits.size(), '0');
            hosts.push_back(prefix + digits);
        }
    }
}

} // namespace

std::vector<std::string> expandHostlist(const std::string& hostlist, const std::string& path)
{
    std::vector<std::string> hosts;
    try {
        for (const std::string& part : splitOutsideBrackets(hostlist)) {
            // A name, then at most one bracketed range, last (as TensorFlow reads it).
            const size_t open = part.find('[');
            const std::string prefix = part.substr(0, open);
            if (prefix.find(']') != std::string::npos)
                throw HostlistError("\"]\" without \"[\" in \"" + part + "\"");
            if (open == std::string::npos) {
                hosts.push_back(part);
                continue;
            }
            const size_t close = part.find(']', open);
            if (close == std::string::npos)
                throw HostlistError("\"[\" without \"]\" in \"" + part + "\"");
            if (close + 1 != part.size())
                throw HostlistError("text after \"]\" in \"" + part + "\" (the range must come last)");
            if (close == open + 1)
                throw HostlistError("empty brackets in \"" + part + "\"");
            expandRanges(prefix, part.substr(open + 1, close - open - 1), hosts);
        }
    } catch (const HostlistError& e) {
        throw ConfigError(path, "invalid hostlist " + quoted(hostlist) + ": " + e.why());
    }
    return hosts;
}

std::vector<int64_t> expandTasksPerNode(const std::string& spec, const std::string& path)
{
    std::vector<int64_t> counts;
    for (const std::string& part : split(spec, ',')) {
        // "N" or "N(xR)": N tasks on each of R nodes.
        const size_t paren = part.find("(x");
        const int64_t tasks = smallNumber(part.substr(0, paren));
        int64_t repeats = 1;
        if (paren != std::string::npos)
            repeats = part.back() == ')' ? smallNumber(part.substr(paren + 2, part.size() - paren - 3)) : -1;
        if (tasks < 0 || repeats < 0)
            throw ConfigError(path, "invalid tasks-per-node list " + quoted(spec) + ": \"" + part +
                                        "\" is not \"N\" or \"N(xR)\" (N tasks on each of R nodes)");
        if (static_cast<int64_t>(counts.size()) + repeats > kMostHosts)
            throw ConfigError(path, "invalid tasks-per-node list " + quoted(spec) + ": more than " +
                                        std::to_string(kMostHosts) + " nodes");
        counts.insert(counts.end(), repeats, tasks);
    }
    return counts;
}

} // namespace strata::schema
