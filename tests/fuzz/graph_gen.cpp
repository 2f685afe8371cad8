#include "graph_gen.h"

#include <cstdio>
#include <set>

#include "runtime/random.h"

namespace nnfold {
namespace fuzz {

namespace {

// A blob's shape as ncnn's .param sees it, outermost first: dims 1 [w], 2 [h,w], 3 [c,h,w].
struct S {
    int dims = 3;
    int c = 1, h = 1, w = 1;
    int channels() const { return dims == 3 ? c : dims == 2 ? h : w; }
    int total() const { return c * h * w; }
};

struct Blob {
    std::string name;
    S s;
};

class Gen {
public:
    explicit Gen(uint32_t seed) : rng_(seed ^ 0x9E3779B9u) {}

    int uni(int lo, int hi) { return lo + (int)(rng_.next_u32() % (uint32_t)(hi - lo + 1)); }
    bool chance(int percent) { return uni(0, 99) < percent; }
    float real(float lo, float hi) { return rng_.uniform(lo, hi); }

    // A float token ncnn reads exactly (exponent form, at most 15 characters).
    static std::string f(float v) {
        char buf[32];
        snprintf(buf, sizeof(buf), "%.5e", (double)v);
        return buf;
    }

    std::string new_blob(const S& s) {
        std::string n = "b" + std::to_string(blob_seq_++);
        blobs_.push_back({n, s});
        return n;
    }
    std::string new_layer_name(const std::string& prefix) { return prefix + std::to_string(layer_seq_++); }

    void emit(const std::string& type, const std::string& name, const std::vector<std::string>& bottoms,
              const std::vector<std::string>& tops, const std::string& params) {
        std::string line = type + " " + name + " " + std::to_string(bottoms.size()) + " " + std::to_string(tops.size());
        for (auto& b : bottoms)
            line += " " + b;
        for (auto& t : tops)
            line += " " + t;
        if (!params.empty())
            line += " " + params;
        lines_.push_back(line);
        for (auto& b : bottoms)
            consumed_.insert(b);
    }

    // Picks a source blob: usually the newest, sometimes an older one (which then has several
    // consumers: the reader inserts a Split, the passes must respect the other consumer).
    const Blob& pick(int dims_mask = 7) {
        std::vector<int> ok;
        for (int i = 0; i < (int)blobs_.size(); i++)
            if (dims_mask & (1 << (blobs_[i].s.dims - 1)))
                ok.push_back(i);
        if (ok.empty())
            return blobs_.back();
        if (chance(65))
            return blobs_[ok.back()];
        return blobs_[ok[uni(0, (int)ok.size() - 1)]];
    }

    // Fused activation params of a host layer (ncnn fused_activation.h: 1 ReLU, 2 leaky ReLU,
    // 3 Clip, 4 Sigmoid, 5 Mish, 6 HardSwish).
    std::string fused_act() {
        if (!chance(30))
            return "";
        int t = uni(1, 6);
        std::string p = " 9=" + std::to_string(t);
        if (t == 2)
            p += " -23310=1," + f(real(0.f, 0.3f));
        else if (t == 3)
            p += " -23310=2," + f(real(-1.f, -0.1f)) + "," + f(real(0.1f, 1.f));
        else if (t == 6)
            p += " -23310=2," + f(0.2f) + "," + f(0.5f);
        return p;
    }

    static int conv_out(int in, int k, int s, int d, int p0, int p1) {
        int span = in + p0 + p1 - (d * (k - 1) + 1);
        return span < 0 ? 0 : span / s + 1;
    }

