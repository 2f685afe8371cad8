// .param text reader. ncnn's own reader (src/net.cpp Net::load_param, src/paramdict.cpp) is
// scanf-based and silently accepts many broken files; this one follows the same token rules but
// checks every count, name and value and reports the first problem with its line number (unknown
// layer types are all reported at once).
#include <algorithm>
#include <map>
#include <set>

#include "core/strings.h"
#include "io/float_token.h"
#include "io/ncnn_io.h"
#include "layers/layer.h"
#include "model/split_insert.h"

namespace nnfold {

namespace {

constexpr int kMagic = 7767517;
constexpr int kMaxNameChars = 255;
constexpr long long kMaxLayers = 1000000;
constexpr long long kMaxBlobsPerLayer = 100000;
constexpr long long kMaxArrayLen = 1000000;

struct Token {
    int line;
    std::string text;
};

// One layer's tokens (type, name, counts, blob names, params) and the line its type is on.
struct Line {
    int number;
    std::vector<std::string> tokens;
};

// The comma-separated parts of an array value as std::getline(stream, part, ',') yields them:
// empty parts kept, no part after a trailing comma, none for an empty value. (No stringstream:
// it links libc++'s iostreams and locales, about 100 KB of wasm.)
std::vector<std::string> comma_parts(const std::string& val) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start < val.size()) {
        size_t comma = val.find(',', start);
        if (comma == std::string::npos)
            comma = val.size();
        parts.push_back(val.substr(start, comma - start));
        start = comma + 1;
    }
    return parts;
}

// Splits the text into whitespace-separated tokens, each with its line number; a token
// `id="..."` may contain spaces. Line breaks carry no meaning beyond that: ncnn reads the file as
// a stream of tokens with scanf (docs/format.md).
Status tokenize(const std::string& text, std::vector<Token>& tokens, const std::string& file) {
    int number = 0;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t eol = text.find('\n', pos);
        if (eol == std::string::npos)
            eol = text.size();
        number++;
        std::string line = text.substr(pos, eol - pos);
        pos = eol + 1;
        size_t i = 0;
        while (i < line.size()) {
            unsigned char ch = (unsigned char)line[i];
            if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
                i++;
                continue;
            }
            if (ch == 0)
                return invalid_model(file + ":" + std::to_string(number) + ": contains a NUL byte (not a text .param file)");
            size_t start = i;
            bool in_quote = false;
            // A quote opens a string only in a param value (`id="..."`, after an '='): in a layer
            // type, layer name or blob name it is an ordinary character, as for ncnn's %255s
            // (an ONNX node named `Split"1` became an ncnn name the reader then refused; found by
            // the ONNX fuzz target).
            bool seen_eq = false;
            while (i < line.size()) {
                char c = line[i];
                if (c == '=')
                    seen_eq = true;
                if (c == 0)  // inside a token too: a name with a NUL would be cut short in C strings
                    return invalid_model(file + ":" + std::to_string(number) + ": contains a NUL byte (not a text .param file)");
                if (c == '"' && (in_quote || seen_eq))
                    in_quote = !in_quote;
                else if (!in_quote && (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'))
                    break;
                i++;
            }
            if (in_quote)
                return invalid_model(file + ":" + std::to_string(number) + ": unterminated quoted string");
            tokens.push_back({number, line.substr(start, i - start)});
        }
        if (eol == text.size())
            break;
    }
    return Status::ok();
}

// ncnn's ParamDict::load_param scans `%d=` pairs until one fails: a token that starts as an
// integer (optional '-', then a digit) is read as this layer's param (a malformed one is an error,
// as in ncnn, where the scan then fails to read its value). So is `word=...` with a plain word
// before the '=' (`x=5` gets "param id 'x' is not an integer" instead of becoming the next layer's
// type). The first other token starts the next layer.
bool is_param_token(const std::string& t) {
    size_t i = (!t.empty() && t[0] == '-') ? 1 : 0;
    if (i < t.size() && std::isdigit((unsigned char)t[i]))
        return true;
    size_t eq = t.find('=');
    if (eq == std::string::npos || eq == 0)
        return false;
    for (size_t k = 0; k < eq; k++)
        if (!std::isalnum((unsigned char)t[k]) && t[k] != '_')
            return false;
    return true;
}

bool parse_count(const std::string& t, long long max, long long& out) {
    int32_t v;
    if (!parse_int_token(t, v) || v < 0 || v > max)
        return false;
    out = v;
    return true;
}



