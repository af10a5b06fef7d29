// SPDX-License-Identifier: GPL-3.0-or-later
#include "yaml_input.h"

#include "files/safe_file.h"
#include "matrix/yaml_text.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <optional>
#include <sstream>

namespace commprof::matrix {
namespace {

// Real matrices and profiles are a few kilobytes; yaml-cpp needs about 80 times the text in
// memory, so this bounds a parse to about 250 MB and 4 s.
constexpr qint64 kDefaultMaxYamlBytes = 2LL * 1024 * 1024;

// The largest YAML file read (COMMPROF_MAX_MATRIX_BYTES overrides it).
qint64 maxYamlBytes() {
    return files::limitFromEnv("COMMPROF_MAX_MATRIX_BYTES", kDefaultMaxYamlBytes);
}

// Where the second document starts, if there is one. Events only, no nodes, and at most two
// documents: yaml-cpp's LoadAll never returns on some malformed texts (it keeps finding empty
// documents), where Load, which reads one, does.
class SecondDocument : public YAML::EventHandler {
public:
    // Where the second document's first node is (the mark its node would have).
    static std::optional<YAML::Mark> find(const std::string& text) {
        std::istringstream in(text);
        YAML::Parser parser(in);
        SecondDocument h;
        for (int i = 0; i < 2 && parser.HandleNextDocument(h); ++i) {
        }
        return h.second_;
    }
    void OnDocumentStart(const YAML::Mark&) override { ++documents_; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
    void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
    void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  const std::string&) override {
        node(m);
    }
    void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
        node(m);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
        node(m);
    }
    void OnMapEnd() override {}

private:
    void node(const YAML::Mark& m) {
        if (documents_ == 2 && !second_) {
            second_ = m;
        }
    }
    int documents_ = 0;
    std::optional<YAML::Mark> second_;
};

} // namespace

QByteArray readYamlFile(const QString& file) {
    try {
        return files::readRegularFile(file, maxYamlBytes(), files::Links::Follow,
                                      "raise it with COMMPROF_MAX_MATRIX_BYTES=N");
    } catch (const files::FileError& e) {
        throw MatrixError(file, 0, 0, "file", e.detail);
    }
}

YAML::Node loadYaml(const QByteArray& text, const QString& file) {
    if (text.size() > maxYamlBytes()) {
        throw MatrixError(file, 0, 0, "file",
                          QString("%1 bytes, above the limit of %2 bytes; raise it with "
                                  "COMMPROF_MAX_MATRIX_BYTES=N")
                              .arg(text.size())
                              .arg(maxYamlBytes()));
    }
    const std::string utf8 = text.toStdString();
    YAML::Node first;
    std::optional<YAML::Mark> second;
    try {
        first = YAML::Load(utf8);
        second = SecondDocument::find(utf8);
    } catch (const YAML::DeepRecursion& e) {
        // yaml-cpp's own message for this is "bad file".
        throw MatrixError(file, e.mark.line + 1, e.mark.column + 1, "yaml",
                          QString("nested more than %1 levels deep").arg(e.depth()));
    } catch (const YAML::Exception& e) {
        throw MatrixError(file, e.mark.line + 1, e.mark.column + 1, "yaml",
                          QString::fromStdString(e.msg));
    }
    if (second) {
        // yaml-cpp's Load reads the first document and drops the rest without a word.
        throw MatrixError(file, std::max(second->line, 0) + 1, std::max(second->column, 0) + 1,
                          "document",
                          "a second YAML document (after '---'): a matrix or profile is one "
                          "document; remove it or give it a file of its own");
    }
    return first;
}

void failAt(const QString& file, const YAML::Node& at, const QString& key, const QString& message) {
    const YAML::Mark m = at.Mark();
    throw MatrixError(file, m.line + 1, m.column + 1, key, message);
}

QString keyName(const QString& file, const YAML::Node& key, QSet<QString>& seen) {
    if (!key.IsScalar()) {
        failAt(file, key, "key", "a key must be a plain name, not a list or a mapping");
    }
    QString name = scalarText(file, key, "key");
    if (seen.contains(name)) {
        failAt(file, key, name, QString("'%1' is given twice in this mapping").arg(name));
    }
    seen.insert(name);
    return name;
}

} // namespace commprof::matrix
