// Canonical .param writer: ncnn's layout (magic, counts, one line per layer), shape hints first,
// then params in id order with defaults omitted (so read -> write -> read -> write is a fixed
// point), every float written as a token that ncnn's parser reads back to the same bits.
#include <cstdio>

#include "core/strings.h"
#include "io/float_token.h"
#include "io/ncnn_io.h"
#include "layers/layer.h"

namespace nnfold {

namespace {

std::string int_token(int32_t v) { return std::to_string(v); }

// A float as a token; its bit pattern as an int token when no float token reads back exactly
// (NaN, infinities): ncnn stores both in the same union, so the value survives.
std::string float_token(int32_t bits) {
    std::string s = format_float_token(bits_to_float(bits));
    return s.empty() ? int_token(bits) : s;
}

// The default bits of a spec, following default_from chains (kernel_h defaults to kernel_w).
int32_t effective_default(const std::string& type, const ParamSpec& spec, const ParamDict& pd, int depth = 0) {
    if (spec.default_from < 0 || depth > 8)
        return spec.default_bits;
    if (pd.has(spec.default_from) && pd.at(spec.default_from).kind == ParamValue::Kind::Scalar)
        return pd.at(spec.default_from).bits;
    const ParamSpec* from = find_param_spec(type, spec.default_from);
    return from ? effective_default(type, *from, pd, depth + 1) : 0;
}

std::string escape_string(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

Status write_param(const Graph& g, std::string& out, Warnings& warnings) {
    out.clear();
    int nlayers = 0;
    for (auto& l : g.layers)
        if (!l.erased)
            nlayers++;
    // count blobs referenced by live layers
    std::vector<char> used(g.blobs.size(), 0);
    for (auto& l : g.layers) {
        if (l.erased)
            continue;
        for (int b : l.bottoms)
            used[b] = 1;
        for (int t : l.tops)
            used[t] = 1;
    }
    int nblobs = 0;
    for (char u : used)
        nblobs += u;
    out += "7767517\n";
    out += std::to_string(nlayers) + " " + std::to_string(nblobs) + "\n";

    for (auto& l : g.layers) {
        if (l.erased)
            continue;
        const LayerTypeInfo* info = find_layer_type(l.type);
        if (info && info->extension)
            warnings.add(layer_desc(l.name, l.type) + " is an nnfold extension layer: stock ncnn cannot load this "
                         ".param without registering a custom layer of that type");
        char head[600];
        snprintf(head, sizeof(head), "%-24s %-24s %d %d", l.type.c_str(), l.name.c_str(), (int)l.bottoms.size(),
                 (int)l.tops.size());
        std::string line = head;
        for (int b : l.bottoms)
            line += " " + g.blobs[b].name;
        for (int t : l.tops)
            line += " " + g.blobs[t].name;

        bool shapes_known = !l.tops.empty();
        bool need_d = false;
        for (int t : l.tops) {
            const Shape& s = g.blobs[t].shape;
            if (!s.known() || !s.valid())
                shapes_known = false;
            else if (s.dims == 4)
                need_d = true;
        }
        if (shapes_known) {
            int per = need_d ? 5 : 4;
            line += " -23330=" + std::to_string(per * (int)l.tops.size());
            for (int t : l.tops) {
                const Shape& s = g.blobs[t].shape;
                line += "," + std::to_string(s.dims) + "," + std::to_string(s.w) + "," + std::to_string(s.h);
                if (need_d)
                    line += "," + std::to_string(s.d);
                line += "," + std::to_string(s.c);
            }
        }

        for (int id = 0; id < kMaxParamId; id++) {
            if (id == kShapeHintParamId || !l.params.has(id))
                continue;
            const ParamValue& v = l.params.at(id);
            const ParamSpec* spec = find_param_spec(l.type, id);
            switch (v.kind) {
            case ParamValue::Kind::None: break;
            case ParamValue::Kind::String:
                line += " " + std::to_string(id) + "=" + escape_string(v.str);
                break;
            case ParamValue::Kind::Scalar: {
                if (spec && spec->type != ParamType::String && v.bits == effective_default(l.type, *spec, l.params))
                    break;
                bool as_float = spec ? spec->type == ParamType::Float : v.is_float;
                line += " " + std::to_string(id) + "=" + (as_float ? float_token(v.bits) : int_token(v.bits));
                break;
            }
            case ParamValue::Kind::Array: {
                if (spec && v.array.empty())
                    break;
                line += " " + std::to_string(-23300 - id) + "=" + std::to_string(v.array.size());
                for (size_t k = 0; k < v.array.size(); k++) {
                    bool as_float = spec ? spec->type == ParamType::FloatArray : (k < v.array_is_float.size() && v.array_is_float[k]);
                    line += "," + (as_float ? float_token(v.array[k]) : int_token(v.array[k]));
                }
                break;
            }
            }
        }
        out += line + "\n";
    }
    return Status::ok();
}

}  // namespace nnfold
