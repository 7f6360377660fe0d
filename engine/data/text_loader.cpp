// Labelled text to fixed-length sequences of word ids, as Keras' TextVectorization does
// for the IMDb tutorial (lowercase, strip "<br />", split into words).
#include "strata/data/loaders.h"

#include "strata/core/error.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>

namespace strata::data {

namespace {

namespace fs = std::filesystem;

// Beyond this an "integer label" is more likely an id than a class index.
constexpr int64_t kMaxIntegerLabel = 1'000'000;
// The most word ids one split's sequences may take (16 GiB of int32): examples times
// max_length beyond it is a max_length far too long for the data (or data far too big).
constexpr uint64_t kMaxSplitIds = uint64_t(1) << 32;

struct Example {
    std::string label;
    std::string text;
    std::string origin; // "line 12" or the file's path, for error messages
};

struct RawSplit {
    std::string path;
    bool directory = false;
    std::vector<std::string> classNames; // directory form: every sub-directory, sorted
    std::vector<Example> examples;
};

std::string readWholeFile(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw DataError(file.string(), std::string("cannot open: ") + std::strerror(errno));
    std::ostringstream out;
    out << in.rdbuf();
    if (in.bad())
        throw DataError(file.string(), "read error");
    return out.str();
}

std::string_view trim(std::string_view s)
{
    const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

RawSplit readLabelledLines(const std::string& file)
{
    RawSplit split;
    split.path = file;
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw DataError(file, std::string("cannot open: ") + std::strerror(errno));
    std::string line;
    int64_t lineNumber = 0;
    while (std::getline(in, line)) {
        ++lineNumber;
        if (trim(line).empty())
            continue;
        const size_t tab = line.find('\t');
        if (tab == std::string::npos)
            throw DataError(file, "line " + std::to_string(lineNumber) + " has no tab; expected \"label<TAB>text\"");
        const std::string_view label = trim(std::string_view(line).substr(0, tab));
        if (label.empty())
            throw DataError(file, "line " + std::to_string(lineNumber) + " has an empty label");
        split.examples.push_back({std::string(label), line.substr(tab + 1), "line " + std::to_string(lineNumber)});
    }
    if (in.bad())
        throw DataError(file, "read error after line " + std::to_string(lineNumber));
    return split;
}

std::vector<fs::path> sortedEntries(const fs::path& dir, bool directories)
{
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const bool match = directories ? it->is_directory(ec) : it->is_regular_file(ec);
        if (match)
            out.push_back(it->path());
    }
    if (ec)
        throw DataError(dir.string(), "cannot list the directory: " + ec.message());
    std::sort(out.begin(), out.end()); // directory order is arbitrary; sorting makes runs repeatable
    return out;
}

RawSplit readClassDirectories(const std::string& dir)
{
    RawSplit split;
    split.path = dir;
    split.directory = true;
    for (const fs::path& classDir : sortedEntries(dir, true)) {
        split.classNames.push_back(classDir.filename().string());
        for (const fs::path& file : sortedEntries(classDir, false))
            split.examples.push_back({split.classNames.back(), readWholeFile(file), file.string()});
    }
    if (split.classNames.empty())
        throw DataError(dir, "has no class sub-directories (expected one directory of text files per class)");
    return split;
}

RawSplit readSplit(const std::string& path)
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw DataError(path, "not found (expected a file of \"label<TAB>text\" lines or a directory with one "
                              "sub-directory per class)");
    RawSplit split = fs::is_directory(path, ec) ? readClassDirectories(path) : readLabelledLines(path);
    if (split.examples.empty())
        throw DataError(path, "contains no examples");
    return split;
}

std::optional<int64_t> parseClassIndex(const std::string& label)
{
    if (label.empty() || label.size() > 9 || !std::all_of(label.begin(), label.end(), [](char c) {
            return c >= '0' && c <= '9';
        }))
        return std::nullopt;
    return std::stoll(label);
}

// Class names to indices, fixed by the training split and applied to the test split.
class ClassMap {
public:
    explicit ClassMap(const RawSplit& train)
    {
        if (!train.directory) {
            m_integer = std::all_of(train.examples.begin(), train.examples.end(),
                                    [](const Example& e) { return parseClassIndex(e.label).has_value(); });
        }
        if (m_integer) {
            int64_t max = 0;
            for (const Example& e : train.examples) {
                const int64_t index = *parseClassIndex(e.label);
                if (index >= kMaxIntegerLabel)
                    throw DataError(train.path, e.origin + ": label " + e.label + " is too large for a class index");
                max = std::max(max, index);
            }
            m_count = max + 1;
            return;
        }
        std::vector<std::string> names = train.classNames;
        for (const Example& e : train.examples)
            names.push_back(e.label);
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        for (const std::string& name : names)
            m_indices.emplace(name, static_cast<int64_t>(m_indices.size()));
        m_count = static_cast<int64_t>(names.size());
    }

    int64_t count() const { return m_count; }

    std::optional<int64_t> index(const std::string& label) const
    {
        if (m_integer) {
            const auto index = parseClassIndex(label);
            if (index && *index < m_count)
                return index;
            return std::nullopt;
        }
        const auto it = m_indices.find(label);
        return it == m_indices.end() ? std::nullopt : std::optional<int64_t>(it->second);
    }

    std::string describe() const
    {
        if (m_integer)
            return "0.." + std::to_string(m_count - 1);
        std::string out;
        for (const auto& [name, index] : m_indices)
            out += (out.empty() ? "" : ", ") + name;
        return out;
    }

private:
    bool m_integer = false;
    int64_t m_count = 0;
    std::map<std::string, int64_t> m_indices;
};

bool isWordChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '\''; }

