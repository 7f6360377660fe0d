#pragma once
// Writers for small data files in the real formats (IDX, gzip, CIFAR-10 binary, text), so
// the data tests exercise the loaders on files they build themselves, broken ones included.

#include <zlib.h>

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace datatest {

inline std::string path(const QString& dir, const QString& name) { return QDir(dir).filePath(name).toStdString(); }

inline void writeBytes(const std::string& file, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(QString::fromStdString(file)).absolutePath());
    QFile out(QString::fromStdString(file));
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size())
        throw std::runtime_error("cannot write test file " + file);
}

inline QByteArray readBytes(const std::string& file)
{
    QFile in(QString::fromStdString(file));
    if (!in.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read test file " + file);
    return in.readAll();
}

// gzip file (as gzip(1) writes it) with `bytes` as content.
inline void writeGzip(const std::string& file, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(QString::fromStdString(file)).absolutePath());
    gzFile gz = gzopen(file.c_str(), "wb");
    if (!gz)
        throw std::runtime_error("cannot write test file " + file);
    const int written = bytes.isEmpty() ? 0 : gzwrite(gz, bytes.constData(), static_cast<unsigned>(bytes.size()));
    gzclose(gz);
    if (written != bytes.size())
        throw std::runtime_error("cannot compress test file " + file);
}

// IDX: 0, 0, element type, rank, big-endian uint32 dims, then the values.
inline QByteArray idx(const std::vector<uint32_t>& dims, const std::vector<uint8_t>& values, uint8_t type = 0x08)
{
    QByteArray out;
    out.append(char(0)).append(char(0)).append(char(type)).append(char(dims.size()));
    for (uint32_t d : dims)
        for (int shift = 24; shift >= 0; shift -= 8)
            out.append(char((d >> shift) & 0xff));
    out.append(reinterpret_cast<const char*>(values.data()), static_cast<qsizetype>(values.size()));
    return out;
}

// `count` images of rows x cols with pixel (i, r, c) = (i * 31 + r * 7 + c * 3) % 256.
inline std::vector<uint8_t> pixels(uint32_t count, uint32_t rows, uint32_t cols)
{
    std::vector<uint8_t> out;
    for (uint32_t i = 0; i < count; ++i)
        for (uint32_t r = 0; r < rows; ++r)
            for (uint32_t c = 0; c < cols; ++c)
                out.push_back(uint8_t((i * 31 + r * 7 + c * 3) % 256));
    return out;
}

// The value CIFAR-10 record `record` holds for (channel, pixel) in its planes.
inline uint8_t cifarValue(int record, int channel, int pixel)
{
    return uint8_t((record * 13 + channel * 101 + pixel) % 256);
}

// CIFAR-10 binary batch: one label byte, then R, G and B planes of 1024 bytes each.
inline QByteArray cifarBatch(const std::vector<uint8_t>& labels, int firstRecord = 0)
{
    QByteArray out;
    for (size_t r = 0; r < labels.size(); ++r) {
        out.append(char(labels[r]));
        for (int c = 0; c < 3; ++c)
            for (int p = 0; p < 1024; ++p)
                out.append(char(cifarValue(firstRecord + int(r), c, p)));
    }
    return out;
}

} // namespace datatest
