#pragma once
// A file replaced atomically: written to a temporary beside it (`<path>.tmp-<pid>`: tasks of a
// job may replace the same file at once), fsynced, renamed over `path`, and the directory
// fsynced. A reader, or a crash or a kill at any point, finds the previous file or the new
// one, whole. Any failure throws IoError naming `path` and the cause (a full disk: "No space
// left on device"), with the temporary removed and the previous file untouched.
//
// Used by one thread at a time.

#include <string>

namespace strata::run {

class AtomicFile {
public:
    // Creates the temporary. `what` names the file in messages ("checkpoint", "file").
    AtomicFile(std::string path, std::string what = "file");
    // Removes the temporary unless commit() succeeded.
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const void* data, size_t size);
    void write(const std::string& text) { write(text.data(), text.size()); }
    // fsync, close, rename over the path, fsync of the directory.
    void commit();

    const std::string& path() const { return m_path; }
    const std::string& temporary() const { return m_tmp; }

private:
    [[noreturn]] void fail(const std::string& step, int error);

    std::string m_path, m_tmp, m_what;
    int m_fd = -1;
    bool m_committed = false;
};

// Whether `name` is the temporary of an AtomicFile (left behind by a process that was killed).
bool isAtomicFileTemporary(const std::string& name);

// fsync of a directory: the renames and new names in it survive a crash. IoError when the
// directory cannot be opened or synced.
void syncDirectory(const std::string& dir);

} // namespace strata::run
