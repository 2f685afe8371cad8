#include "core/strings.h"

#include <cstdio>

namespace nnfold {

std::string sanitize(const std::string& s) { return escape_controls(s.size() > 80 ? s.substr(0, 77) + "..." : s); }

std::string escape_controls(const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
        if (c < 0x20 || c == 0x7f) {
            char buf[8];
            snprintf(buf, sizeof(buf), "\\x%02x", c);
            out += buf;
        } else {
            out += (char)c;
        }
    }
    return out;
}

std::string quote(const std::string& s) { return "'" + sanitize(s) + "'"; }

std::string layer_desc(const std::string& name, const std::string& type) {
    return "layer " + quote(name) + " (" + sanitize(type) + ")";
}

std::string escape_file_name(const std::string& name) {
    std::string out;
    for (unsigned char c : name) {
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
            c == '-') {
            out += (char)c;
        } else {
            char buf[4];
            snprintf(buf, sizeof(buf), "%%%02X", c);
            out += buf;
        }
    }
    // "." and ".." would name directories
    if (out == "." || out == "..")
        out = out == "." ? "%2E" : "%2E%2E";
    if (out.empty())
        out = "%00";
    return out;
}

std::string dims_str(const std::vector<int64_t>& dims) {
    std::string r = "[";
    for (size_t k = 0; k < dims.size(); k++)
        r += (k ? "," : "") + std::to_string(dims[k]);
    return r + "]";
}

}  // namespace nnfold
