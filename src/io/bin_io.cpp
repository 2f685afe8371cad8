// .bin reading and writing. Each layer's arrays follow its weight_specs (ncnn's load_model
// order); tagged arrays (ncnn load type 0) start with a 4-byte tag selecting the storage
// (ncnn src/modelbin.cpp): 0 raw fp32, 0x0002C056 raw fp32, 0x01306B47 fp16, 0x000D4B38 int8, any
// other non-zero value a 256-float codebook plus uint8 indices. Payloads are padded to 4 bytes.
#include <cmath>
#include <cstring>

#include "analysis/analysis.h"
#include "analysis/weight_specs.h"
#include "core/strings.h"
#include "io/ncnn_io.h"

namespace nnfold {

namespace {

uint64_t align4(uint64_t n) { return (n + 3) & ~(uint64_t)3; }

struct Reader {
    const uint8_t* data;
    size_t size;
    size_t pos = 0;
    size_t remaining() const { return size - pos; }
};

std::string bytes_str(uint64_t n) { return std::to_string(n) + " bytes"; }

}  // namespace

Status read_bin(const uint8_t* data, size_t size, Graph& g, Warnings& warnings, const std::string& file) {
    Reader r{data, size};
    for (auto& layer : g.layers) {
        if (layer.erased)
            continue;
        std::vector<WeightSpec> specs;
        NF_RETURN_IF_ERROR(weight_specs_for(layer, specs));
        layer.weights.clear();
        std::string who = layer_desc(layer.name, layer.type);
        for (const WeightSpec& spec : specs) {
            size_t start = r.pos;
            auto truncated = [&](uint64_t need) {
                return invalid_model(file + " is truncated: " + who + " needs " + bytes_str(need) + " for " + spec.name +
                                     " (" + std::to_string(spec.count) + " values) at offset " + std::to_string(start) +
                                     ", but only " + bytes_str(r.remaining()) + " remain (the file has " +
                                     bytes_str(size) + "; does it belong to this .param?)");
            };
            WeightArray wa;
            uint64_t n = spec.count;
            if (n > ((uint64_t)1 << 40))
                return truncated(n * 4);
            if (!spec.tagged) {
                if (r.remaining() < n * 4)
                    return truncated(n * 4);
                wa.storage = WeightStorage::Untagged;
                wa.data.resize(n);
                std::memcpy(wa.data.data(), r.data + r.pos, n * 4);
                r.pos += n * 4;
            } else {
                if (r.remaining() < 4)
                    return invalid_model(file + " is truncated: " + who + " needs at least 4 bytes for the storage tag of " +
                                         spec.name + " at offset " + std::to_string(start) + ", but only " +
                                         bytes_str(r.remaining()) + " remain (the file has " + bytes_str(size) +
                                         "; does it belong to this .param?)");
                uint32_t tag;
                std::memcpy(&tag, r.data + r.pos, 4);
                const uint8_t* f = r.data + r.pos;
                wa.tag = tag;
                uint64_t payload;
                if (tag == kTagF16) {
                    payload = align4(n * 2);
                    if (r.remaining() - 4 < payload)
                        return truncated(4 + payload);
                    r.pos += 4;
                    wa.storage = WeightStorage::F16;
                    wa.f16.resize(n);
                    std::memcpy(wa.f16.data(), r.data + r.pos, n * 2);
                    wa.data.resize(n);
                    for (uint64_t i = 0; i < n; i++)
                        wa.data[i] = half_to_float(wa.f16[i]);
                } else if (tag == kTagInt8) {
                    payload = align4(n);
                    if (r.remaining() - 4 < payload)
                        return truncated(4 + payload);
                    r.pos += 4;
                    wa.storage = WeightStorage::Int8;
                    wa.i8.resize(n);
                    std::memcpy(wa.i8.data(), r.data + r.pos, n);
                } else if (tag == kTagF32Scaled || (f[0] + f[1] + f[2] + f[3]) == 0) {
                    payload = n * 4;
                    if (r.remaining() - 4 < payload)
                        return truncated(4 + payload);
                    r.pos += 4;
                    wa.storage = tag == 0 ? WeightStorage::F32 : WeightStorage::F32Scaled;
                    wa.data.resize(n);
                    std::memcpy(wa.data.data(), r.data + r.pos, n * 4);
                } else {
                    payload = 256 * 4 + align4(n);
                    if (r.remaining() - 4 < payload)
                        return truncated(4 + payload);
                    r.pos += 4;
                    wa.storage = WeightStorage::Codebook;
                    wa.codebook.resize(256);
                    std::memcpy(wa.codebook.data(), r.data + r.pos, 256 * 4);
                    wa.indices.resize(n);
                    std::memcpy(wa.indices.data(), r.data + r.pos + 256 * 4, n);
                    wa.data.resize(n);
                    for (uint64_t i = 0; i < n; i++)
                        wa.data[i] = wa.codebook[wa.indices[i]];
                }
                r.pos += payload;
            }
            uint64_t bad = 0;
            for (float v : wa.data)
                if (!std::isfinite(v))
                    bad++;
            if (bad)
                warnings.add(file + ": " + who + " " + spec.name + " has " + std::to_string(bad) + " NaN/Inf value" +
                             (bad > 1 ? "s" : ""));
            layer.weights.push_back(std::move(wa));
        }
    }
    if (r.pos != size)
        return invalid_model(file + " has " + bytes_str(size - r.pos) + " more than the layers of the .param read (" +
                             bytes_str(r.pos) + " used of " + bytes_str(size) +
                             "): the .bin does not belong to this .param, or a layer's params (such as "
                             "weight_data_size or bias_term) disagree with it");
    return Status::ok();
}

uint64_t bin_size(const Graph& g) { return weights_file_bytes(g); }

namespace {

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
    uint8_t b[4];
    std::memcpy(b, &v, 4);
    out.insert(out.end(), b, b + 4);
}
void put_bytes(std::vector<uint8_t>& out, const void* p, size_t n) {
    const uint8_t* b = (const uint8_t*)p;
    out.insert(out.end(), b, b + n);
}
void pad4(std::vector<uint8_t>& out, size_t written) {
    while (written % 4) {
        out.push_back(0);
        written++;
    }
}

}  // namespace

