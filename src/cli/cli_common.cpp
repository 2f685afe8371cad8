#include "cli/cli_common.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>

#include "core/parallel.h"
#include "core/strings.h"
#include "io/float_token.h"
#include "io/ncnn_io.h"
#include "runtime/random.h"

namespace nnfold {
namespace cli {

std::string Args::get(const std::string& k, const std::string& def) const {
    auto it = options.find(k);
    return it == options.end() ? def : it->second;
}

std::vector<std::string> Args::all(const std::string& k) const {
    std::vector<std::string> r;
    auto range = options.equal_range(k);
    for (auto it = range.first; it != range.second; ++it)
        r.push_back(it->second);
    return r;
}

bool parse_args(int argc, char** argv, int start, const std::vector<std::string>& flags,
                const std::vector<std::string>& takes_value, Args& out) {
    for (int i = start; i < argc; i++) {
        std::string a = argv[i];
        if (a.size() > 2 && a[0] == '-' && a[1] == '-') {
            std::string key = a.substr(2), val;
            size_t eq = key.find('=');
            bool has_val = eq != std::string::npos;
            if (has_val) {
                val = key.substr(eq + 1);
                key = key.substr(0, eq);
            }
            bool is_flag = std::find(flags.begin(), flags.end(), key) != flags.end();
            bool is_val = std::find(takes_value.begin(), takes_value.end(), key) != takes_value.end();
            if (!is_flag && !is_val) {
                fprintf(stderr, "unknown option --%s (see --help)\n", key.c_str());
                return false;
            }
            if (is_val && !has_val) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "option --%s needs a value\n", key.c_str());
                    return false;
                }
                val = argv[++i];
            }
            if (is_flag && has_val && !is_val) {
                fprintf(stderr, "option --%s takes no value\n", key.c_str());
                return false;
            }
            out.options.insert({key, val});
        } else {
            out.positional.push_back(a);
        }
    }
    return true;
}

int start_command(int argc, char** argv, const char* help, const std::vector<std::string>& flags,
                  const std::vector<std::string>& takes_value, const std::function<bool(const Args&)>& arity_ok,
                  Args& a) {
    if (!parse_args(argc, argv, 2, flags, takes_value, a))
        return kUsage;
    if (a.has("help")) {
        fputs(help, stdout);
        return kOk;
    }
    if (!arity_ok(a)) {
        fputs(help, stderr);
        return kUsage;
    }
    return -1;
}

int usage_error(const std::string& cmd, const Status& st) {
    report(cmd, st);
    return kUsage;
}

Status seed_option(const Args& a, uint32_t& seed) {
    return a.has("seed") ? parse_seed(a.get("seed"), seed) : Status::ok();
}

int threads_option(const std::string& cmd, const Args& a) {
    int n = default_num_threads();
    if (a.has("threads")) {
        const std::string v = a.get("threads");
        const bool digits = !v.empty() && v.size() <= 3 && v.find_first_not_of("0123456789") == std::string::npos;
        n = digits ? std::atoi(v.c_str()) : 0;
        if (!digits || n < 1 || n > kMaxThreads)
            return usage_error(cmd, invalid_argument("--threads expects an integer from 1 to " +
                                                     std::to_string(kMaxThreads) + ", got '" + v + "'"));
    }
    const Status st = set_num_threads(n);
    return st.is_ok() ? -1 : report(cmd, st);
}

int exit_code_for(const Status& st) {
    switch (st.code()) {
    case ErrorCode::Ok: return kOk;
    case ErrorCode::Internal: return kInternal;
    default: return kBadInput;
    }
}

int report(const std::string& cmd, const Status& st) {
    if (st.is_ok())
        return kOk;
    fprintf(stderr, "nnfold %s: error: %s\n", cmd.c_str(), st.message().c_str());
    return exit_code_for(st);
}

void print_warnings(const Warnings& w) {
    for (auto& s : w.items)
        fprintf(stderr, "warning: %s\n", s.c_str());
}

