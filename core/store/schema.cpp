// SPDX-License-Identifier: GPL-3.0-or-later
#include "schema.h"

#include "store/cell_sql.h"

#include <QStringList>

namespace commprof::store {
namespace {

// Migration N takes the schema from version N-1 to N. Never edit one that has shipped.
const QStringList kMigrations = {
    // 1: the tables
    R"(
CREATE TABLE schema_version(version INTEGER NOT NULL, applied_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE runs(dir TEXT PRIMARY KEY, matrix TEXT, started_at TEXT, run_json TEXT);
CREATE TABLE cells(
  key TEXT PRIMARY KEY, run_dir TEXT NOT NULL, id TEXT NOT NULL, status TEXT NOT NULL, reasons TEXT NOT NULL,
  world_size INTEGER, layer TEXT, interconnect TEXT, model TEXT, family TEXT, params REAL, backend TEXT,
  device TEXT, repeat INTEGER, feasible INTEGER, binding TEXT,
  step_ms REAL, hook_comm_ms REAL, trace_comm_ms REAL, hook_trace_agreement REAL, agreement_flagged INTEGER,
  overlap_efficiency REAL, comm_overhead_fraction REAL, exposed_comm_ms REAL, compute_ms REAL, bookkeeping_ms REAL,
  peak_host_bytes REAL, peak_device_bytes REAL, host_demand_bytes REAL, device_demand_bytes REAL);
CREATE TABLE ranks(cell_key TEXT NOT NULL, rank INTEGER NOT NULL, torch_version TEXT, param_checksum REAL,
  grad_checksums_agree INTEGER, signature TEXT, peak_host_bytes REAL, peak_device_bytes REAL,
  PRIMARY KEY(cell_key, rank));
CREATE TABLE iterations(cell_key TEXT NOT NULL, rank INTEGER NOT NULL, iter INTEGER NOT NULL, forward_ms REAL,
  backward_ms REAL, optimizer_ms REAL, step_ms REAL, PRIMARY KEY(cell_key, rank, iter));
CREATE TABLE buckets(cell_key TEXT NOT NULL, rank INTEGER NOT NULL, iter INTEGER NOT NULL, idx INTEGER NOT NULL,
  bytes INTEGER, nparams INTEGER, start_ns INTEGER, end_ns INTEGER, PRIMARY KEY(cell_key, rank, iter, idx));
CREATE TABLE trace_steps(cell_key TEXT NOT NULL, rank INTEGER NOT NULL, step INTEGER NOT NULL, start_us REAL,
  end_us REAL, step_us REAL, compute_us REAL, comm_us REAL, bookkeeping_us REAL, overlap_us REAL,
  exposed_comm_us REAL, overlap_efficiency REAL, comm_overhead_fraction REAL, PRIMARY KEY(cell_key, rank, step));
CREATE TABLE estimates(cell_key TEXT NOT NULL, pool TEXT NOT NULL, term TEXT NOT NULL, bytes REAL,
  PRIMARY KEY(cell_key, pool, term));
)",
    // 2: the lookups the views make per cell
    R"(
CREATE INDEX cells_by_run ON cells(run_dir, id);
CREATE INDEX buckets_by_size ON buckets(cell_key, bytes);
)",
    // 3: both instruments on every rank, the per-bucket match, and the spread across ranks
    R"(
ALTER TABLE cells ADD COLUMN hook_total_ms REAL;
ALTER TABLE cells ADD COLUMN backend_total_ms REAL;
ALTER TABLE cells ADD COLUMN agreement_steps INTEGER;
ALTER TABLE cells ADD COLUMN agreement_reason TEXT;
ALTER TABLE cells ADD COLUMN backend_source TEXT;
ALTER TABLE cells ADD COLUMN buckets_compared INTEGER;
ALTER TABLE cells ADD COLUMN buckets_matched INTEGER;
ALTER TABLE cells ADD COLUMN slowest_rank INTEGER;
ALTER TABLE cells ADD COLUMN median_skew_ms REAL;
CREATE TABLE rank_figures(cell_key TEXT NOT NULL, rank INTEGER NOT NULL, step_ms REAL, comm_ms REAL,
  exposed_comm_ms REAL, hook_ms REAL, backend_ms REAL, agreement REAL, agreement_flagged INTEGER,
  agreement_reason TEXT, trace_error TEXT, PRIMARY KEY(cell_key, rank));
CREATE TABLE bucket_matches(cell_key TEXT NOT NULL, rank INTEGER NOT NULL, iter INTEGER NOT NULL,
  idx INTEGER NOT NULL, hook_us REAL, backend_us REAL, PRIMARY KEY(cell_key, rank, iter, idx));
CREATE TABLE step_spread(cell_key TEXT NOT NULL, step INTEGER NOT NULL, skew_ms REAL, slowest_rank INTEGER,
  PRIMARY KEY(cell_key, step));
)",
    // 4: collective sweeps (kind: sweep cells) and the DDP prediction made from them
    R"(
ALTER TABLE cells ADD COLUMN kind TEXT NOT NULL DEFAULT 'ddp';
CREATE TABLE sweep_points(cell_key TEXT NOT NULL, kind TEXT NOT NULL, bytes REAL NOT NULL, time_us REAL,
  typical_us REAL, slowest_rank INTEGER, algbw_gbps REAL, busbw_gbps REAL, PRIMARY KEY(cell_key, kind, bytes));
CREATE TABLE sweep_fits(cell_key TEXT NOT NULL, kind TEXT NOT NULL, unsupported TEXT, refused INTEGER,
  reason TEXT, method TEXT, alpha_us REAL, beta_us_per_byte REAL, r2 REAL, sizes INTEGER, from_bytes REAL,
  to_bytes REAL, left_out_from_bytes REAL, note TEXT, PRIMARY KEY(cell_key, kind));
CREATE TABLE ddp_predictions(cell_key TEXT PRIMARY KEY, sweep_cell TEXT, note TEXT, steps INTEGER,
  host_cpus INTEGER, sweep_ms REAL, predicted_ms REAL, fit_ms REAL, measured_ms REAL, measured_min_ms REAL, measured_max_ms REAL, wait_ms REAL,
  queued_ms REAL, backend_ms REAL);
CREATE TABLE bucket_predictions(cell_key TEXT NOT NULL, idx INTEGER NOT NULL, bytes REAL, sweep_us REAL,
  cpu_share REAL, predicted_us REAL,
  fit_us REAL, measured_us REAL, wait_us REAL, queued_us REAL, samples INTEGER, PRIMARY KEY(cell_key, idx));
)",
    // 5: only the `cells` columns of cell_columns.cpp
    "",
    // 6: what each cell's rows were made from, so that an unchanged cell is not read again
    // (cell_fingerprint.h). `shape` is the layer and world size that pair a DDP cell with a
    // sweep, `sweep_source` whether a sweep cell can predict that shape, `depends` the sweep and
    // host figures a DDP cell's prediction was made from. Also the DDP logger's `cells` columns
    // (cell_columns.cpp, since 6).
    R"(
