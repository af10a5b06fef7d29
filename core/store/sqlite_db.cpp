// SPDX-License-Identifier: GPL-3.0-or-later
#include "sqlite_db.h"

#include "files/safe_file.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QThread>
#include <QUrl>

#include <sqlite3.h>

#include <cmath>

namespace commprof::store {
namespace {

constexpr int kBusyTimeoutMs = 10000;

[[noreturn]] void fail(sqlite3* db, const QString& what) {
    throw StoreError((what + ": " + (db ? sqlite3_errmsg(db) : "out of memory")).toStdString());
}

// A file: URI for sqlite3_open_v2, with the characters a URI gives meaning to escaped.
QByteArray fileUri(const QString& path, const char* query) {
    return "file:" + QUrl::toPercentEncoding(QFileInfo(path).absoluteFilePath(), "/") + "?" + query;
}

} // namespace

Database::Database(const QString& path, OpenMode mode) : path_(path) {
    // A link at the database or beside it would put the database, or its journal, elsewhere.
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
        if (mode != OpenMode::Memory && files::isLink(path + suffix)) {
            throw StoreError(files::linkRefused(path + suffix).toStdString());
        }
    }
    const int rc =
        mode == OpenMode::ReadWrite
            ? sqlite3_open_v2(path.toUtf8().constData(), &db_,
                              SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW,
                              nullptr)
        : mode == OpenMode::ReadOnly
            ? sqlite3_open_v2(fileUri(path, "immutable=1").constData(), &db_,
                              SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOFOLLOW,
                              nullptr)
            : sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE, nullptr);
    if (rc != SQLITE_OK) {
        const QString msg = path + ": cannot open database: " + (db_ ? sqlite3_errmsg(db_) : "");
        sqlite3_close(db_);
        db_ = nullptr;
        throw StoreError(msg.toStdString());
    }
    if (mode != OpenMode::ReadWrite) {
        return;
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    // WAL lets the GUI read while an ingest writes. Switching a new database to it needs an
    // exclusive lock for which SQLite does not call the busy handler, so two first ingests
    // of one folder would see "database is locked": wait for the other as the timeout says.
    QElapsedTimer waited;
    waited.start();
    while (sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr) == SQLITE_BUSY &&
           waited.elapsed() < kBusyTimeoutMs) {
        QThread::msleep(10);
    }
    exec("PRAGMA journal_mode=WAL"); // now, or with the error that says why not
    exec("PRAGMA synchronous=NORMAL");
    exec("PRAGMA foreign_keys=ON");
}

void Database::copyFrom(Database& from) {
    sqlite3_backup* b = sqlite3_backup_init(db_, "main", from.db_, "main");
    if (!b) {
        fail(db_, path_ + ": cannot copy " + from.path_);
    }
    const int rc = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        throw StoreError((from.path_ + ": cannot read: " + sqlite3_errstr(rc)).toStdString());
    }
}

Database::~Database() {
    sqlite3_close(db_);
}

void Database::exec(const QString& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.toUtf8().constData(), nullptr, nullptr, &err) != SQLITE_OK) {
        const QString msg = path_ + ": " + (err ? err : "error") + " in: " + sql.left(120);
        sqlite3_free(err);
        throw StoreError(msg.toStdString());
    }
}

Statement Database::prepare(const QString& sql) {
    return Statement(db_, sql);
}

int Database::userVersion() {
    Statement s = prepare("PRAGMA user_version");
    return s.step() ? s.column(0).toInt() : 0;
}

Statement::Statement(sqlite3* db, const QString& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.toUtf8().constData(), -1, &stmt_, nullptr) != SQLITE_OK) {
        fail(db, "cannot prepare '" + sql.left(120) + "'");
    }
}

Statement::~Statement() {
    sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), next_(other.next_) {
    other.stmt_ = nullptr;
}

Statement& Statement::bind(const QVariant& v) {
    const int i = next_++;
    int rc = SQLITE_OK;
    if (!v.isValid() || v.isNull()) {
        rc = sqlite3_bind_null(stmt_, i);
    } else {
        switch (v.typeId()) {
        case QMetaType::Int:
        case QMetaType::LongLong:
        case QMetaType::Bool:
        case QMetaType::UInt:
        case QMetaType::ULongLong:
            rc = sqlite3_bind_int64(stmt_, i, v.toLongLong());
            break;
        case QMetaType::Double:
            rc = std::isfinite(v.toDouble()) ? sqlite3_bind_double(stmt_, i, v.toDouble())
                                             : sqlite3_bind_null(stmt_, i);
            break;
        default: {
            const QByteArray text = v.toString().toUtf8();
            rc = sqlite3_bind_text(stmt_, i, text.constData(), int(text.size()), SQLITE_TRANSIENT);
        }
        }
    }
    if (rc != SQLITE_OK) {
        fail(db_, "cannot bind");
    }
    return *this;
}

Statement& Statement::bindAll(const QVariantList& values) {
    for (const QVariant& v : values) {
        bind(v);
    }
    return *this;
}

bool Statement::step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) {
        return true;
    }
    if (rc != SQLITE_DONE) {
        fail(db_, "step failed");
    }
    return false;
}

void Statement::run() {
    while (step()) {
    }
    reset();
}

void Statement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    next_ = 1;
}

int Statement::columnCount() const {
    return sqlite3_column_count(stmt_);
}

QVariant Statement::column(int i) const {
    switch (sqlite3_column_type(stmt_, i)) {
    case SQLITE_INTEGER:
        return QVariant(qlonglong(sqlite3_column_int64(stmt_, i)));
    case SQLITE_FLOAT:
        return QVariant(sqlite3_column_double(stmt_, i));
    case SQLITE_NULL:
        return {};
    default:
        return QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(stmt_, i)));
    }
}

Transaction::Transaction(Database& db) : db_(db) {
    db_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
    if (!done_) {
        try {
            db_.exec("ROLLBACK");
        } catch (const StoreError&) {
        }
    }
}

void Transaction::commit() {
    db_.exec("COMMIT");
    done_ = true;
}

} // namespace commprof::store