    // One of the convolution family on a 3D blob.
    bool conv_family(const Blob in, const std::string& type, std::string& top, S& out, const std::string& extra_name = "",
                     int fixed_k = -1, int fixed_num = -1, std::string* geometry = nullptr) {
        S s = in.s;
        bool depthwise = type.find("DepthWise") != std::string::npos;
        bool deconv = type.find("Deconvolution") != std::string::npos;
        int k = fixed_k > 0 ? fixed_k : (chance(50) ? 1 : uni(2, 3));
        int st = chance(70) ? 1 : 2;
        int dil = chance(85) ? 1 : 2;
        int pad = chance(60) ? 0 : 1;
        std::string geo;
        if (geometry && !geometry->empty()) {
            geo = *geometry;
            sscanf(geo.c_str(), "%d %d %d %d", &k, &st, &dil, &pad);
        }
        // ncnn's SAME_UPPER (-233) at stride 1 and dilation 1: output extent = input extent
        bool same = !deconv && !geometry && st == 1 && dil == 1 && k > 1 && chance(15);
        int num = fixed_num > 0 ? fixed_num : uni(1, 6);
        int group = 1;
        if (depthwise) {
            group = s.c;
            num = s.c * (chance(75) ? 1 : 2);
        }
        int oh, ow;
        if (deconv) {
            oh = (s.h - 1) * st + dil * (k - 1) + 1 - 2 * pad;
            ow = (s.w - 1) * st + dil * (k - 1) + 1 - 2 * pad;
        } else {
            oh = conv_out(s.h, k, st, dil, pad, pad);
            ow = conv_out(s.w, k, st, dil, pad, pad);
        }
        if (same) {
            oh = s.h;
            ow = s.w;
        }
        if (oh < 1 || ow < 1 || oh > 24 || ow > 24)
            return false;
        if (geometry)
            *geometry = std::to_string(k) + " " + std::to_string(st) + " " + std::to_string(dil) + " " + std::to_string(pad);
        int bias = chance(60) ? 1 : 0;
        int wds = num * (s.c / group) * k * k;
        std::string p = "0=" + std::to_string(num) + " 1=" + std::to_string(k) + " 2=" + std::to_string(dil) +
                        " 3=" + std::to_string(st) + " 4=" + std::to_string(same ? -233 : pad) + " 5=" + std::to_string(bias) +
                        " 6=" + std::to_string(wds);
        if (depthwise)
            p += " 7=" + std::to_string(group);
        if (fixed_num < 0)
            p += fused_act();
        out = S{3, num, oh, ow};
        top = new_blob(out);
        emit(type, extra_name.empty() ? new_layer_name("cv") : extra_name, {in.name}, {top}, p);
        return true;
    }

    // A constant operand of a BinaryOp with `a` (MemoryData), in a shape ncnn's broadcasting
    // accepts against a's shape; returns the MemoryData's top.
    std::string memorydata_for(const S& a) {
        std::vector<S> cands;
        cands.push_back(S{1, 1, 1, 1});                      // [1]
        if (a.dims == 3) {
            cands.push_back(S{1, 1, 1, a.c});                // [c]
            cands.push_back(S{3, a.c, 1, 1});                // [c,1,1]
            cands.push_back(S{2, 1, a.c, 1});                // [c,1]
            cands.push_back(S{3, a.c, a.h, a.w});            // [c,h,w]
            cands.push_back(S{3, 1, a.h, a.w});              // [1,h,w]
            cands.push_back(S{3, 1, 1, a.w});                // [1,1,w]
        } else if (a.dims == 2) {
            cands.push_back(S{1, 1, 1, a.h});                // [h]
            cands.push_back(S{2, 1, a.h, 1});                // [h,1]
            cands.push_back(S{2, 1, 1, a.w});                // [1,w]
            cands.push_back(S{2, 1, a.h, a.w});              // [h,w]
        } else {
            cands.push_back(S{1, 1, 1, a.w});                // [w]
        }
        S m = cands[uni(0, (int)cands.size() - 1)];
        std::string p = "0=" + std::to_string(m.w);
        if (m.dims >= 2)
            p += " 1=" + std::to_string(m.h);
        if (m.dims == 3)
            p += " 2=" + std::to_string(m.c);
        std::string top = new_blob(m);
        emit("MemoryData", new_layer_name("md"), {}, {top}, p);
        return top;
    }

