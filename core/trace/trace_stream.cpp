// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_stream.h"

#include "event_collector.h"
#include "fragment_join.h"
#include "json_scan.h"
#include "parallel_for.h"
#include "trace_file.h"
#include "trace_skeleton.h"

#include <isa-l/igzip_lib.h>
#include <simdjson.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace commprof::trace {
namespace {

namespace od = simdjson::ondemand;

constexpr std::size_t npos = std::string::npos;
constexpr std::size_t kPadding = simdjson::SIMDJSON_PADDING;
// How far back from a piece's end an element boundary is looked for before the piece grows.
constexpr std::size_t kBoundaryWindow = std::size_t(1) << 20;
// The most text read before traceEvents must have started; beyond it the whole-text path says
// what the document is.
constexpr std::size_t kMaxHead = std::size_t(64) << 20;
// Pieces the reading thread may have waiting before it parses one itself.
constexpr std::size_t kAhead = 2;
// The gzip input read at a time.
constexpr std::size_t kInputBlock = std::size_t(256) << 10;

// A trace file's text from the start, a piece at a time: inflated with ISA-L as it is asked
// for, or read as it is. Only a file that readTraceText would read without a remark is read
// here: one gzip member that ends where the file ends, checksum and all. Anything else (a
// corrupt or cut stream, concatenated members, bytes after the end) makes the source
// irregular, and its reader leaves the file to readTraceText, which says what is wrong.
class TextSource {
public:
    // Throws TraceError as readTraceText does for a file it cannot open or refuses.
    explicit TextSource(const std::string& path) : file_(path) {
        if (!file_.gzip()) {
            plainLeft_ = file_.size();
            return;
        }
        state_ = std::make_unique<inflate_state>();
        isal_inflate_init(state_.get());
        state_->crc_flag = ISAL_GZIP;
        in_.resize(kInputBlock);
    }

    // Up to `room` bytes of text into `into`; 0 at the end, or once irregular. Throws
    // TraceError when the file cannot be read.
    std::size_t read(char* into, std::size_t room) {
        if (irregular_ || room == 0) {
            return 0;
        }
        if (state_) {
            return inflate(into, room);
        }
        // As readTraceText: the size found at open, or less if the file shrank meanwhile.
        const std::size_t got =
            plainLeft_ ? file_.read(into, std::min<std::uint64_t>(room, plainLeft_)) : 0;
        plainLeft_ = got == 0 ? 0 : plainLeft_ - got;
        return got;
    }
    bool irregular() const { return irregular_; }
    // TraceFile::textSizeHint.
    std::uint64_t textSizeHint() const { return file_.textSizeHint(); }

private:
    std::size_t inflate(char* into, std::size_t room) {
        for (;;) {
            if (state_->avail_in == 0 && !inputEnded_) {
                const std::size_t got = file_.read(in_.data(), in_.size());
                inputEnded_ = got == 0;
                state_->next_in = in_.data();
                state_->avail_in = std::uint32_t(got);
            }
            if (memberDone_) {
                // Whatever follows the member (another member, or anything else) is
                // readTraceText's to report.
                irregular_ = state_->avail_in != 0;
                return 0;
            }
            state_->next_out = reinterpret_cast<std::uint8_t*>(into);
            state_->avail_out = std::uint32_t(std::min<std::size_t>(room, std::size_t(1) << 30));
            const std::uint32_t roomBefore = state_->avail_out;
            const std::uint32_t inBefore = state_->avail_in;
            if (isal_inflate(state_.get()) != ISAL_DECOMP_OK) {
                irregular_ = true;
                return 0;
            }
            const std::size_t got = roomBefore - state_->avail_out;
            memberDone_ = state_->block_state == ISAL_BLOCK_FINISH;
            if (got != 0) {
                return got;
            }
            const bool stuck =
                !memberDone_ && state_->avail_in == inBefore && (inBefore != 0 || inputEnded_);
            if (stuck) {
                irregular_ = true; // the stream ends before its member does
                return 0;
            }
        }
    }

