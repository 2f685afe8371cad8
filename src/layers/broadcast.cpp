#include "layers/broadcast.h"

#include <algorithm>

namespace nnfold {

Status broadcast_shape(const std::vector<Shape>& ins, Shape& out) {
    size_t r = 0;
    std::vector<std::vector<int>> lists;
    for (auto& s : ins) {
        if (!s.known())
            return shape_mismatch("input shape unknown");
        lists.push_back(s.to_list());
        r = std::max(r, lists.back().size());
    }
    std::vector<int> o(r, 1);
    for (auto& l : lists) {
        for (size_t k = 0; k < l.size(); k++) {
            int& d = o[k + (r - l.size())];
            if (l[k] == d || l[k] == 1)
                continue;
            if (d != 1) {
                std::string all;
                for (auto& s : ins)
                    all += (all.empty() ? "" : " and ") + s.str();
                return shape_mismatch("shapes " + all + " do not broadcast");
            }
            d = l[k];
        }
    }
    out = Shape::from_list(o);
    return Status::ok();
}

}  // namespace nnfold