// End of an HTML tag starting at `open` ('<' then a letter, '/' or '!', up to the next '>'),
// or npos when the '<' is just a character.
size_t tagEnd(std::string_view text, size_t open)
{
    if (open + 1 >= text.size())
        return std::string_view::npos;
    const char next = text[open + 1];
    if (!((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') || next == '/' || next == '!'))
        return std::string_view::npos;
    const size_t close = text.find_first_of("<>", open + 1);
    return close != std::string_view::npos && text[close] == '>' ? close : std::string_view::npos;
}

// Calls emit(word) for each word of `text` until it returns false.
template<typename Emit>
void tokenize(std::string_view text, Emit&& emit)
{
    std::string word;
    bool more = true;
    const auto flush = [&] {
        const size_t first = word.find_first_not_of('\'');
        if (first != std::string::npos) {
            const size_t last = word.find_last_not_of('\'');
            more = emit(std::string_view(word).substr(first, last - first + 1));
        }
        word.clear();
    };
    for (size_t i = 0; i < text.size() && more; ++i) {
        char c = text[i];
        if (c == '<') {
            const size_t close = tagEnd(text, i);
            if (close != std::string_view::npos) {
                flush(); // a tag separates words, like the space Keras' tutorial puts there
                i = close;
                continue;
            }
        }
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
        if (isWordChar(c))
            word += c;
        else
            flush();
    }
    if (more)
        flush();
}

// Index 0 pads, 1 stands for every word outside the vocabulary.
constexpr int32_t kPadding = 0;
constexpr int32_t kOutOfVocabulary = 1;

std::unordered_map<std::string, int32_t> buildVocabulary(const RawSplit& train, int64_t vocabSize)
{
    std::unordered_map<std::string, int64_t> counts;
    for (const Example& e : train.examples)
        tokenize(e.text, [&](std::string_view word) {
            ++counts[std::string(word)];
            return true;
        });
    std::vector<std::pair<std::string, int64_t>> words(counts.begin(), counts.end());
    // Most frequent first; ties by word so the vocabulary does not depend on hash order.
    std::sort(words.begin(), words.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    const auto keep = static_cast<size_t>(std::max<int64_t>(vocabSize - 2, 0));
    if (words.size() > keep)
        words.resize(keep);
    std::unordered_map<std::string, int32_t> vocabulary;
    for (size_t i = 0; i < words.size(); ++i)
        vocabulary.emplace(std::move(words[i].first), static_cast<int32_t>(i + 2));
    return vocabulary;
}

std::shared_ptr<Dataset> encode(const RawSplit& split, const ClassMap& classes,
                                const std::unordered_map<std::string, int32_t>& vocabulary, int64_t maxLength,
                                const char* name)
{
    const auto length = static_cast<size_t>(maxLength);
    if (split.examples.size() > kMaxSplitIds / length)
        throw DataError(split.path, std::to_string(split.examples.size()) + " examples of " + std::to_string(maxLength)
                                        + " word ids each (max_length) are more than the "
                                        + std::to_string(kMaxSplitIds >> 30) + " Gi ids a split may take; "
                                        "lower data.source.max_length");
    std::vector<int32_t> ids(split.examples.size() * length, kPadding);
    std::vector<float> labels;
    labels.reserve(split.examples.size());
    std::string key;
    for (size_t i = 0; i < split.examples.size(); ++i) {
        const Example& e = split.examples[i];
        const auto index = classes.index(e.label);
        if (!index) {
            // Directory form names the class directory, file form the line.
            const std::string file = split.directory ? (fs::path(split.path) / e.label).string() : split.path;
            const std::string where = split.directory ? "class directory" : e.origin + ": label";
            throw DataError(file, where + " '" + e.label + "' is not a class of the training split (classes: "
                                      + classes.describe() + ")");
        }
        labels.push_back(static_cast<float>(*index));
        int32_t* out = ids.data() + i * length;
        size_t n = 0;
        tokenize(e.text, [&](std::string_view word) {
            key.assign(word);
            const auto it = vocabulary.find(key);
            out[n++] = it == vocabulary.end() ? kOutOfVocabulary : it->second;
            return n < length;
        });
    }
    const std::string description = std::string("text ") + name + " " + split.path + " ("
                                    + std::to_string(split.examples.size()) + " examples, "
                                    + std::to_string(classes.count()) + " classes)";
    auto dataset = std::make_shared<Dataset>(description, Shape{maxLength}, std::move(ids), 1.0f, Shape{},
                                             std::move(labels), classes.count());
    // For FILE sharding: a file of lines is one file; a directory holds one file per example.
    std::vector<int64_t> fileStarts(split.directory ? split.examples.size() : 1);
    std::iota(fileStarts.begin(), fileStarts.end(), int64_t{0});
    dataset->setFileStarts(std::move(fileStarts));
    return dataset;
}

} // namespace

DatasetSplits loadText(const std::string& train, const std::string& test, int64_t vocabSize, int64_t maxLength)
{
    STRATA_CHECK(vocabSize >= 2, "vocabulary size " + std::to_string(vocabSize) + " leaves no room for padding and "
                                 "out-of-vocabulary ids");
    STRATA_CHECK(maxLength >= 1, "sequence length " + std::to_string(maxLength));
    STRATA_CHECK(vocabSize <= INT32_MAX, "vocabulary size beyond int32 ids");

    const RawSplit trainSplit = readSplit(train);
    const ClassMap classes(trainSplit);
    const auto vocabulary = buildVocabulary(trainSplit, vocabSize);

    DatasetSplits splits;
    splits.train = encode(trainSplit, classes, vocabulary, maxLength, "train");
    if (!test.empty())
        splits.test = encode(readSplit(test), classes, vocabulary, maxLength, "test");
    return splits;
}

} // namespace strata::data