    TraceFile file_;
    std::unique_ptr<inflate_state> state_; // gzip only
    std::vector<unsigned char> in_;
    std::uint64_t plainLeft_ = 0; // plain files: bytes still to read of the size found at open
    bool inputEnded_ = false;
    bool memberDone_ = false;
    bool irregular_ = false;
};

// '[' at data()[0], then up to capacity() bytes of text, then room for ']' and the padding.
class PieceBuffer {
public:
    PieceBuffer() = default;
    explicit PieceBuffer(std::size_t capacity)
        : data_(new char[capacity + 2 + kPadding]), capacity_(capacity) {} // not zero-filled

    char* data() const { return data_.get(); }
    char* text() const { return data_.get() + 1; }
    std::size_t capacity() const { return capacity_; }
    std::size_t allocated() const { return capacity_ + 2 + kPadding; }

    // A larger buffer holding the same first `keep` bytes of text.
    void grow(std::size_t capacity, std::size_t keep) {
        PieceBuffer larger(capacity);
        std::memcpy(larger.data(), data(), keep + 1);
        *this = std::move(larger);
    }

private:
    std::unique_ptr<char[]> data_;
    std::size_t capacity_ = 0;
};

// One piece's document: '[' at data()[docStart], the elements from file offset `from`, ']'.
struct Piece {
    std::size_t index = 0;
    PieceBuffer buffer;
    std::size_t docStart = 0;
    std::size_t docLen = 0;
    std::uint64_t from = 0;
    bool last = false;
};

struct PieceResult {
    Fragment fragment;
    Stretch end;
    bool parsed = false;
    std::uint64_t textEnd = 0; // the file offset just past its elements
    PieceBuffer buffer;        // the last piece's, for what follows the array
};

// The last element start in text[lo, hi) that begins a line: a '{' with only blanks before it on
// its line, and a ',' before the newline (whitespace between). npos when there is none in the
// last kBoundaryWindow bytes. A raw newline cannot be inside a JSON string, so the ',' and the
// '{' are both structural; whether the ',' separates elements of traceEvents is for the parse
// to show.
std::size_t lastBoundary(const char* text, std::size_t lo, std::size_t hi, std::size_t& comma) {
    const std::size_t floor = std::max(lo, hi > kBoundaryWindow ? hi - kBoundaryWindow : 0);
    std::size_t end = hi;
    while (end > floor) {
        const void* nl = ::memrchr(text + floor, '\n', end - floor);
        if (!nl) {
            return npos;
        }
        const std::size_t line = std::size_t(static_cast<const char*>(nl) - text);
        std::size_t g = line + 1;
        while (g < hi && (text[g] == ' ' || text[g] == '\t' || text[g] == '\r')) {
            ++g;
        }
        const std::size_t c = g < hi && text[g] == '{' ? commaBefore(text, lo, line) : npos;
        if (c != npos) {
            comma = c;
            return g;
        }
        end = line;
    }
    return npos;
}

// Pieces from the reading thread to the parsing ones, their results in file order, and the
// buffers of parsed pieces for the reading thread to fill again. Parsed pieces are joined into
// the trace in file order as soon as all before them are, by whichever thread finds them
// ready: the join runs while other pieces are parsed, and a piece's memory is free for the
// next ones.
class PieceQueue {
public:
    // textSizeHint: TraceFile::textSizeHint, to size the trace's events once.
    PieceQueue(FragmentJoiner& joiner, std::uint64_t textSizeHint)
        : joiner_(joiner), textSizeHint_(textSizeHint) {}

    void submit(Piece piece) {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            piece.index = results_.size();
            results_.emplace_back();
            waiting_.push_back(std::move(piece));
        }
        changed_.notify_one();
    }

