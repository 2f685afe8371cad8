// The ONNX node graph before translation: who produces and who reads each value, the order the
// nodes run in, and which nodes contribute to the outputs. Shared by the import driver
// (onnx_import.cpp) and the ONNX-level rewrites (onnx_rewrite.h).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "io/onnx/onnx_model.h"

namespace nnfold {
namespace onnx {

// Producer and readers of every value of `nodes`, and the graph's outputs. A snapshot: rebuilt
// after every change to the nodes.
struct NodeGraph {
    std::map<std::string, int> producer;                // value -> node index
    std::map<std::string, std::vector<int>> consumers;  // value -> node indices (one per use)
    std::set<std::string> graph_outputs;

    NodeGraph(const std::vector<Node>& nodes, const Model& m);
    // True when `v` has exactly one use and is not a graph output (so a rewrite may remove it);
    // `node` is then that use.
    bool only_use(const std::string& v, int& node) const;
};

// How log entries and messages name a node: its name, else its first output.
std::string node_label(const Node& n);
// A Transpose's perm attribute; false when absent.
bool get_perm(const Node& n, std::vector<int64_t>& perm);

// Sorts `nodes` topologically (Kahn's algorithm, stable for an already sorted graph): the ONNX
// spec requires sorted nodes but not every exporter complies. `available` holds the values no
// node produces (inputs, initializers). InvalidModel for a value produced twice, a value nothing
// provides, or a cycle.
Status topo_sort(std::vector<Node>& nodes, const std::set<std::string>& available);

// Indices of the nodes that contribute to a graph output, in order (`nodes` sorted).
std::vector<int> live_nodes(const std::vector<Node>& nodes, const Model& m);

}  // namespace onnx
}  // namespace nnfold
