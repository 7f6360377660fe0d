#include "strata/schema/experiment.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace strata::schema {

namespace fs = std::filesystem;

Json parseJsonText(const std::string& text, const std::string& sourceName)
{
    // Line and column (1-based) of `offset`, and nlohmann's message without its prefix
    // ("[json.exception.parse_error.101] parse error at line 3, column 5: ").
    const auto fail = [&](size_t offset, std::string what) {
        int line = 1, column = 1;
        for (size_t i = 0; i < std::min(offset, text.size()); ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        if (auto pos = what.find("] "); pos != std::string::npos && what.starts_with("[json"))
            what = what.substr(pos + 2);
        if (auto pos = what.find(": "); pos != std::string::npos && what.starts_with("parse error"))
            what = what.substr(pos + 2);
        if (auto pos = what.find("syntax error while parsing value - "); pos != std::string::npos)
            what = what.substr(pos + 35);
        throw ParseError(sourceName, line, column, what);
    };
    try {
        return Json::parse(text);
    } catch (const Json::parse_error& e) {
        // e.byte is the 1-based offset where parsing stopped.
        fail(e.byte == 0 ? 0 : e.byte - 1, e.what());
    } catch (const Json::out_of_range& e) {
        // A number beyond a double ("number overflow parsing '1e400'"): nlohmann quotes it but
        // does not say where it is; its first occurrence is.
        const std::string what = e.what();
        const size_t open = what.find('\''), close = what.rfind('\'');
        const size_t at = open < close ? text.find(what.substr(open + 1, close - open - 1)) : std::string::npos;
        fail(at == std::string::npos ? 0 : at, what);
    }
    return {}; // not reached: fail() throws
}

Json readJsonFile(const std::string& file)
{
    // Names come from documents ("model": "keras.json"): a directory or a device (/dev/zero,
    // which never ends) is refused by name, and no document is read beyond a sane size.
    constexpr size_t kMaxDocumentBytes = size_t(256) << 20;
    std::error_code ec;
    const fs::file_status status = fs::status(file, ec);
    if (fs::is_directory(status))
        throw IoError(file + ": is a directory, not a JSON file");
    if (fs::is_character_file(status) || fs::is_block_file(status))
        throw IoError(file + ": is a device, not a JSON file");
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw IoError(file + ": cannot open: " + std::strerror(errno));
    std::string text;
    char chunk[64 << 10];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        text.append(chunk, static_cast<size_t>(in.gcount()));
        if (text.size() > kMaxDocumentBytes)
            throw IoError(file + ": is larger than " + std::to_string(kMaxDocumentBytes >> 20) +
                          " MiB, too large for an experiment or model document");
    }
    if (in.bad())
        throw IoError(file + ": read error: " + std::strerror(errno));
    return parseJsonText(text, file);
}

} // namespace strata::schema
