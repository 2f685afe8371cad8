// Tile (ncnn src/layer/tile.cpp). Params: 0 axis (default 0), 1 tiles (default 1), 2 repeats
// (int array, newer ncnn; when given, axis/tiles are ignored). No weights.
//  - axis/tiles: the input repeated `tiles` times along one axis (outermost first: 2D h=0 w=1,
//    3D c=0 h=1 w=2, 4D c=0 d=1 h=2 w=3; a 1D input always tiles w).
//  - repeats (numpy.tile): one factor per axis, right-aligned: 1 -> w; 2 -> h,w; 3 -> c,h,w
//    (d,h,w for a 4D input); 4 -> c,d,h,w. The output has max(dims, repeats) dims. A smaller
//    input grows the way ncnn's tensors nest: [w] -> [1,w] -> [1,1,w], [h,w] -> [1,h,w], and a
//    3D [c,h,w] tiled with 4 factors becomes [c*rc, rd, h*rh, w*rw] (its missing d sits inside
//    c; numpy would put the new axis outermost instead).
// Every output element reads the input at its coordinates modulo the input's extents.
#include <cstring>

#include "layers/one_input_layer.h"
#include "layers/param_table.h"

namespace nnfold {

class Tile : public OneInputLayer {
public:
    int axis = 0;
    int tiles = 1;
    std::vector<int> repeats;

    NF_PARAM_TABLE(Tile, NF_PARAM(0, axis), NF_PARAM(1, tiles), NF_PARAM(2, repeats))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (repeats.empty() && tiles < 1)
            return invalid_model("Tile tiles (param 1) must be positive, got " + std::to_string(tiles));
        if (repeats.size() > 4)
            return invalid_model("Tile repeats (param 2) has " + std::to_string(repeats.size()) + " values, at most 4");
        for (int r : repeats)
            if (r < 1)
                return invalid_model("Tile repeats (param 2) must be positive, got " + std::to_string(r));
        return Status::ok();
    }

    // Repeat factors w, h, d, c and the output dims.
    Status factors(const Shape& s, int r[4], int& out_dims) const {
        if (s.dims < 1 || s.dims > 4)
            return shape_mismatch("Tile needs a 1D-4D input, got " + s.str());
        r[0] = r[1] = r[2] = r[3] = 1;
        out_dims = s.dims;
        if (repeats.empty()) {
            if (s.dims == 1) {
                r[0] = tiles;
                return Status::ok();
            }
            if (axis < 0 || axis >= s.dims)
                return shape_mismatch("Tile axis " + std::to_string(axis) + " is out of range for input " + s.str());
            // outermost-first axis -> extent index (w 0, h 1, d 2, c 3)
            static const int kMap[3][4] = {{1, 0, 0, 0}, {3, 1, 0, 0}, {3, 2, 1, 0}};
            r[kMap[s.dims - 2][axis]] = tiles;
            return Status::ok();
        }
        const int n = (int)repeats.size();
        const int* p = repeats.data();
        switch (n) {
        case 1: r[0] = p[0]; break;
        case 2: r[1] = p[0]; r[0] = p[1]; break;
        case 3:
            r[s.dims == 4 ? 2 : 3] = p[0];
            r[1] = p[1];
            r[0] = p[2];
            break;
        default: r[3] = p[0]; r[2] = p[1]; r[1] = p[2]; r[0] = p[3]; break;
        }
        out_dims = std::max(s.dims, n);
        return Status::ok();
    }

    Status out_shape(const Shape& s, Shape& out) const override {
        int r[4], dims;
        NF_RETURN_IF_ERROR(factors(s, r, dims));
        const int64_t e[4] = {(int64_t)s.w * r[0], (int64_t)s.h * r[1], (int64_t)s.d * r[2], (int64_t)s.c * r[3]};
        for (int64_t v : e)
            if (v > INT32_MAX)
                return shape_mismatch("Tile of input " + s.str() + " is too large");
        switch (dims) {
        case 1: out = Shape::d1((int)e[0]); break;
        case 2: out = Shape::d2((int)e[0], (int)e[1]); break;
        case 3: out = Shape::d3((int)e[0], (int)e[1], (int)e[3]); break;
        default: out = Shape::d4((int)e[0], (int)e[1], (int)e[2], (int)e[3]); break;
        }
        if (!out.valid())
            return shape_mismatch("Tile of input " + s.str() + " is too large");
        return Status::ok();
    }
    Status forward(const Mat& bottom, Mat& top, const Option& opt) const override {
        const Shape s = bottom.shape();
        Shape o;
        NF_RETURN_IF_ERROR(out_shape(s, o));
        if (o == s) {
            top = bottom;
            return Status::ok();
        }
        Mat dst;
        NF_RETURN_IF_ERROR(dst.create(o, opt.blob_allocator));
        // rows of the output: each is the input row repeated along w
        float* dp = dst.data;
        const size_t ow = (size_t)o.w;
        for (int q = 0; q < o.c; q++)
            for (int z = 0; z < o.d; z++)
                for (int y = 0; y < o.h; y++) {
                    const float* row = bottom.data + (((size_t)(q % s.c) * s.d + (z % s.d)) * s.h + (y % s.h)) * s.w;
                    for (size_t x = 0; x < ow; x += (size_t)s.w)
                        std::memcpy(dp + x, row, (size_t)s.w * sizeof(float));
                    dp += ow;
                }
        top = dst;
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Tile)

}  // namespace nnfold
