// ExpandDims (ncnn src/layer/expanddims.cpp). Params: 0 expand_w, 1 expand_h, 11 expand_d,
// 2 expand_c (flags, default 0), 3 axes (int array; when given, the flags are ignored). No
// weights. Inserts axes of extent 1, the data shared, not copied.
// Axes count outermost first in the output (numpy's expand_dims / ONNX Unsqueeze with one axis),
// negative = axis + dims + 1; ncnn maps each to the extent it creates:
//   1D [w]:     0 -> h, giving [1,w];  1 -> w, giving [w,1]
//   2D [h,w]:   0 -> c [1,h,w];  1 -> h [h,1,w];  2 -> w [h,w,1]
//   3D [c,h,w]: 0 -> c [1,c,h,w];  1 -> d [c,1,h,w];  2 -> h [c,h,1,w];  3 -> w [c,h,w,1]
// ncnn expands one axis at a time, except w and h together on 1D, which gives [1,w,1]. Where
// ncnn would silently apply only one of several requested axes (or none: a 4D input, c/d on
// 1D, d on 2D), nnfold refuses rather than return a shape nobody asked for.
#include "layers/one_input_layer.h"

namespace nnfold {

class ExpandDims : public AxisFlagsLayer {
public:
    NF_PARAM_TABLE(ExpandDims,
                   {0, "expand_w", &ExpandDims::flag_w},
                   {1, "expand_h", &ExpandDims::flag_h},
                   {2, "expand_c", &ExpandDims::flag_c},
                   NF_PARAM(3, axes),
                   {11, "expand_d", &ExpandDims::flag_d})
    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        return check_axes_count();
    }

protected:
    Status out_shape(const Shape& s, Shape& out) const override {
        if (s.dims < 1 || s.dims > 4)
            return shape_mismatch("ExpandDims needs a 1D-4D input, got " + s.str());
        bool ew = false, eh = false, ed = false, ec = false;
        if (axes.empty()) {
            ew = flag_w != 0;
            eh = flag_h != 0;
            ed = flag_d != 0;
            ec = flag_c != 0;
        } else {
            for (int a0 : axes) {
                const int a = a0 < 0 ? a0 + s.dims + 1 : a0;
                if (a < 0 || a > s.dims || s.dims == 4)
                    return shape_mismatch("ExpandDims axis " + std::to_string(a0) + " is out of range for input " +
                                          s.str() + (s.dims == 4 ? " (a 4D tensor cannot grow)" : ""));
                static const char kMap[3][4] = {{'h', 'w', 0, 0}, {'c', 'h', 'w', 0}, {'c', 'd', 'h', 'w'}};
                switch (kMap[s.dims - 1][a]) {
                case 'w': ew = true; break;
                case 'h': eh = true; break;
                case 'd': ed = true; break;
                default: ec = true; break;
                }
            }
        }
        const int n = (int)ew + (int)eh + (int)ed + (int)ec;
        if (n == 0) {
            out = s;
            return Status::ok();
        }
        const bool ok = s.dims == 1 ? !ed && !ec : s.dims == 2 ? !ed && n == 1 : s.dims == 3 && n == 1;
        if (!ok)
            return unsupported("ExpandDims of " + std::to_string(s.dims) + "D input " + s.str() + " by" +
                               (ew ? " w" : "") + (eh ? " h" : "") + (ed ? " d" : "") + (ec ? " c" : "") +
                               ": ncnn does not apply this combination (it expands one axis at a time)");
        switch (s.dims) {
        case 1: out = ew && eh ? Shape::d3(1, s.w, 1) : ew ? Shape::d2(1, s.w) : Shape::d2(s.w, 1); break;
        case 2: out = ew ? Shape::d3(1, s.w, s.h) : eh ? Shape::d3(s.w, 1, s.h) : Shape::d3(s.w, s.h, 1); break;
        default:
            out = ew ? Shape::d4(1, s.w, s.h, s.c) : eh ? Shape::d4(s.w, 1, s.h, s.c)
                : ed ? Shape::d4(s.w, s.h, 1, s.c) : Shape::d4(s.w, s.h, s.c, 1);
            break;
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(ExpandDims)

}  // namespace nnfold
