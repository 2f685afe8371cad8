// Optimizer scale: a chain Input -> N Dropouts, every Dropout removed by eliminate_dropout (each
// removal queries the producer and consumers of its blobs and rewires the next layer). Prints the
// optimize() time per size; README "Limits" quotes it.
//
//   build/nnfold_optimizer_bench [N...]      (default 20000 100000)
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "model/graph.h"
#include "passes/optimizer.h"

using namespace nnfold;

static Graph dropout_chain(int n) {
    Graph g;
    g.add_blob("b0");
    LayerNode in;
    in.type = "Input";
    in.name = "in";
    in.tops = {0};
    in.params.set_int(0, 8);
    in.params.set_int(1, 8);
    in.params.set_int(2, 4);
    g.add_layer(in);
    for (int i = 1; i <= n; i++) {
        LayerNode d;
        d.type = "Dropout";
        d.name = "d" + std::to_string(i);
        d.bottoms = {i - 1};
        d.tops = {g.add_blob("b" + std::to_string(i))};
        g.add_layer(std::move(d));
    }
    return g;
}

int main(int argc, char** argv) {
    std::vector<int> sizes;
    for (int i = 1; i < argc; i++)
        sizes.push_back(std::atoi(argv[i]));
    if (sizes.empty())
        sizes = {20000, 100000};
    for (int n : sizes) {
        Graph g = dropout_chain(n);
        OptimizeReport report;
        Warnings w;
        auto t0 = std::chrono::steady_clock::now();
        std::clock_t c0 = std::clock();
        Status st = optimize(g, OptimizeOptions(), report, w);
        double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!st) {
            fprintf(stderr, "optimize failed: %s\n", st.message().c_str());
            return 1;
        }
        printf("%7d Dropouts: optimize %.3f s (CPU %.3f s), %d rewrites, %d rounds, %d layers left\n", n, s, cpu,
               report.rewrite_count(), report.rounds, g.live_layer_count());
    }
    return 0;
}
