// SPDX-License-Identifier: GPL-3.0-or-later
#include "rendezvous.h"

#include "bound_store.h"
#include "spec/rank_contract.h"
#include "store_server.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace commprof::rank {
namespace {

std::string join(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) {
        out += l + '\n';
    }
    return out;
}

std::vector<std::string> split(const std::vector<std::uint8_t>& bytes) {
    std::vector<std::string> out;
    std::istringstream in(std::string(bytes.begin(), bytes.end()));
    for (std::string line; std::getline(in, line);) {
        out.push_back(line);
    }
    return out;
}

// PREFIX0 .. PREFIX{world-1}: one key per rank.
std::vector<std::string> rankKeys(const std::string& prefix, int world) {
    std::vector<std::string> keys;
    for (int r = 0; r < world; ++r) {
        keys.push_back(prefix + std::to_string(r));
    }
    return keys;
}

std::string shapeOf(const at::Tensor& t) {
    std::string s = "[";
    for (std::int64_t i = 0; i < t.dim(); ++i) {
        s += (i ? "," : "") + std::to_string(t.size(i));
    }
    return s + "]";
}

// Rank 0 serves on MASTER_ADDR only (every interface only with --listen-all), to the ranks of
// this cell (and their clones), none of whose waits may outlast the rank's own timeouts.
StoreServerConfig serverConfig(const RankOptions& o) {
    StoreServerConfig c;
    c.host = o.listenAll ? "0.0.0.0" : o.masterAddr;
    c.port = o.masterPort;
    c.token = o.storeToken;
    c.waitCap = std::chrono::milliseconds(
        std::int64_t(std::max(o.rendezvousTimeoutS, o.collectiveTimeoutS) * 1000));
    c.maxClients = 2 * o.worldSize + 16;
    return c;
}

c10::intrusive_ptr<c10d::Store> connectStore(const RankOptions& o) {
    const auto timeout = std::chrono::milliseconds(std::int64_t(o.rendezvousTimeoutS * 1000));
    try {
        c10::intrusive_ptr<c10d::Store> store;
        if (std::getenv("TORCHELASTIC_USE_AGENT_STORE") &&
            std::string(std::getenv("TORCHELASTIC_USE_AGENT_STORE")) == "True") {
            // Under torchrun the agent already serves a TCPStore at MASTER_ADDR:MASTER_PORT.
            store = c10::make_intrusive<c10d::TCPStore>(
                o.masterAddr, tcpStoreClientOptions(o.masterPort, timeout));
        } else {
            std::shared_ptr<StoreServer> server;
            if (o.rank == 0) {
                server = std::make_shared<StoreServer>(serverConfig(o));
                if (o.storeToken.empty()) {
                    std::cerr << "commprof-rank[0]: warning: COMMPROF_STORE_TOKEN is not set, so "
                                 "the rendezvous store on port "
                              << o.masterPort << " admits any local process" << std::endl;
                }
            }
            store = c10::make_intrusive<BoundStore>(
                StoreAddress{o.masterAddr, o.masterPort, o.storeToken}, timeout, server);
        }
        const std::string prefix = "commprof/arrived/";
        store->set(prefix + std::to_string(o.rank), std::vector<std::uint8_t>{1});
        store->wait(rankKeys(prefix, o.worldSize), timeout);
        return store;
    } catch (const std::exception& e) {
        std::string what = e.what();
        if (what.find("ddress already in use") != std::string::npos) {
            // Only rank 0 binds the port: the launchers retry on another port when it says so.
            throw RendezvousError("rendezvous port " + std::to_string(o.masterPort) + " on " +
                                  o.masterAddr + " " + spec::kPortInUse);
        }
        throw RendezvousError("rendezvous at " + o.masterAddr + ":" + std::to_string(o.masterPort) +
                              " failed within " + std::to_string(int(o.rendezvousTimeoutS)) +
                              " s (world size " + std::to_string(o.worldSize) +
                              "): " + what.substr(0, what.find('\n')));
    }
}

std::string bindAddress(const RankOptions& o) {
    const char* own = std::getenv("COMMPROF_BIND_ADDR");
    return own && *own ? std::string(own) : o.masterAddr;
}

} // namespace

RankGroup joinGroup(const RankOptions& o) {
    RankGroup g;
    g.store = connectStore(o);
    const auto timeout = std::chrono::milliseconds(std::int64_t(o.collectiveTimeoutS * 1000));
    g.pg = o.backend == "nccl"
               ? makeNcclGroup(g.store, o.rank, o.worldSize, timeout)
               : makeGlooGroup(g.store, o.rank, o.worldSize, bindAddress(o), timeout);
    return g;
}

std::vector<std::string>
modelSignature(const std::vector<std::pair<std::string, at::Tensor>>& parameters,
               const std::vector<std::pair<std::string, at::Tensor>>& buffers) {
    std::vector<std::string> out;
    for (const auto& [name, p] : parameters) {
        out.push_back("param " + name + " " + std::string(c10::toString(p.scalar_type())) +
                      shapeOf(p) + (p.requires_grad() ? "" : " frozen"));
    }
    for (const auto& [name, b] : buffers) {
        out.push_back("buffer " + name + " " + std::string(c10::toString(b.scalar_type())) +
                      shapeOf(b));
    }
    return out;
}

std::string signatureHash(const std::vector<std::string>& signature) {
    std::uint64_t h = 1469598103934665603ULL; // FNV-1a 64
    for (const auto& line : signature) {
        for (unsigned char c : line + "\n") {
            h ^= c;
            h *= 1099511628211ULL;
        }
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
    return buf;
}

void checkFormation(c10d::Store& store, const RankOptions& o,
                    const std::vector<std::string>& signature) {
    const std::string mine = join(signature);
    store.set("commprof/signature/" + std::to_string(o.rank),
              std::vector<std::uint8_t>(mine.begin(), mine.end()));
    const std::vector<std::string> keys = rankKeys("commprof/signature/", o.worldSize);
    store.wait(keys, std::chrono::milliseconds(std::int64_t(o.rendezvousTimeoutS * 1000)));
    const std::vector<std::string> reference = split(store.get(keys[0]));
    for (int r = 1; r < o.worldSize; ++r) {
        const std::vector<std::string> other = split(store.get(keys[std::size_t(r)]));
        const std::size_t n = std::max(reference.size(), other.size());
        for (std::size_t i = 0; i < n; ++i) {
            const std::string a = i < reference.size() ? reference[i] : "(nothing)";
            const std::string b = i < other.size() ? other[i] : "(nothing)";
            if (a != b) {
                throw RendezvousError("model signature mismatch between rank 0 and rank " +
                                      std::to_string(r) + " at entry " + std::to_string(i) +
                                      ": rank 0 has '" + a + "', rank " + std::to_string(r) +
                                      " has '" + b + "'");
            }
        }
    }
}

} // namespace commprof::rank
