// Subcommands of the `nnfold` command; each takes the whole argv (argv[1] is its name).
#pragma once

namespace nnfold {
namespace cli {

int cmd_run(int argc, char** argv);
int cmd_info(int argc, char** argv);
int cmd_randomize(int argc, char** argv);
int cmd_convert(int argc, char** argv);
int cmd_optimize(int argc, char** argv);
int cmd_verify(int argc, char** argv);
int cmd_bench(int argc, char** argv);
int cmd_quantize(int argc, char** argv);

}  // namespace cli
}  // namespace nnfold
