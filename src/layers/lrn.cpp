// LRN (ncnn src/layer/lrn.cpp), Caffe's local response normalization. Params: 0 region_type
// (0 ACROSS_CHANNELS, 1 WITHIN_CHANNEL), 1 local_size (5), 2 alpha (1.f), 3 beta (0.75f),
// 4 bias (1.f). No weights. Input [c,h,w] ([h,w], [w] are one channel).
//   across: y = x * (bias + alpha / local_size * sum of x^2 over channels q - local_size/2 ..
//           q + local_size/2 that exist)^-beta
//   within: y = x * (bias + alpha / local_size^2 * sum of x^2 over the local_size x local_size
//           window starting local_size/2 before x, zero outside)^-beta
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "layers/conv_common.h"
#include "layers/param_table.h"

namespace nnfold {

namespace {

// ptr[i] *= base[i]^-beta for i in [0, n). ncnn (src/layer/lrn.cpp) calls pow per element, the
// bulk of this layer's time (googlenet's conv2/norm2: 600k of them). For beta 0.75 (Caffe's default,
// every LRN of the zoo) base^-0.75 = 1 / sqrt(base * sqrt(base)), evaluated in double (two square
// roots, a product and a division: each correctly rounded, scalar and f64x2 alike, so every build
// gives the same bits) and rounded to float once: within about 3e-16 relative of the exact power, so
// the float factor is the correctly rounded power except in vanishingly rare midpoint cases, and the
// product with x is then rounded as ncnn's x * pow(...). That precision matters for int8 models: a
// float-only form (a few ulp) moved enough values across int8 rounding boundaries after googlenet's
// LRN layers to fail the int8 oracle test (tests/cpp/zoo). base <= 0, +-0, inf and NaN give pow's
// results (NaN, +inf, 0, NaN).
void scale_by_neg_pow(float* ptr, const float* base, size_t n, float beta) {
    if (beta == 0.75f) {
        for (size_t i = 0; i < n; i++) {
            const double b = base[i];
            ptr[i] = ptr[i] * (float)(1.0 / std::sqrt(b * std::sqrt(b)));
        }
        return;
    }
    for (size_t i = 0; i < n; i++)
        ptr[i] = ptr[i] * std::pow(base[i], -beta);
}

}  // namespace

class LRN : public Layer {
public:
    LRN() {
        one_blob_only = true;
        support_inplace = true;
    }
    int region_type = 0;
    int local_size = 5;
    float alpha = 1.f, beta = 0.75f, bias = 1.f;

    NF_PARAM_TABLE(LRN,
                   NF_PARAM(0, region_type),
                   NF_PARAM(1, local_size),
                   NF_PARAM(2, alpha),
                   NF_PARAM(3, beta),
                   NF_PARAM(4, bias))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (region_type != 0 && region_type != 1)
            return invalid_model("region_type (param 0) must be 0 (across channels) or 1 (within channel), got " +
                                 std::to_string(region_type));
        if (local_size <= 0 || local_size > 65535)
            return invalid_model("local_size (param 1) must be positive, got " + std::to_string(local_size));
        return Status::ok();
    }
    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        NF_RETURN_IF_ERROR(same_shape(bottoms, tops));
        Planes p;
        return conv_input_planes(bottoms[0], "LRN", p);
    }
    Status forward_inplace(Mat& m, const Option& opt) const override {
        Planes p;
        NF_RETURN_IF_ERROR(conv_input_planes(m.shape(), "LRN", p));
        const int w = p.w, h = p.h, channels = p.c;
        const size_t size = (size_t)w * h;
        Mat sq;
        NF_RETURN_IF_ERROR(sq.create(Shape::d3(w, h, channels), opt.workspace_allocator));
        // threads: channels (each output channel's sums and power in one fixed order)
        parallel_for(channels, parallel_grain((int64_t)size), [&](int64_t q0, int64_t q1) {
            for (size_t i = (size_t)q0 * size; i < (size_t)q1 * size; i++)
                sq.data[i] = m.data[i] * m.data[i];
        });

        if (region_type == 0) {
            const float alpha_div_size = alpha / local_size;
            parallel_for(channels, parallel_grain((int64_t)size * (local_size + 20)), [&](int64_t q0, int64_t q1) {
                std::vector<float> ss(size);
                for (int q = (int)q0; q < q1; q++) {
                    std::fill(ss.begin(), ss.end(), 0.f);
                    for (int c = q - local_size / 2; c <= q + local_size / 2; c++) {
                        if (c < 0 || c >= channels)
                            continue;
                        const float* sp = sq.data + c * size;
                        for (size_t i = 0; i < size; i++)
                            ss[i] += sp[i];
                    }
                    for (size_t i = 0; i < size; i++)
                        ss[i] = bias + alpha_div_size * ss[i];
                    scale_by_neg_pow(m.data + q * size, ss.data(), size, beta);
                }
            });
            return Status::ok();
        }

        const int pad = local_size / 2;
        Pads border{pad, local_size - pad - 1, pad, local_size - pad - 1};
        Mat sqb = sq;
        if (border.any())
            NF_RETURN_IF_ERROR(make_border(sq, sqb, border, 0.f, opt.workspace_allocator));
        const int bw = w + border.left + border.right;
        const size_t bplane = (size_t)bw * (h + border.top + border.bottom);
        const int maxsize = local_size * local_size;
        const float alpha_div_size = alpha / maxsize;
        const std::vector<int> ofs = kernel_offsets(local_size, local_size, 1, 1, bw);
        parallel_for(channels, parallel_grain((int64_t)size * (maxsize + 20)), [&](int64_t q0, int64_t q1) {
            std::vector<float> base((size_t)w);
            for (int q = (int)q0; q < q1; q++) {
                float* ptr = m.data + q * size;
                const float* sb = sqb.data + q * bplane;
                for (int i = 0; i < h; i++) {
                    for (int j = 0; j < w; j++) {
                        const float* sp = sb + (size_t)i * bw + j;
                        float s = 0.f;
                        for (int k = 0; k < maxsize; k++)
                            s += sp[ofs[k]];
                        base[(size_t)j] = bias + alpha_div_size * s;
                    }
                    scale_by_neg_pow(ptr, base.data(), (size_t)w, beta);
                    ptr += w;
                }
            }
        });
        return Status::ok();
    }
};

NF_DEFINE_LAYER(LRN)

}  // namespace nnfold