Status read_file(const std::string& path, std::vector<uint8_t>& out) {
    FILE* f = fopen(path.c_str(), "rb");
    if (!f)
        return invalid_argument("cannot open " + path + ": " + std::strerror(errno));
    out.clear();
    uint8_t buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
        if (out.size() + n > ((size_t)2 << 30)) {
            fclose(f);
            return resource_limit(path + " is larger than 2 GB");
        }
        out.insert(out.end(), buf, buf + n);
    }
    bool err = ferror(f);
    fclose(f);
    if (err)
        return invalid_argument("error reading " + path);
    return Status::ok();
}

Status write_file(const std::string& path, const void* data, size_t size) {
    FILE* f = fopen(path.c_str(), "wb");
    if (!f)
        return invalid_argument("cannot write " + path + ": " + std::strerror(errno));
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    bool ok = n == size && fclose(f) == 0;
    if (!ok)
        return invalid_argument("error writing " + path);
    return Status::ok();
}

Status make_dirs(const std::string& path) {
    std::string cur;
    for (size_t i = 0; i <= path.size(); i++) {
        if (i == path.size() || path[i] == '/') {
            if (!cur.empty() && cur != ".") {
                struct stat st;
                if (stat(cur.c_str(), &st) != 0 && mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
                    return invalid_argument("cannot create directory " + cur + ": " + std::strerror(errno));
            }
        }
        if (i < path.size())
            cur += path[i];
    }
    return Status::ok();
}

namespace {

// One "--shape NAME=d0,d1,..." value: the name (up to the last '=') and positive int32 dimensions.
// `form` is the syntax the message shows (c,h,w for ncnn shapes, d0,d1,... for ONNX ones).
Status parse_shape_spec(const std::string& s, const char* form, std::string& name, std::vector<int>& list) {
    size_t eq = s.rfind('=');
    if (eq == std::string::npos || eq == 0)
        return invalid_argument("--shape expects NAME=" + std::string(form) + ", got '" + s + "'");
    name = s.substr(0, eq);
    const std::string dims = s.substr(eq + 1);
    size_t pos = 0;
    while (pos <= dims.size()) {
        size_t comma = dims.find(',', pos);
        if (comma == std::string::npos)
            comma = dims.size();
        int32_t v;
        if (!parse_int_token(dims.substr(pos, comma - pos), v) || v <= 0)
            return invalid_argument("--shape " + s + ": dimensions must be positive integers");
        list.push_back(v);
        pos = comma + 1;
    }
    return Status::ok();
}

}  // namespace

Status parse_shapes(const std::vector<std::string>& specs, std::map<std::string, Shape>& out) {
    for (auto& s : specs) {
        std::string name;
        std::vector<int> list;
        NF_RETURN_IF_ERROR(parse_shape_spec(s, "c,h,w", name, list));
        Shape sh = Shape::from_list(list);
        if (!sh.valid())
            return invalid_argument("--shape " + s + ": 1 to 4 dimensions, outermost first (c,h,w)");
        out[name] = sh;
    }
    return Status::ok();
}

Status parse_seed(const std::string& s, uint32_t& seed) {
    if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos)
        return invalid_argument("--seed expects a non-negative integer, got '" + s + "'");
    unsigned long long v = std::stoull(s);
    if (v > 0xffffffffULL)
        return invalid_argument("--seed must fit in 32 bits");
    seed = (uint32_t)v;
    return Status::ok();
}

Status load_model(const std::string& param_path, const std::string& bin_path, uint32_t seed, Graph& g,
                  Warnings& warnings) {
    std::vector<uint8_t> text;
    NF_RETURN_IF_ERROR(read_file(param_path, text));
    NF_RETURN_IF_ERROR(read_param(std::string(text.begin(), text.end()), g, warnings, param_path));
    if (bin_path == "null" || bin_path.empty())
        return randomize_weights(g, seed);
    std::vector<uint8_t> bin;
    NF_RETURN_IF_ERROR(read_file(bin_path, bin));
    return read_bin(bin.data(), bin.size(), g, warnings, bin_path);
}

std::string io_json_path(const std::string& param_path) {
    const std::string ext = ".param";
    if (param_path.size() > ext.size() && param_path.compare(param_path.size() - ext.size(), ext.size(), ext) == 0)
        return param_path.substr(0, param_path.size() - ext.size()) + ".io.json";
    return param_path + ".io.json";
}

