#include "core/shape.h"

namespace nnfold {

uint64_t Shape::total() const {
    if (dims <= 0)
        return 0;
    return (uint64_t)(w > 0 ? w : 0) * (uint64_t)(h > 0 ? h : 0) * (uint64_t)(d > 0 ? d : 0) *
           (uint64_t)(c > 0 ? c : 0);
}

bool Shape::valid() const {
    if (dynamic)
        return false;
    if (dims < 1 || dims > 4 || w < 1 || h < 1 || d < 1 || c < 1)
        return false;
    // each factor < 2^31, so the product of two fits; check the running product stays below 2^62
    const uint64_t limit = (uint64_t)1 << 62;
    uint64_t t = 1;
    for (int v : {w, h, d, c}) {
        if (t > limit / (uint64_t)v)
            return false;
        t *= (uint64_t)v;
    }
    return true;
}

bool Shape::operator==(const Shape& o) const {
    if (dims != o.dims || dynamic != o.dynamic)
        return false;
    switch (dims) {
    case 0: return true;
    case 1: return w == o.w;
    case 2: return w == o.w && h == o.h;
    case 3: return w == o.w && h == o.h && c == o.c;
    default: return w == o.w && h == o.h && d == o.d && c == o.c;
    }
}

std::vector<int> Shape::to_list() const {
    switch (dims) {
    case 1: return {w};
    case 2: return {h, w};
    case 3: return {c, h, w};
    case 4: return {c, d, h, w};
    default: return {};
    }
}

Shape Shape::from_list(const std::vector<int>& l) {
    switch (l.size()) {
    case 1: return d1(l[0]);
    case 2: return d2(l[1], l[0]);
    case 3: return d3(l[2], l[1], l[0]);
    case 4: return d4(l[3], l[2], l[1], l[0]);
    default: return Shape{};
    }
}

std::string Shape::str() const {
    if (dims == 0)
        return "[?]";
    if (dynamic)
        return "[dynamic " + std::to_string(dims) + "D]";
    std::string s = "[";
    auto l = to_list();
    for (size_t i = 0; i < l.size(); i++) {
        if (i)
            s += ",";
        s += std::to_string(l[i]);
    }
    return s + "]";
}

}  // namespace nnfold