    // A buffer for the next piece: a parsed piece's when one is free.
    PieceBuffer buffer(std::size_t capacity) {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            while (!spare_.empty()) {
                PieceBuffer b = std::move(spare_.back());
                spare_.pop_back();
                if (b.capacity() >= capacity) {
                    return b;
                }
            }
        }
        return PieceBuffer(capacity);
    }

    // Pieces parsed so far (not those skipped once the read failed or stopped).
    std::size_t parsed() {
        const std::lock_guard<std::mutex> lock(mutex_);
        return parsed_;
    }

    // Parses waiting pieces until no more than `ahead` wait; false once the read has failed.
    bool parseWaiting(od::parser& parser, std::size_t ahead) {
        std::unique_lock<std::mutex> lock(mutex_);
        while (waiting_.size() > ahead) {
            parseFront(parser, lock);
        }
        return !failed_;
    }

    // A parsing thread: pieces until the queue is closed and empty.
    void work() {
        od::parser parser;
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            changed_.wait(lock, [&] { return !waiting_.empty() || closed_; });
            if (!parseFront(parser, lock) && closed_) {
                return;
            }
        }
    }

    // What is still waiting is not worth parsing: the file goes to the whole-text path.
    void abandon() {
        const std::lock_guard<std::mutex> lock(mutex_);
        failed_ = true;
    }

    void close() {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            closed_ = true;
        }
        changed_.notify_all();
    }

    // Once every parsing thread has ended: whether every piece was sound and joined.
    bool complete() {
        std::unique_lock<std::mutex> lock(mutex_);
        joinReady(lock);
        return !failed_ && joined_ == results_.size();
    }

    // Once every parsing thread has ended.
    const std::deque<PieceResult>& results() const { return results_; }

private:
    // Called and returns with the lock held.
    bool parseFront(od::parser& parser, std::unique_lock<std::mutex>& lock) {
        if (waiting_.empty()) {
            return false;
        }
        Piece piece = std::move(waiting_.front());
        waiting_.pop_front();
        PieceResult& out = results_[piece.index]; // elements of a deque stay where they are
        const bool skip = failed_;
        lock.unlock();
        bool sound = false;
        if (!skip) {
            try {
                out.end = readStretch(parser, piece.buffer.data() + piece.docStart, piece.docLen,
                                      piece.buffer.allocated() - piece.docStart, piece.from, npos,
                                      out.fragment);
                // The guess that made its end holds: every piece but the last must close
                // exactly at the ']' written over its boundary ',', the last at the array's own.
                sound = out.end.kind == Stretch::Closed && out.end.closedByUs != piece.last;
            } catch (...) {
                // Out of memory, say: the whole-text path meets it again and reports it.
            }
        }
        out.textEnd = piece.from + piece.docLen - 2;
        if (piece.last) {
            out.buffer = std::move(piece.buffer);
        }
        lock.lock();
        out.parsed = true;
        parsed_ += skip ? 0 : 1;
        failed_ = failed_ || !sound;
        if (piece.buffer.capacity()) {
            spare_.push_back(std::move(piece.buffer));
        }
        joinReady(lock);
        return true;
    }

    // Joins the parsed pieces that follow the joined ones, unless another thread is at it.
    // Called and returns with the lock held.
    void joinReady(std::unique_lock<std::mutex>& lock) {
        if (joining_) {
            return;
        }
        joining_ = true;
        while (!failed_ && joined_ < results_.size() && results_[joined_].parsed) {
            Fragment& fragment = results_[joined_].fragment;
            const std::uint64_t textEnd = results_[joined_].textEnd;
            const bool first = joined_ == 0;
            lock.unlock();
            bool ok = true;
            try {
                joiner_.add(fragment);
                if (first) {
                    reserveEvents(textEnd);
                }
            } catch (...) {
                ok = false; // out of memory: the whole-text path meets it again
            }
            lock.lock();
            ++joined_;
            failed_ = failed_ || !ok;
        }
        joining_ = false;
    }

    // Room for the events and flows the whole text will hold at twice the first piece's
    // density (its head of metadata makes it sparser than the rest): the arrays then grow in
    // place instead of being copied at every doubling into fresh pages. Pages reserved and
    // never written cost no memory.
    void reserveEvents(std::uint64_t textRead) {
        if (textSizeHint_ <= textRead || textRead == 0) {
            return;
        }
        // No event takes fewer than 16 bytes of text: a bound on a strange first piece.
        joiner_.reserveLike(2.0 * double(textSizeHint_) / double(textRead),
                            std::size_t(textSizeHint_ / 16));
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Piece> waiting_;
    std::deque<PieceResult> results_;
    std::vector<PieceBuffer> spare_;
    FragmentJoiner& joiner_;
    std::uint64_t textSizeHint_;
    std::size_t joined_ = 0; // pieces joined, in file order
    std::size_t parsed_ = 0;
    bool joining_ = false; // a thread is joining
    bool closed_ = false;
    bool failed_ = false;
};

