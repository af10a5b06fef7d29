// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A thin RAII layer over the SQLite C API: a connection, prepared statements, transactions.

#include <QString>
#include <QVariant>

#include <optional>
#include <stdexcept>
#include <tuple>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace commprof::store {

struct StoreError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Statement;

// ReadWrite opens (creating) and turns on WAL. ReadOnly opens an existing file as immutable:
// no lock, no -shm or -wal is made, so a folder nobody may write to can be read (a -wal left
// beside it is not read). Memory is a private database that nothing else sees; `path` only
// names it in messages.
enum class OpenMode { ReadWrite, ReadOnly, Memory };

class Database {
public:
    explicit Database(const QString& path,
                      OpenMode mode = OpenMode::ReadWrite); // throws StoreError
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    void exec(const QString& sql);
    Statement prepare(const QString& sql);
    int userVersion();
    // Replaces this database's content with `from`'s (SQLite's online backup).
    void copyFrom(Database& from);
    const QString& path() const { return path_; }

private:
    QString path_;
    sqlite3* db_ = nullptr;
};

class Statement {
public:
    Statement(sqlite3* db, const QString& sql);
    ~Statement();
    Statement(Statement&& other) noexcept;
    Statement(const Statement&) = delete;

    // Binds in order; a null QVariant (or a NaN) binds SQL NULL.
    Statement& bind(const QVariant& value);
    Statement& bindAll(const QVariantList& values);
    bool step(); // true while a row is available
    void run();  // step to completion, then reset for reuse
    void reset();
    QVariant column(int i) const;
    int columnCount() const;

private:
    sqlite3* db_;
    sqlite3_stmt* stmt_ = nullptr;
    int next_ = 1;
};

// A figure that may be absent, as SQL NULL, and back.
inline QVariant nullable(const std::optional<double>& v) {
    return v ? QVariant(*v) : QVariant();
}

// Columns first, first + 1, ... of the statement's row into `out...`, each read as its type
// (an optional double reads NULL as absent).
template <typename T> void columnInto(const QVariant& v, T& out) {
    out = v.value<T>();
}
inline void columnInto(const QVariant& v, std::optional<double>& out) {
    out = v.isNull() ? std::nullopt : std::optional<double>(v.toDouble());
}
template <typename... T> void readColumns(const Statement& s, int first, T&... out) {
    (columnInto(s.column(first++), out), ...);
}
// Every row the statement steps to as a T, its columns read (readColumns) into the members
// `fields` ties: [](Row& r) { return std::tie(r.a, r.b); }.
template <typename T, typename Fields> std::vector<T> readRows(Statement& s, Fields fields) {
    std::vector<T> out;
    while (s.step()) {
        std::apply([&s](auto&... f) { readColumns(s, 0, f...); }, fields(out.emplace_back()));
    }
    return out;
}

// BEGIN IMMEDIATE ... COMMIT, rolled back if not committed.
class Transaction {
public:
    explicit Transaction(Database& db);
    ~Transaction();
    void commit();

private:
    Database& db_;
    bool done_ = false;
};

} // namespace commprof::store
