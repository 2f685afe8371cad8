#include "io/io_map.h"

#include <cstring>
#include <exception>

#include "core/json.h"
#include "core/strings.h"

namespace nnfold {

uint64_t IoEntry::numel() const {
    uint64_t n = 1;
    for (int64_t d : shape)
        n *= d > 0 ? (uint64_t)d : 0;
    return n;
}

const IoEntry* IoMap::find_input(const std::string& n) const {
    for (auto& e : inputs)
        if (e.name == n)
            return &e;
    return nullptr;
}

const IoEntry* IoMap::find_output(const std::string& n) const {
    for (auto& e : outputs)
        if (e.name == n)
            return &e;
    return nullptr;
}

const IoEntry* IoMap::find_by_blob(const std::string& b) const {
    for (auto& e : inputs)
        if (e.blob == b)
            return &e;
    for (auto& e : outputs)
        if (e.blob == b)
            return &e;
    return nullptr;
}

namespace {

json entry_json(const IoEntry& e) {
    json j;
    j["name"] = e.name;
    j["blob"] = e.blob;
    j["shape"] = e.shape;
    j["layout"] = e.layout;
    j["perm"] = e.perm;
    if (e.ncnn_shape.dynamic) {
        // the data-dependent extent (0 in a dynamic Shape) is written -1, as in `shape`
        json ns = json::array();
        for (int v : e.ncnn_shape.to_list())
            ns.push_back(v > 0 ? v : -1);
        j["ncnn_shape"] = ns;
    } else {
        j["ncnn_shape"] = shape_to_json(e.ncnn_shape);
    }
    j["dtype"] = e.dtype;
    json names = json::array();
    for (size_t k = 0; k < e.shape.size(); k++) {
        if (k < e.dim_names.size() && !e.dim_names[k].empty())
            names.push_back(e.dim_names[k]);
        else
            names.push_back(nullptr);
    }
    j["dim_names"] = names;
    return j;
}

Status entry_from_json(const json& j, IoEntry& e, const std::string& where) {
    if (!j.is_object())
        return invalid_model(where + " is not an object");
    auto str = [&](const char* k, std::string& out, bool required) -> Status {
        auto it = j.find(k);
        if (it == j.end() || it->is_null()) {
            if (required)
                return invalid_model(where + ": missing \"" + k + "\"");
            return Status::ok();
        }
        if (!it->is_string())
            return invalid_model(where + ": \"" + k + "\" must be a string");
        out = it->get<std::string>();
        return Status::ok();
    };
    NF_RETURN_IF_ERROR(str("name", e.name, true));
    NF_RETURN_IF_ERROR(str("blob", e.blob, true));
    NF_RETURN_IF_ERROR(str("layout", e.layout, false));
    NF_RETURN_IF_ERROR(str("dtype", e.dtype, false));
    auto ints = [&](const char* k, std::vector<int64_t>& out, bool required) -> Status {
        auto it = j.find(k);
        if (it == j.end() || it->is_null()) {
            if (required)
                return invalid_model(where + ": missing \"" + k + "\"");
            return Status::ok();
        }
        if (!it->is_array() || it->size() > 16)
            return invalid_model(where + ": \"" + k + "\" must be a short array of integers");
        for (auto& v : *it) {
            if (!v.is_number_integer())
                return invalid_model(where + ": \"" + k + "\" must hold integers");
            out.push_back(v.get<int64_t>());
        }
        return Status::ok();
    };
    NF_RETURN_IF_ERROR(ints("shape", e.shape, true));
    auto dn = j.find("dim_names");
    if (dn != j.end() && !dn->is_null()) {
        if (!dn->is_array() || dn->size() != e.shape.size())
            return invalid_model(where + ": \"dim_names\" must be an array with one entry per dimension");
        bool any = false;
        for (auto& v : *dn) {
            if (!v.is_null() && !v.is_string())
                return invalid_model(where + ": \"dim_names\" entries must be strings or null");
            e.dim_names.push_back(v.is_string() ? v.get<std::string>() : std::string());
            any = any || v.is_string();
        }
        if (!any)
            e.dim_names.clear();
    }
    std::vector<int64_t> perm, ns;
    NF_RETURN_IF_ERROR(ints("perm", perm, false));
    for (int64_t p : perm)
        e.perm.push_back((int)p);
    NF_RETURN_IF_ERROR(ints("ncnn_shape", ns, true));
    std::vector<int> nsl;
    int unknown = -1;  // a data-dependent extent, written as -1
    for (int64_t v : ns) {
        if (v == -1 && unknown < 0) {
            unknown = (int)nsl.size();
            nsl.push_back(1);
            continue;
        }
        if (v <= 0 || v > 0x7fffffff)
            return invalid_model(where + ": \"ncnn_shape\" entries must be positive");
        nsl.push_back((int)v);
    }
    e.ncnn_shape = Shape::from_list(nsl);
    if (unknown >= 0 && e.ncnn_shape.valid()) {
        // as the layer's infer_shape gives it: the data-dependent extent 0
        Shape d = Shape::from_list(nsl);
        d.dynamic = true;
        if (d.dims >= 2 && unknown == 0)
            (d.dims == 2 ? d.h : d.c) = 0;
        else
            return invalid_model(where + ": only the outermost ncnn_shape extent may be data-dependent (-1)");
        e.ncnn_shape = d;
        return Status::ok();
    }
    if (!e.ncnn_shape.valid())
        return invalid_model(where + ": \"ncnn_shape\" must have 1 to 4 positive entries");
    return Status::ok();
}

}  // namespace

std::string IoMap::to_json() const {
    json j;
    j["format"] = "nnfold.io";
    j["version"] = 2;
    j["inputs"] = json::array();
    j["outputs"] = json::array();
    for (auto& e : inputs)
        j["inputs"].push_back(entry_json(e));
    for (auto& e : outputs)
        j["outputs"].push_back(entry_json(e));
    return dump_json(j, 2) + "\n";
}

Status IoMap::from_json(const std::string& text, IoMap& out) {
    out = IoMap();
    json j;
    try {
        j = json::parse(text);
    } catch (const std::exception& e) {
        return invalid_model(std::string("io.json is not valid JSON: ") + e.what());
    }
    if (!j.is_object() || j.value("format", std::string()) != "nnfold.io")
        return invalid_model("io.json: not an nnfold io map (\"format\": \"nnfold.io\" missing)");
    if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int64_t>() < 1 ||
        j["version"].get<int64_t>() > 2)
        return unsupported("io.json: unsupported version (this nnfold reads versions 1 and 2)");
    for (const char* side : {"inputs", "outputs"}) {
        if (!j.contains(side) || !j[side].is_array())
            return invalid_model(std::string("io.json: \"") + side + "\" must be an array");
        auto& list = std::string(side) == "inputs" ? out.inputs : out.outputs;
        size_t k = 0;
        for (auto& ej : j[side]) {
            IoEntry e;
            NF_RETURN_IF_ERROR(entry_from_json(ej, e, std::string("io.json ") + side + "[" + std::to_string(k++) + "]"));
            list.push_back(std::move(e));
        }
    }
    return out.validate();
}