// Parses one value token (scalar or array element) into bits + float flag.
Status parse_value(const std::string& v, int32_t& bits, bool& is_float) {
    if (v.empty())
        return invalid_model("empty value");
    if (v.size() > kMaxTokenChars)
        return invalid_model("value " + quote(v) + " is longer than the 15 characters ncnn reads");
    is_float = ncnn_token_is_float(v);
    if (is_float) {
        // ncnn's parser ignores trailing garbage; require a plausible number.
        bool ok = true;
        int digits = 0;
        for (size_t i = 0; i < v.size(); i++) {
            char c = v[i];
            if (std::isdigit((unsigned char)c))
                digits++;
            else if (!(c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
                ok = false;
        }
        if (!ok || digits == 0)
            return invalid_model("value " + quote(v) + " is not a number");
        bits = float_to_bits(ncnn_token_to_float(v));
        return Status::ok();
    }
    if (!parse_int_token(v, bits))
        return invalid_model("value " + quote(v) + " is not an integer");
    return Status::ok();
}

Status parse_param_token(const std::string& tok, ParamDict& pd, Warnings& warnings, const std::string& where) {
    size_t eq = tok.find('=');
    if (eq == std::string::npos || eq == 0)
        return invalid_model("expected id=value, got " + quote(tok));
    int32_t key;
    if (!parse_int_token(tok.substr(0, eq), key))
        return invalid_model("param id " + quote(tok.substr(0, eq)) + " is not an integer");
    std::string val = tok.substr(eq + 1);
    ParamValue pv;
    int id;
    if (key <= -23300) {
        id = -key - 23300;
        if (id >= kMaxParamId)
            return invalid_model("array param id " + std::to_string(id) + " (from " + std::to_string(key) +
                                 ") is not below 32");
        // n,v1,...,vn
        std::vector<std::string> parts = comma_parts(val);
        if (!val.empty() && val.back() == ',')
            parts.push_back("");
        if (parts.empty())
            return invalid_model("array param " + std::to_string(key) + " has no length");
        int32_t n;
        if (!parse_int_token(parts[0], n) || n < 0 || n > kMaxArrayLen)
            return invalid_model("array param " + std::to_string(key) + " has a bad length " + quote(parts[0]));
        if ((size_t)n != parts.size() - 1)
            return invalid_model("array param " + std::to_string(key) + " declares " + std::to_string(n) +
                                 " values but has " + std::to_string(parts.size() - 1));
        pv.kind = ParamValue::Kind::Array;
        for (int i = 0; i < n; i++) {
            int32_t bits;
            bool f;
            Status st = parse_value(parts[i + 1], bits, f);
            if (!st)
                return st.with_context("array param " + std::to_string(key) + " element " + std::to_string(i));
            pv.array.push_back(bits);
            pv.array_is_float.push_back(f ? 1 : 0);
        }
    } else {
        if (key < 0 || key >= kMaxParamId)
            return invalid_model("param id " + std::to_string(key) + " is outside 0..31");
        id = key;
        if (!val.empty() && val[0] == '"') {
            if (val.size() < 2 || val.back() != '"')
                return invalid_model("param " + std::to_string(id) + " has a malformed quoted string");
            pv.kind = ParamValue::Kind::String;
            pv.str = val.substr(1, val.size() - 2);
        } else if (val.find(',') != std::string::npos) {
            // newer ncnn's array form id=v1,v2,...
            pv.kind = ParamValue::Kind::Array;
            int i = 0;
            for (const std::string& part : comma_parts(val)) {
                int32_t bits;
                bool f;
                Status st = parse_value(part, bits, f);
                if (!st)
                    return st.with_context("array param " + std::to_string(id) + " element " + std::to_string(i));
                pv.array.push_back(bits);
                pv.array_is_float.push_back(f ? 1 : 0);
                i++;
            }
            if (val.back() == ',')
                return invalid_model("array param " + std::to_string(id) + " ends with a comma");
        } else {
            pv.kind = ParamValue::Kind::Scalar;
            Status st = parse_value(val, pv.bits, pv.is_float);
            if (!st)
                return st.with_context("param " + std::to_string(id));
        }
    }
    if (pd.has(id))
        warnings.add(where + ": param " + std::to_string(id) + " is given twice; the last value is used, as ncnn does");
    pd.at(id) = pv;
    return Status::ok();
}

// Type checks against the layer's documented params.
Status check_param_types(const std::string& type, const ParamDict& pd, Warnings& warnings, const std::string& where) {
    const LayerTypeInfo* info = find_layer_type(type);
    if (!info)
        return Status::ok();
    for (const ParamSpec& spec : info->params()) {
        if (!pd.has(spec.id))
            continue;
        const ParamValue& v = pd.at(spec.id);
        std::string pname = "param " + std::to_string(spec.id) + " (" + spec.name + ")";
        bool want_array = spec.type == ParamType::IntArray || spec.type == ParamType::FloatArray;
        if (spec.type == ParamType::String) {
            if (v.kind != ParamValue::Kind::String)
                return invalid_model(pname + " must be a quoted string");
            continue;
        }
        if (want_array && v.kind != ParamValue::Kind::Array)
            return invalid_model(pname + " must be an array (written -" + std::to_string(23300 + spec.id) + "=n,...)");
        if (!want_array && v.kind != ParamValue::Kind::Scalar)
            return invalid_model(pname + " must be a single value");
        if (spec.type == ParamType::Int && v.is_float)
            return invalid_model(pname + " must be an integer, got a float token");
        if (spec.type == ParamType::IntArray)
            for (uint8_t f : v.array_is_float)
                if (f)
                    return invalid_model(pname + " must hold integers, got a float token");
        if (spec.type == ParamType::Float && !v.is_float && v.bits != 0) {
            float f = bits_to_float(v.bits);
            char buf[64];
            snprintf(buf, sizeof(buf), "%g", (double)f);
            warnings.add(where + ": " + pname + " is written as the integer " + std::to_string(v.bits) +
                         ", which ncnn reads as the float bit pattern " + buf + "; write a float such as " +
                         std::to_string(v.bits) + ".0 if that was meant");
        }
    }
    return Status::ok();
}

}  // namespace

bool looks_like_param(const uint8_t* data, size_t size) {
    std::string head((const char*)data, std::min<size_t>(size, 16));
    size_t i = 0;
    while (i < head.size() && std::isspace((unsigned char)head[i]))
        i++;
    return head.compare(i, 7, "7767517") == 0;
}

Status read_param(const std::string& text, Graph& g, Warnings& warnings, const std::string& file) {
    g = Graph();
    std::vector<Token> toks;
    NF_RETURN_IF_ERROR(tokenize(text, toks, file));
    if (toks.empty())
        return invalid_model(file + ": empty file (an ncnn .param starts with the magic number 7767517)");

    int32_t magic = 0;
    if (!parse_int_token(toks[0].text, magic) || magic != kMagic) {
        std::string got = toks[0].text;
        if (got.size() > 20)
            got = got.substr(0, 20) + "...";
        return invalid_model(file + ":" + std::to_string(toks[0].line) +
                             ": bad magic: an ncnn .param file starts with 7767517, this one with " + quote(got) +
                             (looks_like_param((const uint8_t*)text.data(), text.size()) ? "" : " (is it a .param file?)"));
    }
    if (toks.size() < 2)
        return invalid_model(file + ": missing the 'layer_count blob_count' line after the magic number");
    if (toks.size() < 3)
        return invalid_model(file + ":" + std::to_string(toks[1].line) +
                             ": expected 'layer_count blob_count' (two positive integers); the file ends after one");
    int counts_line = toks[1].line;
    long long layer_count = 0, blob_count = 0;
    if (!parse_count(toks[1].text, kMaxLayers, layer_count) || !parse_count(toks[2].text, kMaxLayers * 16, blob_count) ||
        layer_count <= 0 || blob_count <= 0)
        return invalid_model(file + ":" + std::to_string(counts_line) +
                             ": expected 'layer_count blob_count' (two positive integers)");

    // Group the token stream into the declared number of layers, as ncnn's Net::load_param does:
    // type, name, bottom and top counts, that many blob names, then `id=value` params. ncnn reads
    // exactly layer_count layers and never looks at what follows.
    std::vector<Line> lines;
    size_t ti = 3;
    for (long long li = 0; li < layer_count; li++) {
        if (ti >= toks.size())
            return invalid_model(file + ":" + std::to_string(counts_line) + ": the header declares " +
                                 std::to_string(layer_count) + " layers but the file ends after " + std::to_string(li));
        Line l;
        l.number = toks[ti].line;
        for (int k = 0; k < 4 && ti < toks.size(); k++)
            l.tokens.push_back(toks[ti++].text);
        if (l.tokens.size() == 4) {
            long long nb = 0, nt = 0;
            if (parse_count(l.tokens[2], kMaxBlobsPerLayer, nb) && parse_count(l.tokens[3], kMaxBlobsPerLayer, nt)) {
                for (long long k = 0; k < nb + nt && ti < toks.size(); k++)
                    l.tokens.push_back(toks[ti++].text);
                while (ti < toks.size() && is_param_token(toks[ti].text))
                    l.tokens.push_back(toks[ti++].text);
            }
            // bad counts: the layer loop below reports them
        }
        lines.push_back(std::move(l));
    }
    if (ti < toks.size())
        warnings.add(file + ":" + std::to_string(toks[ti].line) + ": the header declares " + std::to_string(layer_count) +
                     " layers; what follows them (" + std::to_string(toks.size() - ti) +
                     " tokens from here on) is ignored, as ncnn ignores it");

    std::map<std::string, int> blob_index;
    std::set<std::string> layer_names;
    std::vector<int> layer_lines;
    std::vector<std::string> unknown;
    std::vector<int> blob_producer_line;

    for (size_t li = 0; li < lines.size(); li++) {
        const Line& ln = lines[li];
        const auto& t = ln.tokens;
        std::string at = file + ":" + std::to_string(ln.number);
        if (t.size() < 4)
            return invalid_model(at + ": a layer line needs 'type name bottom_count top_count ...', got " +
                                 std::to_string(t.size()) + " tokens");
        LayerNode layer;
        layer.type = t[0];
        layer.name = t[1];
        std::string where = at + ": layer " + quote(layer.name) + " (" + sanitize(layer.type) + ")";
        if (layer.type.size() > kMaxNameChars || layer.name.size() > kMaxNameChars)
            return invalid_model(at + ": a layer type or name is longer than ncnn's 255 characters");
        if (!layer_names.insert(layer.name).second)
            return invalid_model(where + ": duplicate layer name");
        long long nb = 0, nt = 0;
        if (!parse_count(t[2], kMaxBlobsPerLayer, nb))
            return invalid_model(where + ": bad bottom count " + quote(t[2]));
        if (!parse_count(t[3], kMaxBlobsPerLayer, nt))
            return invalid_model(where + ": bad top count " + quote(t[3]));
        if ((long long)t.size() < 4 + nb + nt)
            return invalid_model(where + ": declares " + std::to_string(nb) + " bottoms and " + std::to_string(nt) +
                                 " tops but the line has only " + std::to_string(t.size() - 4) + " tokens after the counts");
        for (long long j = 0; j < nb; j++) {
            const std::string& bn = t[4 + j];
            if (bn.find('=') != std::string::npos && bn.size() > 1 && (std::isdigit((unsigned char)bn[0]) || bn[0] == '-'))
                return invalid_model(where + ": declares " + std::to_string(nb) + " bottoms but " + quote(bn) +
                                     " looks like a param (the counts disagree with the blob names)");
            auto it = blob_index.find(bn);
            if (it == blob_index.end())
                return invalid_model(where + ": blob " + quote(bn) + " is consumed before it is produced");
            layer.bottoms.push_back(it->second);
        }
        for (long long j = 0; j < nt; j++) {
            const std::string& tn = t[4 + nb + j];
            if (tn.size() > kMaxNameChars)
                return invalid_model(where + ": a blob name is longer than ncnn's 255 characters");
            if (tn.find('=') != std::string::npos && tn.size() > 1 && (std::isdigit((unsigned char)tn[0]) || tn[0] == '-'))
                return invalid_model(where + ": declares " + std::to_string(nt) + " tops but " + quote(tn) +
                                     " looks like a param (the counts disagree with the blob names)");
            if (blob_index.count(tn))
                return invalid_model(where + ": blob " + quote(tn) + " is produced twice (first on line " +
                                     std::to_string(blob_producer_line[blob_index[tn]]) + ")");
            int bi = g.add_blob(tn);
            blob_index[tn] = bi;
            blob_producer_line.push_back(ln.number);
            layer.tops.push_back(bi);
        }
        for (size_t j = 4 + nb + nt; j < t.size(); j++) {
            Status st = parse_param_token(t[j], layer.params, warnings, where);
            if (!st)
                return st.with_context(where);
        }
        // shape hints: 4 ints per top (dims,w,h,c) or 5 (dims,w,h,d,c)
        if (layer.params.has(kShapeHintParamId)) {
            const ParamValue& sh = layer.params.at(kShapeHintParamId);
            size_t n = sh.array.size();
            size_t per = (nt > 0 && n == (size_t)nt * 4) ? 4 : (nt > 0 && n == (size_t)nt * 5) ? 5 : 0;
            if (sh.kind != ParamValue::Kind::Array || per == 0) {
                warnings.add(where + ": ignoring shape hints (-23330) whose length " + std::to_string(n) +
                             " is not 4 or 5 per top blob");
            } else {
                for (long long j = 0; j < nt; j++) {
                    const int32_t* p = &sh.array[j * per];
                    Shape s;
                    s.dims = p[0];
                    s.w = p[1];
                    s.h = p[2];
                    s.d = per == 5 ? p[3] : 1;
                    s.c = per == 5 ? p[4] : p[3];
                    if (s.dims == 1) { s.h = 1; s.d = 1; s.c = 1; }
                    if (s.dims == 2) { s.d = 1; s.c = 1; }
                    if (s.dims == 3) s.d = 1;
                    if (s.dims >= 1 && s.dims <= 4 && s.valid())
                        g.blobs[layer.tops[j]].shape = s;
                }
            }
            layer.params.erase(kShapeHintParamId);
        }

        std::unique_ptr<Layer> impl = create_layer(layer.type, false);
        if (!impl) {
            unknown.push_back(quote(layer.type) + " (line " + std::to_string(ln.number) + ", layer " + quote(layer.name) + ")");
        } else {
            Status tst = check_param_types(layer.type, layer.params, warnings, where);
            if (!tst)
                return tst.with_context(where);
            Status st = impl->load_param(layer.params);
            if (!st)
                return st.with_context(where);
            int eb = impl->expected_bottoms(), et = impl->expected_tops();
            if (eb >= 0 && eb != nb)
                return invalid_model(where + ": takes " + std::to_string(eb) + " bottom blob(s), the line gives " +
                                     std::to_string(nb));
            if (et >= 0 && et != nt)
                return invalid_model(where + ": produces " + std::to_string(et) + " top blob(s), the line gives " +
                                     std::to_string(nt));
        }
        g.layers.push_back(std::move(layer));
        layer_lines.push_back(ln.number);
    }

    if (!unknown.empty()) {
        std::string msg = file + ": unknown layer type" + std::string(unknown.size() > 1 ? "s: " : ": ");
        for (size_t i = 0; i < unknown.size(); i++)
            msg += (i ? ", " : "") + unknown[i];
        return Status(ErrorCode::Unsupported, msg);
    }
    // ncnn sizes its blob list from the header: a larger count only wastes entries, a smaller one
    // would make ncnn write past its list.
    if ((long long)g.blobs.size() > blob_count)
        return invalid_model(file + ":" + std::to_string(counts_line) + ": the header declares " +
                             std::to_string(blob_count) + " blobs but the layers name " + std::to_string(g.blobs.size()));
    if ((long long)g.blobs.size() < blob_count)
        warnings.add(file + ":" + std::to_string(counts_line) + ": the header declares " + std::to_string(blob_count) +
                     " blobs but the layers name only " + std::to_string(g.blobs.size()) + " (accepted, as ncnn does)");

    // Blobs consumed more than once: insert Split after the producer (ncnn's converters do this;
    // ncnn's light mode would otherwise free the blob after its first consumer).
    std::set<std::string> bnames;
    for (auto& b : g.blobs)
        bnames.insert(b.name);
    auto top_name = [&](int b, size_t k) {
        std::string tn = g.blobs[b].name + "_splitncnn_" + std::to_string(k);
        while (bnames.count(tn))
            tn += "_";
        bnames.insert(tn);
        return tn;
    };
    auto warn_split = [&](int b, const LayerNode& split, const std::vector<std::pair<int, int>>& readers) {
        std::string consumers;
        for (size_t k = 0; k < readers.size() && k <= 8; k++)
            consumers += k == 8 ? std::string(", ...") : (k ? ", " : "") + quote(g.layers[readers[k].first].name);
        warnings.add(file + ": blob " + quote(g.blobs[b].name) + " is consumed by " + std::to_string(readers.size()) +
                     " layers (" + consumers + "); inserted Split " + quote(split.name) +
                     " (ncnn's light mode would fail on this file)");
    };
    insert_splits(g, top_name, warn_split);
    return g.validate();
}

}  // namespace nnfold
