// SPDX-License-Identifier: GPL-3.0-or-later
#include "text_source.h"

#include <isa-l/igzip_lib.h>

#include <algorithm>

namespace commprof::trace {

constexpr std::size_t kInputBlock = std::size_t(256) << 10;

TextSource::TextSource(const std::string& path) : file_(path) {
    if (!file_.gzip()) {
        plainLeft_ = file_.size();
        return;
    }
    state_ = std::make_unique<inflate_state>();
    isal_inflate_init(state_.get());
    state_->crc_flag = ISAL_GZIP;
    in_.resize(kInputBlock);
}

TextSource::~TextSource() = default;

std::size_t TextSource::read(char* into, std::size_t room) {
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

bool TextSource::refill() {
    if (inputEnded_) {
        return false;
    }
    const std::size_t got = file_.read(in_.data(), in_.size());
    inputEnded_ = got == 0;
    state_->next_in = in_.data();
    state_->avail_in = std::uint32_t(got);
    return got != 0;
}

std::size_t TextSource::inflate(char* into, std::size_t room) {
    for (;;) {
        if (state_->avail_in == 0) {
            refill();
        }
        if (memberDone_) {
            // Whatever follows the member (another member, or anything else) is readTraceText's
            // to report.
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

} // namespace commprof::trace