Status IoMap::validate() const {
    for (auto* list : {&inputs, &outputs}) {
        for (auto& e : *list) {
            std::string who = "io map entry " + quote(e.name);
            // an output's data-dependent extent (NonMaxSuppression's count) is -1, at most one
            int unknown = 0;
            for (int64_t d : e.shape)
                if (d == -1 && list == &outputs && e.perm.empty())
                    unknown++;
                else if (d <= 0 || d > 0x7fffffff)
                    return invalid_model(who + ": shape entries must be positive");
            if (unknown > 1)
                return invalid_model(who + ": at most one data-dependent (-1) extent");
            if (unknown) {
                if (!e.ncnn_shape.dynamic)
                    return invalid_model(who + ": a data-dependent shape needs a data-dependent ncnn_shape");
                continue;
            }
            if (e.shape.size() > 8)
                return invalid_model(who + ": shape has more than 8 dimensions");
            if (!e.perm.empty()) {
                if (e.perm.size() != e.shape.size())
                    return invalid_model(who + ": perm and shape differ in length");
                std::vector<char> seen(e.perm.size(), 0);
                for (int p : e.perm) {
                    if (p < 0 || p >= (int)e.perm.size() || seen[p])
                        return invalid_model(who + ": perm is not a permutation");
                    seen[p] = 1;
                }
            }
            if (e.numel() != e.ncnn_shape.total())
                return invalid_model(who + ": shape and ncnn_shape hold different element counts");
        }
    }
    return Status::ok();
}