    // ncnn's BinaryOp ops that keep finite values on our inputs: 0 add, 1 sub, 2 mul, 3 div
    // (divisor kept away from 0), 4 max, 5 min, 7 rsub, 8 rdiv.
    void binaryop(const Blob& a) {
        int r = uni(0, 2);
        std::vector<int> ops = {0, 1, 2, 3, 4, 5, 7};
        int op = ops[uni(0, (int)ops.size() - 1)];
        std::string name = new_layer_name("bo");
        if (r == 0) {
            float b = real(0.5f, 2.f) * (chance(50) ? 1.f : -1.f);
            std::string top = new_blob(a.s);
            emit("BinaryOp", name, {a.name}, {top}, "0=" + std::to_string(op) + " 1=1 2=" + f(b));
            return;
        }
        if (r == 1) {
            if (op == 3)
                op = 2;  // random MemoryData data can be near 0: no division by it
            S as = a.s;
            std::string an = a.name;
            std::string md = memorydata_for(as);
            const S ms = blobs_.back().s;
            S out = as;
            if (ms.dims == as.dims) {
                out.c = std::max(as.c, ms.c);
                out.h = std::max(as.h, ms.h);
                out.w = std::max(as.w, ms.w);
            }
            std::string top = new_blob(out);
            if (chance(50))
                emit("BinaryOp", name, {an, md}, {top}, "0=" + std::to_string(op));
            else
                emit("BinaryOp", name, {md, an}, {top}, "0=" + std::to_string(op));
            return;
        }
        // two tensors of the same shape
        std::vector<int> same;
        for (int i = 0; i < (int)blobs_.size(); i++)
            if (blobs_[i].s.dims == a.s.dims && blobs_[i].s.total() == a.s.total() && blobs_[i].s.c == a.s.c &&
                blobs_[i].s.h == a.s.h && blobs_[i].s.w == a.s.w)
                same.push_back(i);
        std::string other = blobs_[same[uni(0, (int)same.size() - 1)]].name;
        if (op == 3)
            op = 0;
        std::string an = a.name;
        S as = a.s;
        std::string top = new_blob(as);
        emit("BinaryOp", name, {an, other}, {top}, "0=" + std::to_string(op));
    }

    void activation(const Blob& a) {
        std::string an = a.name;
        S as = a.s;
        std::string top = new_blob(as);
        switch (uni(0, 7)) {
        case 0: emit("ReLU", new_layer_name("relu"), {an}, {top}, ""); break;
        case 1: emit("ReLU", new_layer_name("lrelu"), {an}, {top}, "0=" + f(real(0.f, 0.3f))); break;
        case 2: emit("Clip", new_layer_name("clip"), {an}, {top}, "0=" + f(real(-1.f, 0.f)) + " 1=" + f(real(0.1f, 1.f))); break;
        case 3: emit("Sigmoid", new_layer_name("sig"), {an}, {top}, ""); break;
        case 4: emit("Mish", new_layer_name("mish"), {an}, {top}, ""); break;
        case 5: emit("HardSwish", new_layer_name("hs"), {an}, {top}, ""); break;
        case 6: emit("TanH", new_layer_name("tanh"), {an}, {top}, ""); break;
        default: {
            int n = chance(50) ? 1 : as.channels();
            emit("PReLU", new_layer_name("prelu"), {an}, {top}, "0=" + std::to_string(n));
        }
        }
    }

    // ncnn Permute of a 3D [c,h,w] blob (layers/permute.cpp: input axis per output axis,
    // innermost first, w=0 h=1 c=2).
    static S permuted(const S& s, int order) {
        static const int kOrder3[6][3] = {{0, 1, 2}, {1, 0, 2}, {0, 2, 1}, {2, 0, 1}, {1, 2, 0}, {2, 1, 0}};
        int e[3] = {s.w, s.h, s.c};
        return S{3, e[kOrder3[order][2]], e[kOrder3[order][1]], e[kOrder3[order][0]]};
    }

