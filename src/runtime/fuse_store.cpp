// Residual Add (+ activation) fused into the producing convolution's store: the plan (see
// runtime/fuse_store.h for the pattern, conditions and math). Net::run applies it.
#include "runtime/fuse_store.h"

#include <cfloat>
#include <cmath>

#include "layers/binaryop.h"
#include "layers/eltwise.h"

namespace nnfold {

namespace {

// True when `node` (built as `layer`) computes bottoms[0] + bottoms[1] of two distinct blobs.
bool is_plain_add(const LayerNode& node, const Layer& layer) {
    if (node.bottoms.size() != 2 || node.tops.size() != 1 || node.bottoms[0] == node.bottoms[1])
        return false;
    if (node.type == "BinaryOp") {
        const auto* b = dynamic_cast<const BinaryOp*>(&layer);
        return b && b->op_type == BinaryOp::kAdd && b->with_scalar == 0;
    }
    if (node.type == "Eltwise") {
        const auto* e = dynamic_cast<const Eltwise*>(&layer);
        if (!e || e->op_type != Eltwise::kSum)
            return false;
        // ncnn's sum with coefficients is a * c0 + b * c1: exactly a + b only when both are 1
        for (float c : e->coeffs)
            if (c != 1.f)
                return false;
        return e->coeffs.empty() || e->coeffs.size() == 2;
    }
    return false;
}

// The kernels' activation (layers/fused_activation.h numbering) computing what the standalone
// layer `node` computes, bit for bit; false when there is none.
bool activation_of(const LayerNode& node, bool optimized, FusedResidual& post) {
    if (node.bottoms.size() != 1 || node.tops.size() != 1)
        return false;
    const ParamDict& pd = node.params;
    if (node.type == "ReLU") {
        const float slope = pd.get_float(0, 0.f);
        post.act_type = slope == 0.f ? 1 : 2;
        post.act_p0 = slope;
        return true;
    }
    if (node.type == "Clip") {
        const float lo = pd.get_float(0, -FLT_MAX), hi = pd.get_float(1, FLT_MAX);
        // the layer applies min then max, the kernels test min last: the same only for min <= max
        if (!(lo <= hi))
            return false;
        post.act_type = 3;
        post.act_p0 = lo;
        post.act_p1 = hi;
        return true;
    }
    if (node.type == "HardSwish") {
        const float alpha = pd.get_float(0, 1.f / 6), beta = pd.get_float(1, 0.5f);
        if (alpha == 0.f)  // the layer's breakpoints are then infinite/NaN: keep it standalone
            return false;
        post.act_type = 6;
        post.act_p0 = alpha;
        post.act_p1 = beta;
        return true;
    }
    if (node.type == "Sigmoid" && optimized) {  // Sigmoid_fast is the kernels' sigmoid (type 4)
        post.act_type = 4;
        return true;
    }
    return false;
}

// True when `node` is a Padding that appends zero channels only: its output is its input on the
// first channels and +0.f after them (ncnn src/layer/padding.cpp, 3D: front/behind pad channels).
bool is_zero_channel_pad(const LayerNode& node) {
    if (node.type != "Padding" || node.bottoms.size() != 1 || node.tops.size() != 1)
        return false;
    const ParamDict& pd = node.params;
    for (int id : {0, 1, 2, 3, 4, 6, 7})
        if (pd.get_int(id, 0) != 0)
            return false;
    const float v = pd.get_float(5, 0.f);
    return v == 0.f && !std::signbit(v) && pd.get_int(8, 0) > 0;
}

}  // namespace

std::vector<StoreFusion> plan_store_fusions(const Graph& g, const std::vector<std::unique_ptr<Layer>>& layers,
                                            bool optimized) {
    std::vector<StoreFusion> plan;
    const int nl = (int)g.layers.size();
    if ((int)layers.size() != nl)
        return plan;
    std::vector<int> producer(g.blobs.size(), -1), uses(g.blobs.size(), 0), consumer(g.blobs.size(), -1);
    for (int i = 0; i < nl; i++) {
        for (int t : g.layers[i].tops)
            producer[t] = i;
        for (int b : g.layers[i].bottoms) {
            uses[b]++;
            consumer[b] = i;
        }
    }
    std::vector<char> taken(nl, 0);
    for (int a = 0; a < nl; a++) {
        const LayerNode& add = g.layers[a];
        if (!is_plain_add(add, *layers[a]))
            continue;
        // the addend whose producer can take the other one in its store: the later producer
        StoreFusion f;
        for (int k = 0; k < 2; k++) {
            const int x = add.bottoms[k];
            int r = add.bottoms[1 - k], pad = -1;
            const int p = producer[x];
            if (p < 0 || taken[p] || uses[x] != 1 || g.layers[p].tops.size() != 1 || !layers[p]->fuses_residual())
                continue;
            // a zero-channel Padding after P feeding only this Add: P adds the Padding's input
            const int q = producer[r];
            if (q > p && uses[r] == 1 && !taken[q] && is_zero_channel_pad(g.layers[q])) {
                pad = q;
                r = g.layers[q].bottoms[0];
            }
            if (producer[r] < 0 || producer[r] >= p)
                continue;
            if (f.producer < 0 || p > f.producer) {
                f.producer = p;
                f.x = x;
                f.r = r;
                f.pad = pad;
            }
        }
        if (f.producer < 0)
            continue;
        f.add = a;
        f.out = add.tops[0];
        const int y = add.tops[0];
        if (uses[y] == 1) {
            const int c = consumer[y];
            FusedResidual post;
            if (!taken[c] && activation_of(g.layers[c], optimized, post)) {
                f.act = c;
                f.out = g.layers[c].tops[0];
                f.post = post;
            }
        }
        taken[f.producer] = taken[f.add] = 1;
        if (f.pad >= 0)
            taken[f.pad] = 1;
        if (f.act >= 0)
            taken[f.act] = 1;
        plan.push_back(f);
    }
    return plan;
}

}  // namespace nnfold