class StreamReader {
public:
    StreamReader(const std::string& path, const StreamOptions& options,
                 const CancelCheck& cancelled)
        : path_(path), options_(options), cancel_(cancelled), source_(path) {}

    std::optional<Trace> read() {
        PieceBuffer head(options_.pieceBytes);
        std::size_t filled = 0;
        Skeleton sk;
        std::size_t first = npos;
        if (!readHead(head, filled, sk, first)) {
            return std::nullopt;
        }
        Trace trace;
        FragmentJoiner joiner(trace);
        PieceQueue queue(joiner, source_.textSizeHint());
        bool sound = false;
        // Index 0, always the first to start, reads the text and parses too; the others parse
        // what it queues, until it closes the queue.
        const int threads = std::max(1, options_.threads);
        parallelFor(std::size_t(threads), threads, [&](std::size_t index, std::size_t) {
            if (index == 0) {
                sound = readAll(queue, std::move(head), filled, first);
            } else {
                queue.work();
            }
        }); // every piece parsed, every parsing thread ended
        if (stopped_) {
            throw ReadCancelled(total_, queue.parsed());
        }
        if (!sound || !queue.complete()) {
            return std::nullopt;
        }
        finish(trace, joiner, queue.results().back(), sk);
        return trace;
    }

private:
    // Reads into buf.text()[filled, capacity) until it is full or the text ends.
    bool fill(PieceBuffer& buf, std::size_t& filled) {
        while (filled < buf.capacity() && !ended_) {
            const std::size_t got = source_.read(buf.text() + filled, buf.capacity() - filled);
            ended_ = got == 0;
            filled += got;
            total_ += got;
        }
        return !source_.irregular() && total_ <= options_.maxTextBytes;
    }

    // The text up to the first element of traceEvents, and the keys before it.
    bool readHead(PieceBuffer& head, std::size_t& filled, Skeleton& sk, std::size_t& first) {
        for (;;) {
            if (!fill(head, filled)) {
                return false;
            }
            const TopLevel top(head.text(), filled);
            const std::size_t root = top.skipSpace(0);
            if (root < filled && head.text()[root] != '{' && head.text()[root] != '[') {
                return false; // not a Chrome trace: the whole-text path says so
            }
            sk = Skeleton{};
            if (findEvents(top, head.text(), filled, sk)) {
                first = top.skipSpace(sk.arrayStart);
                if (first < filled) {
                    return true;
                }
            }
            if (ended_ || head.capacity() >= kMaxHead) {
                return false;
            }
            head.grow(head.capacity() * 2, filled);
        }
    }