    // A MemoryData constant for a BinaryOp on `s`: one value, or a vector along one axis.
    std::string axis_constant(const S& s) {
        S k{1, 1, 1, 1};
        int axis = uni(0, 3);
        if (axis != 0 && s.dims == 1)
            k = S{1, 1, 1, s.w};
        else if (axis == 1 && s.dims == 3)
            k = chance(50) ? S{3, s.c, 1, 1} : S{1, 1, 1, s.c};
        else if (axis == 2 && s.dims == 3)
            k = S{3, 1, s.h, 1};
        else if (axis == 3 && s.dims == 3)
            k = S{3, 1, 1, s.w};
        std::string p = "0=" + std::to_string(k.w);
        if (k.dims == 3)
            p += " 1=" + std::to_string(k.h) + " 2=" + std::to_string(k.c);
        std::string name = new_blob(k);
        emit("MemoryData", new_layer_name("md"), {}, {name}, p);
        return name;
    }

    // Elementwise math with constants: scalars and per-axis vectors, on either side (the affine
    // chain pass, sink_permute). Returns the last output.
    Blob constant_chain(const Blob in, int n) {
        Blob cur = in;
        for (int i = 0; i < n; i++) {
            static const int ops[] = {0, 1, 2, 7};
            std::string k;
            if (!chance(35))
                k = axis_constant(in.s);
            std::string top = new_blob(in.s);
            if (k.empty()) {
                float v = chance(20) ? 1.f : real(-2.f, 2.f);
                int op = chance(15) ? 3 : ops[uni(0, 3)];
                if (op == 3)
                    v = real(0.5f, 2.f);
                emit("BinaryOp", new_layer_name("sb"), {cur.name}, {top}, "0=" + std::to_string(op) + " 1=1 2=" + f(v));
            } else {
                std::string op = "0=" + std::to_string(ops[uni(0, 3)]);
                if (chance(50))
                    emit("BinaryOp", new_layer_name("cb"), {cur.name, k}, {top}, op);
                else
                    emit("BinaryOp", new_layer_name("cb"), {k, cur.name}, {top}, op);
            }
            cur = Blob{top, in.s};
        }
        return cur;
    }

