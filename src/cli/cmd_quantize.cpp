// nnfold quantize IN.param IN.bin OUT.param OUT.bin --calibration DIR [options]: post-training int8
// quantization (ModelHandle::quantize: ncnn2table's calibration + ncnn2int8's rewrite) on a folder
// of pictures (PNG/JPEG, src/io/picture.h) and/or .f32 tensors. Everything is computed in memory
// first; the files are written only when all of it succeeded, each through a temporary name and a
// rename, so a failure leaves no half-written output.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/json.h"
#include "core/strings.h"
#include "quant/quantize.h"

namespace nnfold {
namespace cli {

static const char* kQuantizeHelp =
    "usage: nnfold quantize IN.param IN.bin|null OUT.param OUT.bin --calibration DIR [options]\n"
    "       nnfold quantize IN.onnx null OUT.param OUT.bin --calibration DIR [options]\n"
    "\n"
    "Quantizes an fp32 model to int8 as ncnn's ncnn2table + ncnn2int8 do: the model is optimized,\n"
    "run on every calibration sample to find each int8 layer's input scale, and its Convolution,\n"
    "ConvolutionDepthWise and InnerProduct layers get int8 weights (per output channel scales).\n"
    "OUT.param/OUT.bin are in ncnn2int8's format (stock ncnn loads them). Prints each layer's\n"
    "scales and error, and how the int8 model's outputs agree with the fp32 model's on the set.\n"
    "\n"
    "DIR holds the calibration samples, read in name order (other files are skipped with a warning):\n"
    "  *.png, *.jpg, *.jpeg  pictures (models of one input of 1 or 3 channels): decoded, resized\n"
    "                        bilinearly to the input's size as ncnn's from_pixels_resize does, then\n"
    "                        (pixel - mean) * norm per channel\n"
    "  *.f32                 raw float32 tensors of the input's shape (outermost first); a model\n"
    "                        of several inputs takes SAMPLE.INPUT.f32, one file per input of each\n"
    "                        sample (INPUT escaped as output file names are)\n"
    "\n"
    "options:\n"
    "  --calibration DIR      the calibration folder (required)\n"
    "  --method kl|aciq|eq    ncnn2table's method (default kl)\n"
    "  --mean a,b,c           per-channel mean subtracted from pictures (1 value: all channels)\n"
    "  --norm a,b,c           per-channel factor applied after the mean (default 1)\n"
    "  --rgb | --bgr          channel order the model expects from pictures (default --rgb)\n"
    "  --shape NAME=c,h,w     input shape (needed when the model declares none)\n"
    "  --keep-fp32 a,b        layers left fp32 (names)\n"
    "  --max-layer-error X    leave fp32 any layer whose int8 output error is over X\n"
    "  --report FILE          write the report JSON (per layer scales and error, outputs)\n"
    "  --seed N               seed for 'null' random weights (default 0)\n"
    "  --threads N            threads that run the model (default: the machine's cores, at most 8)\n";

namespace {

Status parse_floats(const std::string& opt, const std::string& v, std::vector<float>& out) {
    out.clear();
    for (auto& s : split_commas({v})) {
        char* end = nullptr;
        double x = std::strtod(s.c_str(), &end);
        if (*end != '\0' || !std::isfinite(x))
            return invalid_argument("--" + opt + " expects numbers separated by commas, got '" + v + "'");
        out.push_back((float)x);
    }
    if (out.empty() || out.size() > 4)
        return invalid_argument("--" + opt + " expects 1 to 4 numbers (one per channel), got '" + v + "'");
    return Status::ok();
}

std::string lower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
    return s;
}

bool ends_with(const std::string& s, const std::string& e) {
    return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

// The calibration folder's samples. `skipped` gets one warning per file that is not a sample.
Status read_calibration(const std::string& dir, const ModelHandle& model, const PictureToTensor& pic_opt,
                        std::vector<std::map<std::string, Mat>>& samples, Warnings& skipped) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(dir, ec))
        return invalid_argument("calibration folder " + quote(dir) + " does not exist");
    if (!fs::is_directory(dir, ec))
        return invalid_argument("calibration folder " + quote(dir) + " is not a folder");
    std::vector<std::string> names;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code ec2;
        std::string name = it->path().filename().string();
        if (!it->is_regular_file(ec2)) {
            skipped.add("calibration: skipped " + quote(name) + " (not a file)");
            continue;
        }
        names.push_back(name);
    }
    if (ec)
        return invalid_argument("cannot list calibration folder " + quote(dir) + ": " + ec.message());
    std::sort(names.begin(), names.end());

