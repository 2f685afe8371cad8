// Squeeze (ncnn src/layer/squeeze.cpp). Params: 0 squeeze_w, 1 squeeze_h, 11 squeeze_d,
// 2 squeeze_c (flags, default 0), 3 axes (int array; when given, the flags are ignored). No
// weights. Axes count outermost first (2D h=0 w=1, 3D c=0 h=1 w=2, 4D c=0 d=1 h=2 w=3), negative
// = axis + dims. An axis is removed only when its extent is 1: ncnn silently keeps an axis of
// another extent, and so does nnfold. The remaining axes keep their order; removing every axis
// gives a 1D tensor of one value. The data is shared, not copied.
#include "layers/one_input_layer.h"

namespace nnfold {

class Squeeze : public AxisFlagsLayer {
public:
    NF_PARAM_TABLE(Squeeze,
                   {0, "squeeze_w", &Squeeze::flag_w},
                   {1, "squeeze_h", &Squeeze::flag_h},
                   {2, "squeeze_c", &Squeeze::flag_c},
                   NF_PARAM(3, axes),
                   {11, "squeeze_d", &Squeeze::flag_d})
    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        NF_RETURN_IF_ERROR(check_axes_count());
        for (int a : axes)
            if (a < -4 || a > 3)
                return invalid_model("Squeeze axis " + std::to_string(a) + " (param 3) is outside -4..3");
        return Status::ok();
    }

protected:
    Status out_shape(const Shape& s, Shape& out) const override {
        if (s.dims < 1 || s.dims > 4)
            return shape_mismatch("Squeeze needs a 1D-4D input, got " + s.str());
        std::vector<int> l = s.to_list();  // outermost first
        std::vector<bool> drop(l.size(), false);
        if (axes.empty()) {
            // the flags name extents; map each to its outermost-first position
            auto pos = [&](char which) -> int {
                switch (s.dims) {
                case 1: return which == 'w' ? 0 : -1;
                case 2: return which == 'h' ? 0 : which == 'w' ? 1 : -1;
                case 3: return which == 'c' ? 0 : which == 'h' ? 1 : which == 'w' ? 2 : -1;
                default: return which == 'c' ? 0 : which == 'd' ? 1 : which == 'h' ? 2 : 3;
                }
            };
            const std::pair<char, int> flags[4] = {{'w', flag_w}, {'h', flag_h}, {'d', flag_d}, {'c', flag_c}};
            for (auto& f : flags) {
                int p = f.second ? pos(f.first) : -1;
                if (p >= 0 && l[p] == 1)
                    drop[p] = true;
            }
        } else {
            for (int a0 : axes) {
                int a = a0 < 0 ? a0 + s.dims : a0;
                if (a < 0 || a >= s.dims)
                    return shape_mismatch("Squeeze axis " + std::to_string(a0) + " is out of range for input " + s.str());
                if (l[a] == 1)
                    drop[a] = true;
            }
        }
        std::vector<int> kept;
        for (size_t i = 0; i < l.size(); i++)
            if (!drop[i])
                kept.push_back(l[i]);
        if (kept.empty())
            kept.push_back(1);
        out = Shape::from_list(kept);
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Squeeze)

}  // namespace nnfold