Status write_bin(const Graph& g, std::vector<uint8_t>& out, const BinWriteOptions& opt, Warnings& warnings) {
    out.clear();
    uint64_t total = bin_size(g);
    if (total > ((uint64_t)2 << 30))
        return resource_limit("the .bin would be " + std::to_string(total) + " bytes, over the 2 GB limit");
    out.reserve((size_t)total);
    for (auto& layer : g.layers) {
        if (layer.erased)
            continue;
        std::vector<WeightSpec> specs;
        NF_RETURN_IF_ERROR(weight_specs_for(layer, specs));
        std::string who = layer_desc(layer.name, layer.type);
        if (specs.size() != layer.weights.size())
            return internal_error(who + " has " + std::to_string(layer.weights.size()) + " weight arrays, its params need " +
                                  std::to_string(specs.size()));
        for (size_t i = 0; i < specs.size(); i++) {
            const WeightSpec& spec = specs[i];
            const WeightArray& w = layer.weights[i];
            if (w.count() != spec.count)
                return internal_error(who + " " + spec.name + " has " + std::to_string(w.count()) + " values, its params need " +
                                      std::to_string(spec.count));
            if (spec.tagged != w.tagged())
                return internal_error(who + " " + spec.name + " storage does not match its load type");
            switch (w.storage) {
            case WeightStorage::Untagged: put_bytes(out, w.data.data(), w.data.size() * 4); break;
            case WeightStorage::F32:
            case WeightStorage::F32Scaled: {
                bool to_half = opt.fp16 && w.storage == WeightStorage::F32;
                if (to_half) {
                    for (float v : w.data)
                        if (!fits_half(v)) {
                            to_half = false;
                            warnings.add(who + " " + spec.name +
                                         " has values outside fp16 range; kept as fp32");
                            break;
                        }
                }
                if (to_half) {
                    put_u32(out, kTagF16);
                    std::vector<uint16_t> h(w.data.size());
                    for (size_t k = 0; k < h.size(); k++)
                        h[k] = float_to_half(w.data[k]);
                    put_bytes(out, h.data(), h.size() * 2);
                    pad4(out, h.size() * 2);
                } else {
                    put_u32(out, w.storage == WeightStorage::F32 ? 0u : kTagF32Scaled);
                    put_bytes(out, w.data.data(), w.data.size() * 4);
                }
                break;
            }
            case WeightStorage::F16:
                put_u32(out, kTagF16);
                put_bytes(out, w.f16.data(), w.f16.size() * 2);
                pad4(out, w.f16.size() * 2);
                break;
            case WeightStorage::Int8:
                put_u32(out, kTagInt8);
                put_bytes(out, w.i8.data(), w.i8.size());
                pad4(out, w.i8.size());
                break;
            case WeightStorage::Codebook:
                put_u32(out, w.tag);
                put_bytes(out, w.codebook.data(), 256 * 4);
                put_bytes(out, w.indices.data(), w.indices.size());
                pad4(out, w.indices.size());
                break;
            }
        }
    }
    return Status::ok();
}

}  // namespace nnfold