    // The reading thread's part: every piece read, queued and, with the others, parsed. The
    // queue is closed however this ends, so the other parsing threads always end too.
    bool readAll(PieceQueue& queue, PieceBuffer head, std::size_t filled, std::size_t first) {
        struct Closer {
            PieceQueue& queue;
            ~Closer() { queue.close(); }
        } closer{queue};
        od::parser parser;
        if (!readPieces(queue, parser, std::move(head), filled, first)) {
            queue.abandon();
            return false;
        }
        queue.parseWaiting(parser, 0);
        return true;
    }

    // Cuts the text into pieces as it arrives and queues them; the reading thread parses too
    // whenever more than kAhead pieces wait (always, when it is the only thread).
    bool readPieces(PieceQueue& queue, od::parser& parser, PieceBuffer head, std::size_t filled,
                    std::size_t first) {
        const std::size_t ahead = options_.threads > 1 ? kAhead : 0;
        Piece piece;
        piece.buffer = std::move(head);
        piece.docStart = first; // text()[first - 1]: the array's '[' or a blank after it
        piece.from = first;
        piece.buffer.data()[first] = '[';
        std::uint64_t textBase = 0; // the file offset of piece.buffer.text()[0]
        for (;;) {
            if (!fill(piece.buffer, filled)) {
                return false;
            }
            char* text = piece.buffer.text();
            const std::size_t begin = std::size_t(piece.from - textBase);
            if (ended_) {
                text[filled] = ']';
                std::memset(text + filled + 1, 0, kPadding);
                piece.docLen = filled + 2 - piece.docStart;
                piece.last = true;
                lastTextBase_ = textBase;
                queue.submit(std::move(piece));
                return true;
            }
            std::size_t comma = 0;
            const std::size_t next = lastBoundary(text, begin + 1, filled, comma);
            if (next == npos) {
                piece.buffer.grow(piece.buffer.capacity() * 2, filled);
                continue;
            }
            const std::size_t carry = filled - next;
            PieceBuffer following = queue.buffer(std::max(options_.pieceBytes, 2 * carry));
            following.data()[0] = '[';
            std::memcpy(following.text(), text + next, carry);
            text[comma] = ']';
            std::memset(text + comma + 1, 0, kPadding);
            piece.docLen = comma + 2 - piece.docStart;
            queue.submit(std::move(piece));
            if (isCancelled(cancel_)) {
                stopped_ = true; // what is queued is skipped, not parsed
                return false;
            }

            textBase += next;
            piece = Piece{};
            piece.buffer = std::move(following);
            piece.from = textBase;
            filled = carry;
            if (!queue.parseWaiting(parser, ahead)) {
                return false;
            }
        }
    }

    // What follows the array (the keys after traceEvents, in the last piece's text), and what
    // the joiner does once every fragment is in.
    void finish(Trace& trace, FragmentJoiner& joiner, const PieceResult& last, Skeleton& sk) {
        trace.source = path_;
        trace.textBytes = total_;
        trace.htaFacts.rootIsArray = sk.rootIsArray;
        const std::uint64_t arrayEnd = last.end.arrayEnd;
        if (!sk.rootIsArray && arrayEnd + 1 < total_) {
            const char* tail = last.buffer.text();
            const auto tailSize = std::size_t(total_ - lastTextBase_);
            scanKeys(TopLevel(tail, tailSize), tail, tailSize,
                     std::size_t(arrayEnd + 1 - lastTextBase_), sk, false);
        }
        readTopLevelObjects(sk, trace);
        joiner.finish();
    }

    std::string path_;
    StreamOptions options_;
    const CancelCheck& cancel_;
    bool stopped_ = false; // cancel_ said so: nothing read is kept
    TextSource source_;
    bool ended_ = false;
    std::uint64_t total_ = 0;
    std::uint64_t lastTextBase_ = 0; // the file offset of the last piece's text()[0]
};

} // namespace

std::optional<Trace> readTraceStreamed(const std::string& path, const StreamOptions& options,
                                       const CancelCheck& cancelled) {
    return StreamReader(path, options, cancelled).read();
}

} // namespace commprof::trace
