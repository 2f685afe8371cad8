#include "io/onnx/onnx_graph.h"

#include <algorithm>

#include "core/strings.h"

namespace nnfold {
namespace onnx {

NodeGraph::NodeGraph(const std::vector<Node>& nodes, const Model& m) {
    for (size_t i = 0; i < nodes.size(); i++) {
        for (auto& o : nodes[i].outputs)
            if (!o.empty())
                producer[o] = (int)i;
        for (auto& x : nodes[i].inputs)
            if (!x.empty())
                consumers[x].push_back((int)i);
    }
    for (auto& o : m.outputs)
        graph_outputs.insert(o.name);
}

bool NodeGraph::only_use(const std::string& v, int& node) const {
    auto it = consumers.find(v);
    if (it == consumers.end() || it->second.size() != 1 || graph_outputs.count(v))
        return false;
    node = it->second[0];
    return true;
}

std::string node_label(const Node& n) {
    return n.name.empty() ? (n.outputs.empty() ? std::string("?") : n.outputs[0]) : n.name;
}

bool get_perm(const Node& n, std::vector<int64_t>& perm) {
    const Attribute* a = n.attr("perm");
    if (!a)
        return false;
    perm = a->ints;
    return true;
}

// Value -> producing node; InvalidModel when two nodes produce one value.
static Status producers(const std::vector<Node>& nodes, std::map<std::string, int>& producer) {
    for (size_t i = 0; i < nodes.size(); i++)
        for (auto& o : nodes[i].outputs)
            if (!o.empty()) {
                if (producer.count(o))
                    return invalid_model("value " + quote(o) + " is produced by two nodes");
                producer[o] = (int)i;
            }
    return Status::ok();
}

Status topo_sort(std::vector<Node>& nodes, const std::set<std::string>& available) {
    std::map<std::string, int> producer;
    NF_RETURN_IF_ERROR(producers(nodes, producer));
    std::vector<int> pending(nodes.size(), 0);
    std::map<int, std::vector<int>> users;
    for (size_t i = 0; i < nodes.size(); i++) {
        std::set<int> deps;
        for (auto& x : nodes[i].inputs) {
            if (x.empty())
                continue;
            auto it = producer.find(x);
            if (it != producer.end())
                deps.insert(it->second);
            else if (!available.count(x))
                return invalid_model("node " + quote(nodes[i].name) + " (" + sanitize(nodes[i].op_type) +
                                     ") reads " + quote(x) + ", which no node, input or initializer provides");
        }
        pending[i] = (int)deps.size();
        for (int d : deps)
            users[d].push_back((int)i);
    }
    // Ready nodes are taken lowest index first, so a sorted graph keeps its order.
    std::vector<int> order, ready;
    for (size_t i = 0; i < nodes.size(); i++)
        if (pending[i] == 0)
            ready.push_back((int)i);
    std::reverse(ready.begin(), ready.end());
    while (!ready.empty()) {
        int i = ready.back();
        ready.pop_back();
        order.push_back(i);
        std::vector<int> next;
        for (int u : users[i])
            if (--pending[u] == 0)
                next.push_back(u);
        std::sort(next.rbegin(), next.rend());
        ready.insert(ready.end(), next.begin(), next.end());
    }
    if (order.size() != nodes.size())
        return invalid_model("the ONNX graph has a cycle");
    std::vector<Node> sorted;
    sorted.reserve(nodes.size());
    for (int i : order)
        sorted.push_back(std::move(nodes[i]));
    nodes = std::move(sorted);
    return Status::ok();
}

std::vector<int> live_nodes(const std::vector<Node>& nodes, const Model& m) {
    std::set<std::string> needed;
    for (auto& o : m.outputs)
        needed.insert(o.name);
    std::vector<char> live(nodes.size(), 0);
    for (size_t i = nodes.size(); i-- > 0;) {
        bool any = false;
        for (auto& o : nodes[i].outputs)
            if (!o.empty() && needed.count(o))
                any = true;
        if (!any)
            continue;
        live[i] = 1;
        for (auto& x : nodes[i].inputs)
            if (!x.empty())
                needed.insert(x);
    }
    std::vector<int> r;
    for (size_t i = 0; i < nodes.size(); i++)
        if (live[i])
            r.push_back((int)i);
    return r;
}

}  // namespace onnx
}  // namespace nnfold
