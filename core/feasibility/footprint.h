// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Per-pool memory demand of a cell (host RAM, device memory) against the machine's budget.
// Every number is a named term, so the GUI and the log can say why a cell does not fit.

#include "matrix/matrix.h"

#include <QJsonObject>
#include <QString>

#include <vector>

namespace commprof::feasibility {

enum class Pool { Host, Device };
const char* toString(Pool pool);

struct Term {
    QString name;
    Pool pool;
    double bytes = 0; // for the whole cell (every rank)
    // Where the number comes from, where it is not a coefficient's rule: "described" (a
    // TorchScript model's description), "measured" (by commprof calibrate, at this input),
    // "estimated" (the export's saved tensors, or a measurement scaled from another input).
    QString basis;
};

struct Demand {
    Pool pool = Pool::Host;
    bool used = false;      // a CPU cell does not touch the device pool
    double budgetBytes = 0; // what the machine allows this pool
    std::vector<Term> terms;
    double total() const;
    double ratio() const; // demand / budget; infinity when the budget is 0
};

struct FootprintEstimate {
    Demand host;
    Demand device;
    bool feasible = false;
    Pool binding = Pool::Host; // the pool closest to (or furthest past) its limit
    QString reason;            // why not, when infeasible
};

// The coefficients of the model, each with where it came from. One table; YAML machine
// profiles override values by key.
struct Coefficient {
    const char* key;
    double value;
    const char* unit;
    const char* source;
    bool operator==(const Coefficient&) const = default; // one static table: keys as pointers
};

class Coefficients {
public:
    Coefficients(); // this project's defaults (docs/feasibility.md)
    double operator[](const char* key) const;
    void set(const QString& key, double value); // throws std::invalid_argument for unknown keys
    const std::vector<Coefficient>& table() const { return table_; }
    bool operator==(const Coefficients&) const = default;

private:
    std::vector<Coefficient> table_;
};

struct MachineBudget {
    double hostBytes = 0;
    double deviceBytes = 0; // per GPU
    int gpus = 0;
    QString hostSource;
    QString deviceSource;
    bool perNode = false; // Slurm: host memory and GPUs of one node, not of this machine
    int cpusPerNode = 0;  // Slurm: the smallest node's CPUs; 0 when unknown
    bool operator==(const MachineBudget&) const = default;
};

FootprintEstimate estimate(const matrix::Cell& cell, const Coefficients& k,
                           const MachineBudget& budget);

QJsonObject toJson(const FootprintEstimate& e);

} // namespace commprof::feasibility