    std::vector<IoInfo> inputs = model.inputs();
    // several inputs: SAMPLE.INPUT.f32 files grouped by SAMPLE
    std::map<std::string, std::map<std::string, Mat>> groups;
    auto path_of = [&](const std::string& name) { return (fs::path(dir) / name).string(); };
    for (auto& name : names) {
        std::string ext = lower(name);
        bool picture = ends_with(ext, ".png") || ends_with(ext, ".jpg") || ends_with(ext, ".jpeg");
        bool tensor = ends_with(ext, ".f32");
        if (!picture && !tensor) {
            skipped.add("calibration: skipped " + quote(name) + " (not a .png, .jpg or .jpeg picture, nor a .f32 tensor)");
            continue;
        }
        const std::string path = path_of(name);
        std::vector<uint8_t> bytes;
        NF_RETURN_IF_ERROR(read_file(path, bytes));
        if (picture) {
            std::map<std::string, Mat> s;
            NF_RETURN_IF_ERROR(model.picture_sample(bytes.data(), bytes.size(), path, pic_opt, s));
            samples.push_back(std::move(s));
            continue;
        }
        if (inputs.size() == 1) {
            Mat m;
            NF_RETURN_IF_ERROR(f32_to_mat(bytes.data(), bytes.size(), inputs[0].shape, path, m));
            samples.push_back({{inputs[0].name, m}});
            continue;
        }
        // the longest input name that ends the file name as ".INPUT.f32"
        const IoInfo* match = nullptr;
        std::string sample;
        for (auto& in : inputs) {
            std::string suffix = "." + escape_file_name(in.name) + ".f32";
            if (name.size() > suffix.size() && ends_with(name, suffix) &&
                (!match || in.name.size() > match->name.size())) {
                match = &in;
                sample = name.substr(0, name.size() - suffix.size());
            }
        }
        if (!match) {
            std::string list;
            for (auto& in : inputs)
                list += (list.empty() ? "" : ", ") + escape_file_name(in.name);
            return invalid_argument(quote(path) + ": the model has " + std::to_string(inputs.size()) +
                                    " inputs, so a tensor file is named SAMPLE.INPUT.f32 with INPUT one of " + list);
        }
        Mat m;
        NF_RETURN_IF_ERROR(f32_to_mat(bytes.data(), bytes.size(), match->shape, path, m));
        groups[sample][match->name] = m;
    }
    for (auto& g : groups) {
        for (auto& in : inputs)
            if (!g.second.count(in.name))
                return invalid_argument("calibration sample " + quote(g.first) + " in " + quote(dir) +
                                        " has no tensor for input " + quote(in.name) + " (expected " +
                                        quote(g.first + "." + escape_file_name(in.name) + ".f32") + ")");
        samples.push_back(std::move(g.second));
    }
    if (samples.empty())
        return invalid_argument("no usable calibration file in " + quote(dir) +
                                ": it needs .png/.jpg/.jpeg pictures or .f32 tensors");
    return Status::ok();
}

std::string num(const json& v, const char* fmt = "%.6g") {
    if (!v.is_number())
        return "-";
    char buf[48];
    snprintf(buf, sizeof buf, fmt, v.get<double>());
    return buf;
}

// The report as text: one line per quantizable layer, then the outputs and the sizes.
void print_report(const std::string& report_json) {
    json r = json::parse(report_json, nullptr, false);
    if (r.is_discarded() || !r.is_object())
        return;
    printf("%-28s %-22s %-5s %-12s %-23s %-12s %s\n", "layer", "type", "int8", "bottom_scale", "weight_scales (min-max)",
           "top_scale", "error");
    int n = 0, n8 = 0;
    if (r.contains("layers") && r["layers"].is_array())
        for (auto& l : r["layers"]) {
            n++;
            bool i8 = l.value("int8", false);
            n8 += i8;
            std::string ws = l.contains("weight_scale_min") && l["weight_scale_min"].is_number()
                                 ? num(l["weight_scale_min"], "%.4g") + "-" + num(l["weight_scale_max"], "%.4g")
                                 : std::string("-");
            std::string reason = l.value("reason", std::string());
            printf("%-28s %-22s %-5s %-12s %-23s %-12s %s%s\n", sanitize(l.value("name", std::string())).c_str(),
                   sanitize(l.value("type", std::string())).c_str(), i8 ? "yes" : "no",
                   num(l.value("bottom_scale", json())).c_str(), ws.c_str(), num(l.value("top_scale", json())).c_str(),
                   num(l.value("error", json()), "%.3g").c_str(),
                   reason.empty() ? "" : ("  (fp32: " + sanitize(reason) + ")").c_str());
        }
    if (r.contains("outputs") && r["outputs"].is_array())
        for (auto& o : r["outputs"]) {
            json t = o.value("top1_agreement", json());
            printf("output %s: err %s%s\n", quote(o.value("name", std::string())).c_str(),
                   num(o.value("error", json()), "%.3g").c_str(),
                   t.is_number() ? (", top-1 agreement " + num(t, "%.3g")).c_str() : "");
        }
    printf("quantized: %d of %d layers int8 (method %s, %s samples); weights %s -> %s bytes\n", n8, n,
           sanitize(r.value("method", std::string("?"))).c_str(), num(r.value("samples", json()), "%.0f").c_str(),
           num(r.value("bytes_before", json()), "%.0f").c_str(), num(r.value("bytes_after", json()), "%.0f").c_str());
}