    // NHWC-shaped graphs: Permutes (sometimes spelled Reshape -> 2D Permute -> Reshape), math in
    // between, a second Permute that may undo the first; MatMul-like InnerProduct -> Reshape ->
    // BatchNorm -> Reshape.
    void seed_shapes(const Blob in) {
        const S s = in.s;
        if (s.dims == 1 && chance(60)) {
            int num = uni(1, 6);
            std::string ip = new_blob(S{1, 1, 1, num});
            emit("InnerProduct", new_layer_name("ip"), {in.name}, {ip},
                 "0=" + std::to_string(num) + " 1=" + std::to_string(uni(0, 1)) + " 2=" + std::to_string(num * s.w) +
                     fused_act());
            bool chan = chance(50);
            S rs = chan ? S{3, num, 1, 1} : S{3, 1, 1, num};
            std::string r1 = new_blob(rs);
            emit("Reshape", new_layer_name("rs"), {ip}, {r1}, "0=" + std::to_string(rs.w) + " 1=1 2=" + std::to_string(rs.c));
            std::string b = new_blob(rs);
            emit("BatchNorm", new_layer_name("bn"), {r1}, {b}, "0=" + std::to_string(rs.channels()) + " 1=" + f(1e-3f));
            std::string r2 = new_blob(S{1, 1, 1, num});
            emit("Reshape", new_layer_name("rs"), {b}, {r2}, "0=" + std::to_string(num));
            return;
        }
        if (s.dims == 2 && s.h > 1 && chance(60)) {
            // batched MatMul with a constant B: row-wise InnerProduct [h, num] -> Reshape to 3D
            // [a, h/a, num] -> a bias along the channels (or along h: must not fold)
            int num = uni(1, 6);
            std::string ip = new_blob(S{2, 1, s.h, num});
            emit("InnerProduct", new_layer_name("ipr"), {in.name}, {ip},
                 "0=" + std::to_string(num) + " 1=" + std::to_string(uni(0, 1)) + " 2=" + std::to_string(num * s.w) +
                     fused_act());
            int a = s.h % 2 == 0 ? 2 : 1;
            S rs{3, a, s.h / a, num};
            std::string r1 = new_blob(rs);
            emit("Reshape", new_layer_name("rs"), {ip}, {r1},
                 "0=" + std::to_string(num) + " 1=" + std::to_string(rs.h) + " 2=" + std::to_string(a));
            constant_chain(Blob{r1, rs}, uni(1, 2));
            return;
        }
        if (s.dims != 3) {
            constant_chain(in, uni(1, 3));
            return;
        }
        if (chance(30)) {
            constant_chain(in, uni(1, 3));
            return;
        }
        int order = uni(1, 5);
        S ps = permuted(s, order);
        std::string p1 = new_blob(ps);
        if (order == 3 && chance(50)) {
            // the importers' spelling of NCHW -> NHWC
            std::string a = new_blob(S{2, 1, s.c, s.h * s.w});
            emit("Reshape", new_layer_name("rs"), {in.name}, {a}, "0=" + std::to_string(s.h * s.w) + " 1=" + std::to_string(s.c));
            std::string t = new_blob(S{2, 1, s.h * s.w, s.c});
            emit("Permute", new_layer_name("pm"), {a}, {t}, "0=1");
            emit("Reshape", new_layer_name("rs"), {t}, {p1},
                 "0=" + std::to_string(ps.w) + " 1=" + std::to_string(ps.h) + " 2=" + std::to_string(ps.c));
        } else {
            emit("Permute", new_layer_name("pm"), {in.name}, {p1}, "0=" + std::to_string(order));
        }
        Blob cur{p1, ps};
        if (chance(60))
            cur = constant_chain(cur, uni(1, 2));
        if (chance(40)) {
            std::string t = new_blob(ps);
            int kind = uni(0, 3);
            if (kind == 0)
                emit("BatchNorm", new_layer_name("bn"), {cur.name}, {t}, "0=" + std::to_string(ps.c) + " 1=" + f(1e-3f));
            else if (kind == 1)
                emit("Scale", new_layer_name("sc"), {cur.name}, {t}, "0=" + std::to_string(ps.c) + " 1=" + std::to_string(uni(0, 1)));
            else
                emit(kind == 2 ? "ReLU" : "Sigmoid", new_layer_name("act"), {cur.name}, {t}, "");
            cur = Blob{t, ps};
        }
        if (chance(60)) {
            // back: the inverse order (3 <-> 4, the others are their own inverses) or any
            int back = chance(70) ? (order == 3 ? 4 : order == 4 ? 3 : order) : uni(0, 5);
            std::string t = new_blob(permuted(ps, back));
            emit("Permute", new_layer_name("pm"), {cur.name}, {t}, "0=" + std::to_string(back));
        }
    }