CREATE TABLE cell_sources(cell_key TEXT PRIMARY KEY, run_dir TEXT NOT NULL, files TEXT NOT NULL,
  shape TEXT NOT NULL, sweep_source INTEGER NOT NULL, depends TEXT NOT NULL);
)",
    // 7: what `recommend` reads (store/study_cells.h), so that neither it nor the report reads a
    // rank file again after ingest: cell.json's record as parsed, each rank's parameters in
    // registration order, and the two rank fields the step model takes. The schema version is
    // in every cell's fingerprint, so each cell is read again once to fill them.
    R"(
ALTER TABLE ranks ADD COLUMN record_from_iteration INTEGER;
ALTER TABLE ranks ADD COLUMN powersgd_rank INTEGER;
CREATE TABLE parameters(cell_key TEXT NOT NULL, rank INTEGER NOT NULL, idx INTEGER NOT NULL, name TEXT,
  shape TEXT, bytes REAL, PRIMARY KEY(cell_key, rank, idx));
CREATE TABLE cell_records(cell_key TEXT PRIMARY KEY, id TEXT, kind TEXT, status TEXT, model TEXT, layer TEXT,
  world_size INTEGER, bucket_cap_mb REAL, first_bucket_mb REAL, hook TEXT, link TEXT, config TEXT);
)",
};

// The migrations above spell out their `cells` columns; a column added later is declared once,
// in cell_columns.cpp, with the version that adds it, and its ALTER TABLE derives from that.
constexpr int kCellsColumnsSpelledOutUpTo = 4;

QString migrationTo(int version) {
    QString sql = version <= kMigrations.size() ? kMigrations[version - 1] : QString();
    if (version > kCellsColumnsSpelledOutUpTo) {
        sql += cellsColumnsAddedIn(version, cellColumns());
    }
    return sql;
}

} // namespace

void migrate(Database& db) {
    if (db.userVersion() == kSchemaVersion) {
        return; // the common case, and the only one a read-only database can be in
    }
    // One writer at a time (BEGIN IMMEDIATE), and the version read again inside the
    // transaction: two processes migrating a new database at once apply each migration once.
    Transaction t(db);
    int version = db.userVersion();
    if (version > kSchemaVersion) {
        throw StoreError(QString("%1: database schema version %2 is newer than this build's %3")
                             .arg(db.path())
                             .arg(version)
                             .arg(kSchemaVersion)
                             .toStdString());
    }
    // Another process may have migrated it meanwhile: then there is nothing left to apply.
    while (version < kSchemaVersion) {
        ++version;
        db.exec(migrationTo(version));
        db.exec(QString("INSERT INTO schema_version(version) VALUES (%1)").arg(version));
        db.exec(QString("PRAGMA user_version = %1").arg(version));
    }
    t.commit();
}

} // namespace commprof::store