bool is_onnx_path(const std::string& path) {
    if (path.size() < 5)
        return false;
    std::string e = path.substr(path.size() - 5);
    for (auto& c : e)
        c = (char)tolower((unsigned char)c);
    return e == ".onnx";
}

Status parse_onnx_shapes(const std::vector<std::string>& specs, std::map<std::string, std::vector<int64_t>>& out) {
    for (auto& s : specs) {
        std::string name;
        std::vector<int> list;
        NF_RETURN_IF_ERROR(parse_shape_spec(s, "d0,d1,...", name, list));
        if (list.size() > 8)
            return invalid_argument("--shape " + s + ": at most 8 dimensions");
        out[name] = std::vector<int64_t>(list.begin(), list.end());
    }
    return Status::ok();
}

Status parse_model_shapes(const std::string& model_path, const std::vector<std::string>& specs, LoadOptions& lo) {
    if (is_onnx_path(model_path))
        return parse_onnx_shapes(specs, lo.onnx_shapes);
    return parse_shapes(specs, lo.shapes);
}

Status load_cli_model(const std::string& model_path, const std::string& bin_path, LoadOptions lo, bool structure_only,
                      ModelHandle& model) {
    if (is_onnx_path(model_path)) {
        if (!bin_path.empty() && bin_path != "null")
            return invalid_argument("an .onnx file carries its weights; give no .bin");
        std::vector<uint8_t> bytes;
        NF_RETURN_IF_ERROR(read_file(model_path, bytes));
        lo.param_name = model_path;
        lo.bin_name = "";
        return model.load_onnx(bytes.data(), bytes.size(), lo).with_context(model_path);
    }
    const bool has_bin = !bin_path.empty() && bin_path != "null";
    std::vector<uint8_t> text, bin;
    NF_RETURN_IF_ERROR(read_file(model_path, text));
    if (has_bin)
        NF_RETURN_IF_ERROR(read_file(bin_path, bin));
    lo.param_name = model_path;
    lo.bin_name = has_bin ? bin_path : "";
    const std::string iop = io_json_path(model_path);
    struct stat stt;
    if (stat(iop.c_str(), &stt) == 0) {
        std::vector<uint8_t> io;
        NF_RETURN_IF_ERROR(read_file(iop, io));
        lo.io_json.assign(io.begin(), io.end());
        lo.io_json_name = iop;
    }
    const std::string param(text.begin(), text.end());
    return structure_only ? model.load_structure(param, bin.data(), bin.size(), has_bin, lo)
                          : model.load_ncnn(param, bin.data(), bin.size(), has_bin, lo);
}

int int_option(const std::string& cmd, const Args& a, const char* name, long lo, long hi, int& out) {
    if (!a.has(name))
        return -1;
    const std::string v = a.get(name);
    // an optional '-' and digits only, then the range
    bool digits = !v.empty() && v.size() > (v[0] == '-' ? 1u : 0u) && v.size() <= 12;
    for (size_t i = (!v.empty() && v[0] == '-') ? 1 : 0; digits && i < v.size(); i++)
        digits = v[i] >= '0' && v[i] <= '9';
    const long long n = digits ? std::strtoll(v.c_str(), nullptr, 10) : lo - 1;
    if (!digits || n < lo || n > hi) {
        fprintf(stderr, "nnfold %s: --%s expects an integer from %ld to %ld, got '%s'\n", cmd.c_str(), name, lo, hi,
                v.c_str());
        return kUsage;
    }
    out = (int)n;
    return -1;
}

std::vector<std::string> split_commas(const std::vector<std::string>& values) {
    std::vector<std::string> r;
    for (auto& v : values) {
        size_t pos = 0;
        while (pos <= v.size()) {
            size_t comma = v.find(',', pos);
            if (comma == std::string::npos)
                comma = v.size();
            if (comma > pos)
                r.push_back(v.substr(pos, comma - pos));
            pos = comma + 1;
        }
    }
    return r;
}

double median_of(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace cli
}  // namespace nnfold