struct OutFile {
    std::string path;
    std::vector<uint8_t> bytes;
};

// Writes every file under a temporary name first, then renames them into place: a failure on the
// way removes the temporaries and leaves the outputs as they were.
Status write_all(const std::vector<OutFile>& files) {
    std::vector<std::string> temps;
    auto cleanup = [&]() {
        for (auto& t : temps)
            std::remove(t.c_str());
    };
    for (auto& f : files) {
        std::string tmp = f.path + ".nnfold-tmp";
        Status st = write_file(tmp, f.bytes.data(), f.bytes.size());
        if (!st) {
            std::remove(tmp.c_str());
            cleanup();
            return st;
        }
        temps.push_back(tmp);
    }
    for (size_t i = 0; i < files.size(); i++) {
        std::error_code ec;
        std::filesystem::rename(temps[i], files[i].path, ec);
        if (ec) {
            cleanup();
            return invalid_argument("cannot write " + files[i].path + ": " + ec.message());
        }
    }
    return Status::ok();
}

}  // namespace

int cmd_quantize(int argc, char** argv) {
    Args a;
    int code = start_command(argc, argv, kQuantizeHelp, {"help", "rgb", "bgr"},
                             {"calibration", "method", "mean", "norm", "shape", "keep-fp32", "max-layer-error",
                              "report", "seed", "threads"},
                             [](const Args& a) { return a.positional.size() == 4; }, a);
    if (code >= 0)
        return code;
    const auto& pos = a.positional;
    QuantizeRequest req;
    PictureToTensor pic;
    LoadOptions lo;
    Status st;
    if (!a.has("calibration") || a.get("calibration").empty())
        st = invalid_argument("--calibration DIR is required (a folder of .png/.jpg/.jpeg pictures or .f32 tensors)");
    if (st && a.has("method")) {
        CalibrationMethod m;
        req.method = a.get("method");
        if (!parse_calibration_method(req.method, m))
            st = invalid_argument("--method must be kl, aciq or eq, got '" + req.method + "'");
    }
    if (st && a.has("rgb") && a.has("bgr"))
        st = invalid_argument("--rgb and --bgr exclude each other");
    pic.rgb = !a.has("bgr");
    if (st && a.has("mean"))
        st = parse_floats("mean", a.get("mean"), pic.mean);
    if (st && a.has("norm"))
        st = parse_floats("norm", a.get("norm"), pic.norm);
    if (st && a.has("max-layer-error")) {
        std::string v = a.get("max-layer-error");
        char* end = nullptr;
        double x = v.empty() ? NAN : std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !(x >= 0.0) || !std::isfinite(x))
            st = invalid_argument("--max-layer-error expects a non-negative number, got '" + v + "'");
        else
            req.max_layer_error = x;
    }
    req.keep_fp32 = split_commas(a.all("keep-fp32"));
    if (st)
        st = parse_model_shapes(pos[0], a.all("shape"), lo);
    if (st)
        st = seed_option(a, lo.seed);
    if (!st)
        return usage_error("quantize", st);
    code = threads_option("quantize", a);
    if (code >= 0)
        return code;

    ModelHandle model;
    st = load_cli_model(pos[0], pos[1], lo, false, model);
    print_warnings(model.warnings());
    if (!st)
        return report("quantize", st);
    std::vector<std::map<std::string, Mat>> samples;
    Warnings skipped;
    st = read_calibration(a.get("calibration"), model, pic, samples, skipped);
    print_warnings(skipped);
    if (!st)
        return report("quantize", st);

    ModelHandle out;
    std::string report_json;
    st = guard([&]() { return model.quantize(samples, req, out, report_json); });
    samples.clear();
    if (!st)
        return report("quantize", st);
    std::string param;
    std::vector<uint8_t> bin;
    Warnings w;
    st = out.to_ncnn(0, param, bin, w);
    print_warnings(w);
    if (!st)
        return report("quantize", st);
    std::vector<OutFile> files;
    files.push_back({pos[2], std::vector<uint8_t>(param.begin(), param.end())});
    files.push_back({pos[3], std::move(bin)});
    std::string io = out.io_json();
    if (!io.empty())
        files.push_back({io_json_path(pos[2]), std::vector<uint8_t>(io.begin(), io.end())});
    if (a.has("report")) {
        std::string j = report_json + "\n";
        files.push_back({a.get("report"), std::vector<uint8_t>(j.begin(), j.end())});
    }
    st = write_all(files);
    if (!st)
        return report("quantize", st);
    print_report(report_json);
    return kOk;
}

}  // namespace cli
}  // namespace nnfold