namespace {

// Dense transpose: out = transpose(in, perm) where out axis k is in axis perm[k] (numpy semantics).
// `inverse` computes the inverse transpose (out shape = shape, in shape permuted).
void transpose_dense(const float* in, float* out, const std::vector<int64_t>& shape, const std::vector<int>& perm,
                     bool inverse) {
    const int r = (int)shape.size();
    std::vector<int64_t> in_shape(r), out_shape(r);
    if (!inverse) {
        in_shape = shape;
        for (int k = 0; k < r; k++)
            out_shape[k] = shape[perm[k]];
    } else {
        out_shape = shape;
        for (int k = 0; k < r; k++)
            in_shape[k] = shape[perm[k]];
    }
    // strides of the input, in elements
    std::vector<int64_t> in_stride(r, 1);
    for (int k = r - 2; k >= 0; k--)
        in_stride[k] = in_stride[k + 1] * in_shape[k + 1];
    // stride in the input for each output axis
    std::vector<int64_t> step(r);
    for (int k = 0; k < r; k++) {
        if (!inverse) {
            step[k] = in_stride[perm[k]];
        } else {
            // inverse: out axis perm[k] corresponds to in axis k
            step[perm[k]] = in_stride[k];
        }
    }
    uint64_t n = 1;
    for (int64_t d : out_shape)
        n *= (uint64_t)d;
    if (n == 0)
        return;
    // the innermost output axis as a tight strided copy, the outer axes as an odometer: this runs
    // on every run() of a model with an NHWC input (the input's whole tensor), so the per-element
    // carry loop over all axes cost a visible share of a small model's run
    const int64_t inner = r ? out_shape[r - 1] : 1;
    const int64_t istep = r ? step[r - 1] : 1;
    std::vector<int64_t> idx(r, 0);
    int64_t src = 0;
    for (uint64_t i = 0; i < n; i += (uint64_t)inner) {
        const float* p = in + src;
        float* o = out + i;
        if (istep == 1)
            std::memcpy(o, p, (size_t)inner * sizeof(float));
        else
            for (int64_t j = 0; j < inner; j++)
                o[j] = p[j * istep];
        for (int k = r - 2; k >= 0; k--) {
            idx[k]++;
            src += step[k];
            if (idx[k] < out_shape[k])
                break;
            src -= step[k] * out_shape[k];
            idx[k] = 0;
        }
    }
}

}  // namespace

Status io_to_ncnn(const IoEntry& e, const float* data, size_t count, Mat& out) {
    if (count != e.numel())
        return invalid_argument("input " + quote(e.name) + " needs " + std::to_string(e.numel()) +
                                " values (shape " + [&] {
                                    std::string s;
                                    for (size_t k = 0; k < e.shape.size(); k++)
                                        s += (k ? "," : "") + std::to_string(e.shape[k]);
                                    return "[" + s + "]";
                                }() + "), got " + std::to_string(count));
    if (e.ncnn_shape.total() != count)
        return internal_error("io map entry " + quote(e.name) + ": ncnn shape does not match its shape");
    NF_RETURN_IF_ERROR(out.create(e.ncnn_shape));
    if (e.perm.empty())
        std::memcpy(out.data, data, count * sizeof(float));
    else
        transpose_dense(data, out.data, e.shape, e.perm, false);
    return Status::ok();
}

Status io_from_ncnn(const IoEntry& e, const Mat& m, std::vector<float>& out) {
    if (m.elempack != 1)
        return internal_error("io_from_ncnn: packed Mat");
    if (e.ncnn_shape.dynamic) {
        // data-dependent rows (validate: perm empty): the values as they are, whole rows of the
        // known extents (an empty result, nothing selected, is valid)
        uint64_t known = 1;
        for (int64_t d : e.shape)
            known *= d > 0 ? (uint64_t)d : 1;
        const uint64_t n = m.data ? m.total_floats() : 0;
        if (n % known != 0)
            return shape_mismatch("output " + quote(e.name) + " has " + std::to_string(n) +
                                  " values, not whole rows of its shape " + dims_str(e.shape));
        out.assign(m.data, m.data + n);
        return Status::ok();
    }
    if (m.total_floats() != e.numel())
        return shape_mismatch("output " + quote(e.name) + " has " + std::to_string(m.total_floats()) +
                              " values; its declared shape needs " + std::to_string(e.numel()));
    out.resize(e.numel());
    if (e.perm.empty())
        std::memcpy(out.data(), m.data, out.size() * sizeof(float));
    else
        transpose_dense(m.data, out.data(), e.shape, e.perm, true);
    return Status::ok();
}

}  // namespace nnfold