    void step() {
        const Blob src = pick();
        const S s = src.s;
        if (chance(8)) {
            seed_shapes(src);
            return;
        }
        int r = uni(0, 99);
        if (s.dims == 3) {
            if (r < 14) {
                static const char* types[] = {"Convolution", "Convolution", "ConvolutionDepthWise", "Deconvolution",
                                              "DeconvolutionDepthWise"};
                std::string top;
                S out;
                conv_family(src, types[uni(0, 4)], top, out);
                return;
            }
            if (r < 20) {
                innerproduct(src);
                return;
            }
            if (r < 26) {
                parallel_convs(src);
                return;
            }
            if (r < 30) {
                padding(src);
                return;
            }
            if (r < 36) {
                pooling(src);
                return;
            }
            if (r < 39) {
                std::string top = new_blob(S{1, 1, 1, s.c});
                emit("Reduction", new_layer_name("red"), {src.name}, {top}, "0=3 1=0 -23303=2,1,2 5=1");
                return;
            }
        } else if (s.dims == 2) {
            if (r < 12) {
                // ncnn's InnerProduct on a 2D [h, w] input with weights for w inputs runs row-wise:
                // [h, num_output] (when h > 1: ncnn innerproduct.cpp flattens a single row)
                int num = uni(1, 6);
                std::string top = new_blob(s.h > 1 ? S{2, 1, s.h, num} : S{1, 1, 1, num});
                emit("InnerProduct", new_layer_name("ipr"), {src.name}, {top},
                     "0=" + std::to_string(num) + " 1=" + std::to_string(uni(0, 1)) + " 2=" + std::to_string(num * s.w) +
                         fused_act());
                return;
            }
            if (r < 22) {
                gemm(src);
                return;
            }
        } else if (s.dims == 1) {
            if (r < 18) {
                innerproduct(src);
                return;
            }
            if (r < 22) {
                // x [c] -> Reshape [c,1,1] -> BinaryOp with a 3D blob of c channels
                // (eliminate_reshape_before_binaryop)
                std::vector<int> three;
                for (int i = 0; i < (int)blobs_.size(); i++)
                    if (blobs_[i].s.dims == 3 && blobs_[i].s.c == s.w)
                        three.push_back(i);
                if (!three.empty()) {
                    Blob a = blobs_[three[uni(0, (int)three.size() - 1)]];
                    std::string rs = new_blob(S{3, s.w, 1, 1});
                    emit("Reshape", new_layer_name("rs"), {src.name}, {rs}, "0=1 1=1 2=-1");
                    std::string top = new_blob(a.s);
                    int op = uni(0, 2);
                    if (chance(50))
                        emit("BinaryOp", new_layer_name("bo"), {a.name, rs}, {top}, "0=" + std::to_string(op));
                    else
                        emit("BinaryOp", new_layer_name("bo"), {rs, a.name}, {top}, "0=" + std::to_string(op));
                    return;
                }
            }
            if (r < 26) {
                // a 1x1 Convolution on a 1D blob runs as an InnerProduct (ncnn convolution.cpp)
                int num = uni(1, 8);
                std::string top = new_blob(S{1, 1, 1, num});
                emit("Convolution", new_layer_name("cv"), {src.name}, {top},
                     "0=" + std::to_string(num) + " 1=1 5=" + std::to_string(uni(0, 1)) + " 6=" +
                         std::to_string(num * s.w) + fused_act());
                return;
            }
        }
        if (r < 48) {
            int ch = s.channels();
            std::string top = new_blob(s);
            if (chance(55))
                emit("BatchNorm", new_layer_name("bn"), {src.name}, {top}, "0=" + std::to_string(ch) + " 1=" + f(1e-5f));
            else
                emit("Scale", new_layer_name("sc"), {src.name}, {top},
                     "0=" + std::to_string(ch) + " 1=" + std::to_string(uni(0, 1)));
            return;
        }
        if (r < 64) {
            binaryop(src);
            return;
        }
        if (r < 80) {
            activation(src);
            return;
        }
        if (r < 86) {
            std::string top = new_blob(s);
            if (chance(60))
                emit("Dropout", new_layer_name("drop"), {src.name}, {top}, chance(70) ? "" : "0=" + f(0.5f));
            else
                emit("Noop", new_layer_name("noop"), {src.name}, {top}, "");
            return;
        }
        if (r < 90) {
            std::string t1 = new_blob(s), t2 = new_blob(s);
            emit("Split", new_layer_name("sp"), {src.name}, {t1, t2}, "");
            return;
        }
        if (r < 95) {
            std::string top = new_blob(S{1, 1, 1, s.total()});
            if (chance(50))
                emit("Flatten", new_layer_name("fl"), {src.name}, {top}, "");
            else
                emit("Reshape", new_layer_name("rs"), {src.name}, {top}, "0=-1");
            return;
        }
        // Eltwise of two same-shape blobs
        std::vector<int> same;
        for (int i = 0; i < (int)blobs_.size(); i++)
            if (blobs_[i].s.dims == s.dims && blobs_[i].s.c == s.c && blobs_[i].s.h == s.h && blobs_[i].s.w == s.w)
                same.push_back(i);
        std::string other = blobs_[same[uni(0, (int)same.size() - 1)]].name;
        int op = uni(0, 2);
        std::string p = "0=" + std::to_string(op);
        if (op == 1 && chance(50))
            p += " -23301=2," + f(real(-1.f, 1.f)) + "," + f(real(-1.f, 1.f));
        std::string top = new_blob(s);
        emit("Eltwise", new_layer_name("elt"), {src.name, other}, {top}, p);
    }

