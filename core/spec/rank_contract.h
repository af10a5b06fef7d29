// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What commprof-rank and the launchers that start it must agree on, spelled once: the rank's
// exit codes, the keys of its progress lines, and the names of the files it and the runner write
// (docs/formats.md). Plain C++17, header-only: commprof-rank links libtorch and never Qt, core
// links Qt and never libtorch, and both include this.

#include <cstddef>
#include <string>

namespace commprof::spec {

// The rank's exit status. A launcher reads them to tell a rank's failure from a failed
// rendezvous, which alone may be retried on another port.
namespace exit_code {
inline constexpr int kOk = 0;
inline constexpr int kFailed = 1;     // the run failed (a collective, a write, the model)
inline constexpr int kUsage = 2;      // bad flags
inline constexpr int kRendezvous = 3; // port in use, peer missing, model signature mismatch
// The launcher's own code for a rank that could not be started, as a shell reports a program it
// cannot run; commprof-rank never exits with it.
inline constexpr int kCannotRun = 127;
} // namespace exit_code

// The end of the message a rank prints with exit_code::kRendezvous when the rendezvous port was
// taken ("rendezvous port P on HOST is already in use"): what tells a clash from other
// rendezvous failures.
inline constexpr const char* kPortInUse = "is already in use";

// The launchers keep this much of the end of each rank's stderr: enough for the message and a
// few lines before it, little enough for launcher.log and cell.json.
inline constexpr std::size_t kStderrTailBytes = 4000;

// One progress line: a JSON object per line on the rank's stdout, flushed as it happens.
namespace progress {
inline constexpr const char* kEvent = "event"; // which event, one of:
inline constexpr const char* kIteration = "iteration";
inline constexpr const char* kBucket = "bucket";
inline constexpr const char* kSweep = "sweep";
// The fields of the events.
inline constexpr const char* kRank = "rank";
inline constexpr const char* kIter = "iter";
inline constexpr const char* kOf = "of";
inline constexpr const char* kStepMs = "step_ms";
inline constexpr const char* kLoss = "loss";
inline constexpr const char* kIndex = "index";
inline constexpr const char* kBytes = "bytes";
inline constexpr const char* kMs = "ms";
inline constexpr const char* kKind = "kind";
// A longer line is not a progress line: a launcher drops it rather than buffer it.
inline constexpr std::size_t kMaxLineBytes = std::size_t{1024} * 1024;
} // namespace progress

// A file a rank writes into its cell's folder, one per rank: PREFIX{R}SUFFIX.
struct PerRankFile {
    const char* prefix;
    const char* suffix;
    std::string of(int rank) const { return prefix + std::to_string(rank) + suffix; }
    std::string glob() const { return std::string(prefix) + "*" + suffix; }
};

namespace files {
inline constexpr PerRankFile kRankResult{"rank", ".json"};
inline constexpr PerRankFile kTrace{"trace_rank", ".json.gz"};
inline constexpr PerRankFile kSweep{"sweep_rank", ".json"};
inline constexpr PerRankFile kFingerprint{"fp_rank", ".jsonl"};
// A rank writes NAME + kPartial and renames it over NAME; the runner writes NAME.XXXXXX + kPartial.
// A cell folder holding one after the run was interrupted while writing.
inline constexpr const char* kPartial = ".tmp";

// The runner's records in a cell's folder.
inline constexpr const char* kManifest = "manifest.json";
inline constexpr const char* kCellRecord = "cell.json";
inline constexpr const char* kLauncherLog = "launcher.log";
// And in the results folder: the run's record, and where live ranks' pids go, one file per
// rank, TAG + kPidFile.of(R), holding "PID STARTTIME RUNID".
inline constexpr const char* kRunRecord = "run.json";
inline constexpr const char* kPidDir = ".pids";
inline constexpr PerRankFile kPidFile{"rank", ".pid"};
} // namespace files

} // namespace commprof::spec
