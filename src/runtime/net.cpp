#include "runtime/net.h"

#include <chrono>

#include "analysis/analysis.h"
#include "core/strings.h"

namespace nnfold {

Net::Net() : alloc_(std::make_shared<Allocator>()) {}
Net::~Net() = default;

Status Net::load(Graph g, const NetOptions& opt) {
    layers_.clear();
    alloc_ = std::make_shared<Allocator>(opt.limits);
    g.compact();
    NF_RETURN_IF_ERROR(g.validate());
    weights_bytes_ = 0;
    uses_optimized_ = false;
    const bool optimized = opt.use_optimized && opt.use_simd;
    for (auto& node : g.layers) {
        std::string who = layer_desc(node.name, node.type);
        std::unique_ptr<Layer> l = create_layer(node.type, optimized);
        if (!l)
            return unsupported(who + ": unknown layer type");
        const LayerTypeInfo* info = find_layer_type(node.type);
        if (optimized && info && info->create_optimized)
            uses_optimized_ = true;
        l->name = node.name;
        Status st = l->load_param(node.params);
        if (!st)
            return st.with_context(who);
        std::vector<WeightSpec> specs;
        st = l->weight_specs(specs);
        if (!st)
            return st.with_context(who);
        if (specs.size() != node.weights.size())
            return invalid_argument(who + ": has " + std::to_string(node.weights.size()) + " weight arrays, needs " +
                                    std::to_string(specs.size()) + " (were the weights loaded?)");
        for (size_t i = 0; i < specs.size(); i++) {
            if (node.weights[i].count() != specs[i].count)
                return invalid_argument(who + ": " + specs[i].name + " has " + std::to_string(node.weights[i].count()) +
                                        " values, needs " + std::to_string(specs[i].count));
            weights_bytes_ += specs[i].count * 4;
        }
        st = l->load_model(node.weights);
        if (!st)
            return st.with_context(who);
        node.weights.clear();
        node.weights.shrink_to_fit();
        Option o;
        o.blob_allocator = alloc_.get();
        o.workspace_allocator = alloc_.get();
        st = l->create_pipeline(o);
        if (!st)
            return st.with_context(who);
        layers_.push_back(std::move(l));
    }
    shapes_valid_ = false;
    fusions_.clear();
    if (opt.fuse_residual)
        fusions_ = plan_store_fusions(g, layers_, optimized);
    graph_ = std::move(g);
    return Status::ok();
}

std::vector<std::string> Net::input_names() const {
    std::vector<std::string> r;
    for (int b : graph_.input_blobs())
        r.push_back(graph_.blobs[b].name);
    return r;
}

std::vector<std::string> Net::output_names() const {
    std::vector<std::string> r;
    for (int b : graph_.output_blobs())
        r.push_back(graph_.blobs[b].name);
    return r;
}

Shape Net::declared_input_shape(const std::string& name) const {
    for (auto& l : graph_.layers)
        if (l.type == "Input")
            for (int t : l.tops)
                if (graph_.blobs[t].name == name)
                    return nnfold::declared_input_shape(l.params);
    return Shape();
}

Status Net::run(const std::map<std::string, Mat>& inputs, const std::vector<std::string>& wanted_names,
                std::map<std::string, Mat>& outputs, RunStats* stats) {
    using clock = std::chrono::steady_clock;
    auto t_start = clock::now();
    outputs.clear();
    const Graph& g = graph_;
    const int nl = (int)g.layers.size();
    if (nl == 0 || layers_.size() != g.layers.size())
        return invalid_argument("the network is not loaded");

    std::vector<int> wanted;
    if (wanted_names.empty()) {
        wanted = g.output_blobs();
    } else {
        for (auto& n : wanted_names) {
            int b = g.find_blob(n);
            if (b < 0)
                return invalid_argument("no blob named " + quote(n) + " in this model");
            wanted.push_back(b);
        }
    }
    std::map<std::string, Shape> in_shapes;
    for (auto& kv : inputs) {
        int b = g.find_blob(kv.first);
        if (b < 0)
            return invalid_argument("no input named " + quote(kv.first) + " (inputs: " +
                                    [&] {
                                        std::string s;
                                        for (auto& n : input_names())
                                            s += (s.empty() ? "" : ", ") + quote(n);
                                        return s;
                                    }() + ")");
        int p = g.producer(b);
        if (p < 0 || g.layers[p].type != "Input")
            return invalid_argument(quote(kv.first) + " is not an input blob");
        if (kv.second.empty())
            return invalid_argument("input " + quote(kv.first) + " is empty");
        in_shapes[kv.first] = kv.second.shape();
    }

    // layers needed for the wanted blobs
    std::vector<char> need_blob(g.blobs.size(), 0), need_layer(nl, 0);
    std::vector<int> producer(g.blobs.size(), -1);
    for (int i = 0; i < nl; i++)
        for (int t : g.layers[i].tops)
            producer[t] = i;
    for (int b : wanted)
        need_blob[b] = 1;
    for (int i = nl - 1; i >= 0; i--) {
        bool needed = false;
        for (int t : g.layers[i].tops)
            if (need_blob[t])
                needed = true;
        if (!needed)
            continue;
        need_layer[i] = 1;
        for (int b : g.layers[i].bottoms)
            need_blob[b] = 1;
    }
    for (int i = 0; i < nl; i++) {
        if (need_layer[i] && g.layers[i].type == "Input")
            for (int t : g.layers[i].tops)
                if (!inputs.count(g.blobs[t].name))
                    return invalid_argument("input " + quote(g.blobs[t].name) + " is needed but was not given");
    }

    // shapes for this run: checks the inputs against every layer before computing anything
    // (inferred once per set of input shapes: a model run again with the same shapes, the usual
    // case, skips building a reference layer per node to ask its output shape)
    if (!shapes_valid_ || in_shapes != shapes_for_) {
        shapes_valid_ = false;
        NF_RETURN_IF_ERROR(infer_shapes(g, in_shapes, shapes_));
        shapes_for_ = in_shapes;
        shapes_valid_ = true;
    }
    const std::vector<Shape>& shapes = shapes_;

    std::vector<int> last_use(g.blobs.size(), -1);
    std::vector<char> keep(g.blobs.size(), 0);
    for (int b : wanted)
        keep[b] = 1;
    for (int i = 0; i < nl; i++)
        if (need_layer[i])
            for (int b : g.layers[i].bottoms)
                last_use[b] = i;

    // residual Add fusions that apply to this run (runtime/fuse_store.h: per-run conditions): the
    // producer's index -> the fusion; the layers a fused producer made redundant are skipped
    std::vector<int> fuse_at(nl, -1);
    std::vector<char> fused_away(nl, 0);
    for (size_t k = 0; k < fusions_.size(); k++) {
        const StoreFusion& f = fusions_[k];
        if (!need_layer[f.producer] || !need_layer[f.add] || (f.act >= 0 && !need_layer[f.act]) ||
            (f.pad >= 0 && !need_layer[f.pad]))
            continue;
        if (keep[f.x] || (f.act >= 0 && keep[g.layers[f.add].tops[0]]) ||
            (f.pad >= 0 && keep[g.layers[f.pad].tops[0]]))
            continue;
        const Shape& s = shapes[f.x];
        const Shape& rs = shapes[f.r];
        if (s.dynamic || rs.dynamic || shapes[f.out].dynamic || shapes[f.out] != s)
            continue;
        if (f.pad < 0 ? rs != s
                      : s.dims != 3 || rs.dims != 3 || rs.w != s.w || rs.h != s.h ||
                            rs.c + g.layers[f.pad].params.get_int(8, 0) != s.c)
            continue;
        fuse_at[f.producer] = (int)k;
    }

    alloc_->reset_peak();
    Option opt;
    opt.blob_allocator = alloc_.get();
    opt.workspace_allocator = alloc_.get();
    opt.cancel = cancel_;
    std::vector<Mat> mats(g.blobs.size());
    if (stats)
        stats->layers.clear();

    for (int i = 0; i < nl; i++) {
        if (!need_layer[i])
            continue;
        if (cancel_ && *cancel_)
            return Status(ErrorCode::Cancelled, "cancelled");
        const LayerNode& node = g.layers[i];
        const Layer& layer = *layers_[i];
        if (fused_away[i]) {
            // computed in its producer's store: only the lifetimes of its inputs end here
            for (int b : node.bottoms)
                if (last_use[b] == i && !keep[b])
                    mats[b] = Mat();
            continue;
        }
        // the layer's description for error messages, built only when one is
        auto who = [&node] { return layer_desc(node.name, node.type); };
        auto t0 = clock::now();
        const StoreFusion* fusion = nullptr;
        FusedResidual residual;
        if (fuse_at[i] >= 0) {
            const StoreFusion& f = fusions_[fuse_at[i]];
            const Mat& r = mats[f.r];
            // the addend as computed (planar fp32 of the planned shape), else this run stays unfused
            if (!r.empty() && !r.int8 && r.elempack == 1 && r.shape() == shapes[f.r]) {
                fusion = &f;
                residual = f.post;
                residual.data = r.data;
                if (f.pad >= 0)
                    residual.channels = shapes[f.r].c;
            }
        }
        if (node.type == "Input") {
            for (int t : node.tops) {
                Mat m;
                NF_RETURN_IF_ERROR(inputs.at(g.blobs[t].name).clone(m, alloc_.get()));
                mats[t] = m;
            }
        } else {
            std::vector<Mat> bottoms;
            for (int b : node.bottoms) {
                if (mats[b].empty() && !shapes[b].dynamic)
                    return internal_error(who() + ": input blob " + quote(g.blobs[b].name) + " was not computed");
                // an int8 blob (layers/int8_layers.h) only goes into a layer that computes on codes
                if (mats[b].int8 && !layer.takes_int8())
                    return unsupported(who() + ": input blob " + quote(g.blobs[b].name) +
                                       " is int8 (the output of an int8 layer with int8_scale_term > 100), and " +
                                       node.type + " takes fp32 only");
                bottoms.push_back(mats[b]);
            }
            std::vector<Mat> tops(node.tops.size());
            bool inplace = layer.support_inplace && layer.one_blob_only && node.bottoms.size() == 1 &&
                           last_use[node.bottoms[0]] == i && !keep[node.bottoms[0]] && !fusion;
            Status st;
            if (inplace) {
                int b = node.bottoms[0];
                bottoms.clear();
                Mat m = std::move(mats[b]);
                mats[b] = Mat();
                if (!m.unique()) {
                    Mat c;
                    NF_RETURN_IF_ERROR(m.clone(c, alloc_.get()));
                    m = c;
                }
                st = layer.forward_inplace(m, opt);
                tops[0] = m;
            } else if (fusion) {
                Option fused_opt = opt;
                fused_opt.residual = &residual;
                st = layer.forward(bottoms, tops, fused_opt);
            } else {
                st = layer.forward(bottoms, tops, opt);
            }
            if (!st)
                return st.with_context(who());
            bottoms.clear();
            for (size_t k = 0; k < node.tops.size(); k++) {
                int t = node.tops[k];
                if (shapes[t].dynamic) {
                    // data-dependent extents; an empty result (nothing detected) is valid
                    if (!tops[k].empty() && tops[k].dims != shapes[t].dims)
                        return internal_error(who() + ": produced a " + std::to_string(tops[k].dims) + "D tensor for " +
                                              quote(g.blobs[t].name) + ", expected " + std::to_string(shapes[t].dims) + "D");
                    if (tops[k].empty()) {
                        tops[k] = Mat();
                        tops[k].dims = shapes[t].dims;
                        tops[k].w = shapes[t].w;
                    }
                    mats[t] = tops[k];
                    continue;
                }
                if (tops[k].empty())
                    return internal_error(who() + ": produced no data for " + quote(g.blobs[t].name));
                if (tops[k].shape() != shapes[t])
                    return internal_error(who() + ": produced shape " + tops[k].shape().str() + " for " +
                                          quote(g.blobs[t].name) + " but shape inference said " + shapes[t].str());
                mats[t] = tops[k];
            }
            if (fusion) {
                // the store wrote the Add's (and the activation's) result: it is the fusion's output
                mats[fusion->out] = mats[fusion->x];
                mats[fusion->x] = Mat();
                fused_away[fusion->add] = 1;
                if (fusion->act >= 0)
                    fused_away[fusion->act] = 1;
                if (fusion->pad >= 0)
                    fused_away[fusion->pad] = 1;
            }
            for (int b : node.bottoms)
                if (last_use[b] == i && !keep[b])
                    mats[b] = Mat();
        }
        if (stats)
            stats->layers.push_back({i, std::chrono::duration<double, std::milli>(clock::now() - t0).count()});
    }
    for (int b : wanted) {
        if (mats[b].empty() && !shapes[b].dynamic)
            return internal_error("output " + quote(g.blobs[b].name) + " was not computed");
        if (mats[b].int8) {
            // an int8 blob comes out as its codes in floats, as ncnn's Extractor::extract gives
            // them (cast_int8_to_float32)
            Mat f;
            NF_RETURN_IF_ERROR(f.create(mats[b].shape(), alloc_.get()));
            const int8_t* codes = mats[b].int8_data();
            for (size_t i = 0; i < f.total_floats(); i++)
                f.data[i] = (float)codes[i];
            outputs[g.blobs[b].name] = f;
            continue;
        }
        outputs[g.blobs[b].name] = mats[b];
    }
    if (stats) {
        stats->peak_bytes = alloc_->peak_bytes();
        stats->total_ms = std::chrono::duration<double, std::milli>(clock::now() - t_start).count();
    }
    return Status::ok();
}

}  // namespace nnfold