    // Gemm with a constant operand: A constant [M, K] times the blob [K, N] (or the blob [M, K]
    // times a constant B [K, N]), an optional constant C of each broadcast type; output [M, N]
    // (fuse_gemm_batchnorm folds a BatchNorm along M into a constant A).
    void gemm(const Blob in) {
        bool const_a = chance(60);
        int M, N, K;
        std::string p;
        if (const_a) {
            M = uni(1, 5);
            K = in.s.h;
            N = in.s.w;
            p = "4=1 5=0 7=" + std::to_string(M) + " 9=" + std::to_string(K);
        } else {
            M = in.s.h;
            K = in.s.w;
            N = uni(1, 5);
            p = "4=0 5=1 8=" + std::to_string(N) + " 9=" + std::to_string(K);
        }
        if (chance(30))
            p += " 0=" + f(real(0.5f, 2.f));
        int ctype = uni(-1, 4);
        if (ctype >= 0) {
            p += " 6=1 10=" + std::to_string(ctype) + " 1=" + f(chance(50) ? 1.f : real(0.5f, 2.f));
            if (const_a)
                p += " 8=" + std::to_string(N);
            else
                p += " 7=" + std::to_string(M);
        }
        std::string top = new_blob(S{2, 1, M, N});
        emit("Gemm", new_layer_name("gemm"), {in.name}, {top}, p);
        if (chance(60)) {
            std::string t2 = new_blob(S{2, 1, M, N});
            emit("BatchNorm", new_layer_name("bn"), {top}, {t2}, "0=" + std::to_string(M));
        }
    }

    void innerproduct(const Blob in) {
        int num = uni(1, 8);
        int n_in = in.s.total();
        std::string top = new_blob(S{1, 1, 1, num});
        emit("InnerProduct", new_layer_name("ip"), {in.name}, {top},
             "0=" + std::to_string(num) + " 1=" + std::to_string(uni(0, 1)) + " 2=" + std::to_string(num * n_in) +
                 fused_act());
    }

    void padding(const Blob in) {
        int t = uni(0, 2), b = uni(0, 2), l = uni(0, 2), r = uni(0, 2);
        float v = chance(60) ? 0.f : real(-1.f, 1.f);
        S out{3, in.s.c, in.s.h + t + b, in.s.w + l + r};
        std::string top = new_blob(out);
        emit("Padding", new_layer_name("pad"), {in.name}, {top},
             "0=" + std::to_string(t) + " 1=" + std::to_string(b) + " 2=" + std::to_string(l) + " 3=" +
                 std::to_string(r) + " 5=" + f(v));
        // usually a convolution right after it (fuse_padding_convolution)
        if (chance(70)) {
            std::string ct;
            S cs;
            conv_family(blobs_.back(), chance(70) ? "Convolution" : "ConvolutionDepthWise", ct, cs);
        }
    }

    void pooling(const Blob in) {
        int kind = uni(0, 2);
        int pt = uni(0, 1);
        if (kind == 0) {
            std::string top = new_blob(S{1, 1, 1, in.s.c});
            emit("Pooling", new_layer_name("gp"), {in.name}, {top}, "0=" + std::to_string(pt) + " 4=1");
            // often followed by Flatten / Reshape / 1x1 Convolution (the eliminate / replace passes)
            if (chance(50)) {
                std::string t2 = new_blob(S{1, 1, 1, in.s.c});
                if (chance(50))
                    emit("Flatten", new_layer_name("fl"), {top}, {t2}, "");
                else
                    emit("Reshape", new_layer_name("rs"), {top}, {t2}, "0=-1");
            }
        } else if (kind == 1) {
            std::string top = new_blob(in.s);
            emit("Pooling", new_layer_name("p1"), {in.name}, {top}, "0=" + std::to_string(pt) + " 1=1 2=1");
        } else {
            if (in.s.h < 2 || in.s.w < 2)
                return;
            S out{3, in.s.c, (in.s.h - 2) / 2 + 1, (in.s.w - 2) / 2 + 1};
            std::string top = new_blob(out);
            emit("Pooling", new_layer_name("p2"), {in.name}, {top}, "0=" + std::to_string(pt) + " 1=2 2=2 5=1");
        }
    }

