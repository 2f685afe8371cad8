// Shared pieces of the native `nnfold` command: argument parsing, file I/O, model loading and the
// exit codes of CONVENTIONS section 2 (0 ok, 1 bad input / failed check, 2 usage, 3 internal).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "io/io_map.h"
#include "model/graph.h"

namespace nnfold {
namespace cli {

enum ExitCode { kOk = 0, kBadInput = 1, kUsage = 2, kInternal = 3 };

// Parsed command line: positionals and --name[=value] options (a value may also follow as the
// next argument for options listed in `takes_value`).
struct Args {
    std::vector<std::string> positional;
    std::multimap<std::string, std::string> options;
    bool has(const std::string& k) const { return options.count(k) > 0; }
    std::string get(const std::string& k, const std::string& def = "") const;
    std::vector<std::string> all(const std::string& k) const;
};
// Returns false (and prints to stderr) on an unknown option.
bool parse_args(int argc, char** argv, int start, const std::vector<std::string>& flags,
                const std::vector<std::string>& takes_value, Args& out);

int exit_code_for(const Status& st);
// Prints "nnfold <cmd>: <message>" to stderr and returns the exit code.
int report(const std::string& cmd, const Status& st);
void print_warnings(const Warnings& w);

Status read_file(const std::string& path, std::vector<uint8_t>& out);
Status write_file(const std::string& path, const void* data, size_t size);
// mkdir -p
Status make_dirs(const std::string& path);

// "--shape NAME=c,h,w" values -> map; errors on bad syntax.
Status parse_shapes(const std::vector<std::string>& specs, std::map<std::string, Shape>& out);
Status parse_seed(const std::string& s, uint32_t& seed);

// Loads a .param and its .bin, or random weights when bin_path is "null" (ncnnoptimize's form).
Status load_model(const std::string& param_path, const std::string& bin_path, uint32_t seed, Graph& g,
                  Warnings& warnings);

// A model as the CLI takes it: an ncnn .param (+ .bin, or random weights) with the X.io.json
// written by `convert` beside it when present, or an .onnx file imported directly.
struct CliModel {
    Graph g;
    IoMap io;  // empty for a plain ncnn model
    bool onnx = false;
};
// X.param -> X.io.json (other names: X + ".io.json").
std::string io_json_path(const std::string& param_path);
// True for a path ending in .onnx (any case).
bool is_onnx_path(const std::string& path);
// "--shape NAME=d0,d1,..." for ONNX inputs: the full ONNX shape, batch included.
Status parse_onnx_shapes(const std::vector<std::string>& specs, std::map<std::string, std::vector<int64_t>>& out);
// Loads either kind. `shape_specs` are the raw --shape values (used at import for ONNX models).
Status load_cli_model(const std::string& model_path, const std::string& bin_path, uint32_t seed,
                      const std::vector<std::string>& shape_specs, CliModel& m, Warnings& warnings);

}  // namespace cli
}  // namespace nnfold
