// Shared pieces of the `nnfold` command (native, and built for Node as the npm package's bin):
// argument parsing, file I/O, model loading and the exit codes of docs/errors.md (0 ok,
// 1 bad input / failed check, 2 usage, 3 internal).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "api/model.h"
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

// The start every subcommand shares: parses argv from argv[2] (problems go to stderr), prints
// `help` to stdout for --help, and to stderr (a usage error) when `arity_ok` rejects the
// arguments. Returns -1 when the command should go on, else the exit code to return.
int start_command(int argc, char** argv, const char* help, const std::vector<std::string>& flags,
                  const std::vector<std::string>& takes_value, const std::function<bool(const Args&)>& arity_ok,
                  Args& a);
// A bad option value: prints it as report() does and returns kUsage.
int usage_error(const std::string& cmd, const Status& st);
// --seed N when given (`seed` is left as it is otherwise).
Status seed_option(const Args& a, uint32_t& seed);

// --threads N (default: default_num_threads(), the machine's cores, at most 8; 1 runs without a
// thread pool) applied to the process (core/parallel.h set_num_threads). Returns -1 to go on, or
// the exit code after printing the error: a value that is not an integer in [1, 64] is a usage
// error (2); a count this build cannot run (a build without threads, NNFOLD_THREADS off, takes only
// 1) is reported as the error it is (1).
int threads_option(const std::string& cmd, const Args& a);

// --NAME N when given: an integer in [lo, hi] into `out` (left as it is when absent). Returns -1 to
// go on, or kUsage after printing "nnfold <cmd>: --NAME expects an integer from lo to hi, got '...'".
int int_option(const std::string& cmd, const Args& a, const char* name, long lo, long hi, int& out);
// The comma-separated items of every value ("a,b" "c" -> a, b, c), empty items dropped.
std::vector<std::string> split_commas(const std::vector<std::string>& values);
// Median of `v` (the mean of the middle two for an even count); 0 for none.
double median_of(std::vector<double> v);

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

// X.param -> X.io.json (other names: X + ".io.json").
std::string io_json_path(const std::string& param_path);
// True for a path ending in .onnx (any case).
bool is_onnx_path(const std::string& path);
// "--shape NAME=d0,d1,..." for ONNX inputs: the full ONNX shape, batch included.
Status parse_onnx_shapes(const std::vector<std::string>& specs, std::map<std::string, std::vector<int64_t>>& out);
// "--shape" values as the model at `model_path` takes them: full ONNX shapes into
// lo.onnx_shapes for an .onnx file, ncnn shapes (c,h,w) into lo.shapes otherwise. Errors are
// usage errors.
Status parse_model_shapes(const std::string& model_path, const std::vector<std::string>& specs, LoadOptions& lo);

// Loads a model into the facade as the CLI takes it: an .onnx file (imported; bin_path must be
// empty or "null"), or an ncnn .param with its .bin ("null": seeded random weights, or no
// weights at all when structure_only) and the X.io.json that `convert` writes beside it when
// that file exists. `lo` carries seed, shapes, use_simd; names are filled in here.
Status load_cli_model(const std::string& model_path, const std::string& bin_path, LoadOptions lo, bool structure_only,
                      ModelHandle& model);

}  // namespace cli
}  // namespace nnfold