    // Convolutions sharing an input and joined by a Concat (fuse_split_convolution_concat), or a
    // channel Slice feeding one convolution per part (fuse_slice_convolution_concat).
    void parallel_convs(const Blob in) {
        int n = uni(2, 3);
        std::string geo;
        std::vector<std::string> tops;
        bool slice = chance(45) && in.s.c % n == 0;
        std::vector<std::string> srcs(n, in.name);
        int num = uni(1, 4);
        if (slice) {
            S part{3, in.s.c / n, in.s.h, in.s.w};
            std::vector<std::string> parts;
            std::string sl = "-23300=" + std::to_string(n);
            for (int k = 0; k < n; k++) {
                parts.push_back(new_blob(part));
                sl += ",-233";
            }
            emit("Slice", new_layer_name("sl"), {in.name}, parts, sl + " 1=0");
            srcs = parts;
        }
        int total_c = 0;
        S last;
        for (int k = 0; k < n; k++) {
            Blob b{srcs[k], slice ? S{3, in.s.c / n, in.s.h, in.s.w} : in.s};
            std::string top;
            S out;
            int this_num = slice ? num : (chance(70) ? num : uni(1, 4));
            if (!conv_family(b, "Convolution", top, out, "", k == 0 ? -1 : 0, this_num, &geo))
                return;  // a Slice without its consumers still makes a valid graph
            tops.push_back(top);
            total_c += out.c;
            last = out;
        }
        std::string top = new_blob(S{3, total_c, last.h, last.w});
        emit("Concat", new_layer_name("cat"), tops, {top}, "0=0");
    }

    GeneratedGraph run(int max_layers) {
        int n_inputs = chance(85) ? 1 : 2;
        for (int i = 0; i < n_inputs; i++) {
            S s;
            int r = uni(0, 9);
            if (r < 8)
                s = S{3, uni(1, 6), uni(1, 7), uni(1, 7)};
            else if (r < 9)
                s = S{1, 1, 1, uni(1, 12)};
            else
                s = S{2, 1, uni(1, 6), uni(1, 6)};
            std::string top = new_blob(s);
            std::string p = "0=" + std::to_string(s.w);
            if (s.dims >= 2)
                p += " 1=" + std::to_string(s.h);
            if (s.dims == 3)
                p += " 2=" + std::to_string(s.c);
            emit("Input", "in" + std::to_string(i), {}, {top}, p);
        }
        int steps = uni(1, chance(20) ? max_layers + 8 : max_layers);
        for (int i = 0; i < steps; i++)
            step();
        GeneratedGraph g;
        // keep one intermediate blob sometimes (a blob some layer consumes, not an input)
        if (chance(25)) {
            std::vector<std::string> cands;
            for (size_t i = n_inputs; i < blobs_.size(); i++)
                if (consumed_.count(blobs_[i].name))
                    cands.push_back(blobs_[i].name);
            int n = chance(70) ? 1 : 2;
            for (int k = 0; k < n && !cands.empty(); k++) {
                int i = uni(0, (int)cands.size() - 1);
                g.keep.push_back(cands[i]);
                cands.erase(cands.begin() + i);
            }
        }
        std::string body;
        for (auto& l : lines_)
            body += l + "\n";
        g.param = "7767517\n" + std::to_string(lines_.size()) + " " + std::to_string(blobs_.size()) + "\n" + body;
        g.layers = (int)lines_.size();
        return g;
    }

private:
    Rng rng_;
    std::vector<Blob> blobs_;
    std::vector<std::string> lines_;
    std::set<std::string> consumed_;
    int blob_seq_ = 0, layer_seq_ = 0;
};

}  // namespace

GeneratedGraph generate_graph(uint32_t seed, int max_layers) {
    Gen gen(seed);
    return gen.run(max_layers);
}

}  // namespace fuzz
}  // namespace nnfold
