// JSON via nlohmann/json (Debian nlohmann-json3-dev, header-only). Always dump through dump_json:
// names from user files may hold invalid UTF-8, which nlohmann would otherwise throw on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/shape.h"

namespace nnfold {

using json = nlohmann::json;

inline std::string dump_json(const json& j, int indent = -1) {
    return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

// Outermost-first list, or null for an unknown shape.
inline json shape_to_json(const Shape& s) {
    if (!s.known())
        return nullptr;
    return json(s.to_list());
}

}  // namespace nnfold
