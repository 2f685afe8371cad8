#include "optfuzz.h"

#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include "graph_gen.h"
#include "io/ncnn_io.h"
#include "passes/optimizer.h"
#include "runtime/net.h"
#include "runtime/random.h"
#include "runtime/verify.h"

namespace nnfold {
namespace fuzz {

namespace {

std::vector<std::string> split_csv(const std::string& s) {
    std::vector<std::string> r;
    std::stringstream ss(s);
    std::string p;
    while (std::getline(ss, p, ','))
        if (!p.empty())
            r.push_back(p);
    return r;
}

// Runs `g` with the scalar reference layers; `wanted` empty = the model's outputs.
// `perturb` > 0 multiplies every input value by (1 + perturb * u), u uniform in [-1, 1].
Status run_reference(const Graph& g, uint32_t input_seed, const std::vector<std::string>& wanted,
                     std::map<std::string, Mat>& out, std::vector<std::string>& output_names, float perturb = 0) {
    Net net;
    NetOptions no;
    no.use_optimized = false;
    NF_RETURN_IF_ERROR(net.load(g, no));
    output_names = net.output_names();
    std::map<std::string, Mat> in;
    Rng rng(input_seed);
    for (auto& name : net.input_names()) {
        Mat m;
        NF_RETURN_IF_ERROR(m.create(net.declared_input_shape(name)));
        fill_uniform(m, rng);
        if (perturb > 0) {
            Rng prng(input_seed ^ 0x5bd1e995u);
            for (size_t i = 0; i < m.total_floats(); i++)
                m.data[i] *= 1.f + perturb * prng.uniform(-1.f, 1.f);
        }
        in[name] = m;
    }
    std::vector<std::string> want = output_names;
    for (auto& w : wanted)
        want.push_back(w);
    return net.run(in, want, out);
}

Status write_both(const Graph& g, std::string& param, std::vector<uint8_t>& bin) {
    Warnings w;
    NF_RETURN_IF_ERROR(write_param(g, param, w));
    return write_bin(g, bin, BinWriteOptions(), w);
}

OptFuzzResult fail(OptFuzzResult r, const std::string& what) {
    r.kind = OptFuzzResult::Failed;
    r.what = what;
    return r;
}

}  // namespace

OptFuzzResult check_optimizer_on_param(const std::string& param, const std::string& keep_csv, uint32_t weight_seed,
                                       double tolerance) {
    OptFuzzResult r;
    r.param = param;
    r.keep = keep_csv;
    std::vector<std::string> keep = split_csv(keep_csv);

    Graph before;
    Warnings w;
    Status st = read_param(param, before, w, "fuzz.param");
    if (st)
        st = randomize_weights(before, weight_seed);
    if (!st) {
        r.kind = OptFuzzResult::Skipped;
        r.what = "generator: " + st.message();
        return r;
    }
    r.layers_before = before.live_layer_count();

    std::map<std::string, Mat> ref;
    std::vector<std::string> outs;
    st = run_reference(before, weight_seed + 1, keep, ref, outs);
    if (!st) {
        r.kind = OptFuzzResult::Skipped;
        r.what = "generator: the reference run refuses the graph: " + st.message();
        return r;
    }

    // write -> read -> write of the original is a fixed point too (the reader and writer agree)
    {
        std::string p1, p2;
        std::vector<uint8_t> b1, b2;
        st = write_both(before, p1, b1);
        if (!st)
            return fail(r, "writing the original failed: " + st.message());
        Graph g2;
        Warnings w2;
        st = read_param(p1, g2, w2, "written.param");
        if (st)
            st = read_bin(b1.data(), b1.size(), g2, w2, "written.bin");
        if (!st)
            return fail(r, "reading the written original failed: " + st.message() + "\n" + p1);
        st = write_both(g2, p2, b2);
        if (!st || p1 != p2 || b1 != b2)
            return fail(r, "write->read->write of the original is not a fixed point:\n" + p1 + "---\n" + p2);
    }

    Graph after = before;
    OptimizeOptions opt;
    opt.keep = keep;
    opt.check_use_index = true;  // every rewrite keeps the graph's use index equal to a rescan
    OptimizeReport report;
    Warnings ow;
    st = optimize(after, opt, report, ow);
    if (!st)
        return fail(r, "optimize failed: " + st.message());
    r.rewrites = report.rewrite_count();
    for (auto& pr : report.passes)
        if (!pr.rewrites.empty())
            r.pass_rewrites[pr.name] += (int)pr.rewrites.size();
    r.layers_after = after.live_layer_count();
    st = after.validate();
    if (!st)
        return fail(r, "the optimized graph is invalid: " + st.message());

    std::map<std::string, Mat> got;
    std::vector<std::string> outs_after;
    st = run_reference(after, weight_seed + 1, keep, got, outs_after);
    if (!st)
        return fail(r, "the optimized graph does not run: " + st.message());
    if (outs_after != outs) {
        std::string a, b;
        for (auto& n : outs)
            a += n + " ";
        for (auto& n : outs_after)
            b += n + " ";
        return fail(r, "the outputs changed: before [" + a + "] after [" + b + "]");
    }
    std::vector<std::string> compare = outs;
    for (auto& k : keep)
        compare.push_back(k);
    for (auto& name : compare) {
        auto ia = ref.find(name), ib = got.find(name);
        if (ia == ref.end() || ib == got.end())
            return fail(r, "blob '" + name + "' is missing after optimizing");
        if (ia->second.shape() != ib->second.shape())
            return fail(r, "blob '" + name + "' has shape " + ia->second.shape().str() + " before and " +
                               ib->second.shape().str() + " after optimizing");
        double e = relative_error(ia->second.data, ib->second.data, ia->second.total_floats());
        if (!(e <= tolerance) && std::isfinite(e)) {
            // Ill-conditioned outputs: a small result of cancelling large terms (an InnerProduct
            // summing values of both signs) has a relative error far above float epsilon under
            // any change of rounding. Such a difference is judged against the change the same
            // output shows when the inputs move by 1e-6 relative (about 8 float ulps): within 4x
            // that, or within 1e-6 of the largest value the graph computes, it is rounding noise,
            // not a wrong rewrite.
            std::map<std::string, Mat> pert;
            std::vector<std::string> po;
            if (run_reference(before, weight_seed + 1, keep, pert, po, 1e-6f)) {
                auto ip = pert.find(name);
                double noise = 0, diff = 0;
                for (size_t i = 0; ip != pert.end() && i < ia->second.total_floats(); i++) {
                    noise = std::max(noise, (double)std::fabs(ia->second.data[i] - ip->second.data[i]));
                    diff = std::max(diff, (double)std::fabs(ia->second.data[i] - ib->second.data[i]));
                }
                // an output that is zero up to rounding (a blob minus its own mean) has no
                // sensitivity to its inputs at all: judge it against the largest value the
                // original graph computes anywhere
                double scale = 0;
                std::vector<std::string> all;
                for (auto& b : before.blobs)
                    all.push_back(b.name);
                std::map<std::string, Mat> every;
                std::vector<std::string> eo;
                if (run_reference(before, weight_seed + 1, all, every, eo))
                    for (auto& kv : every)
                        for (size_t i = 0; i < kv.second.total_floats(); i++)
                            if (std::isfinite(kv.second.data[i]))
                                scale = std::max(scale, (double)std::fabs(kv.second.data[i]));
                if (diff <= 4 * noise || diff <= 1e-6 * scale) {
                    r.kind = OptFuzzResult::IllConditioned;
                    std::ostringstream os;
                    os << "blob '" << name << "': err " << e << " but max|diff| " << diff
                       << " is within 4x the change from 1e-6 input noise (" << noise
                       << ") or 1e-6 of the largest value computed (" << scale << ")";
                    r.what = os.str();
                    continue;
                }
            }
        }
        if (!(e <= tolerance)) {
            std::ostringstream os;
            double maxref = 0, maxdiff = 0;
            for (size_t i = 0; i < ia->second.total_floats(); i++) {
                maxref = std::max(maxref, (double)std::fabs(ia->second.data[i]));
                maxdiff = std::max(maxdiff, (double)std::fabs(ia->second.data[i] - ib->second.data[i]));
            }
            os << "blob '" << name << "' differs after optimizing: err " << e << " > " << tolerance << " (max|ref| "
               << maxref << ", max|diff| " << maxdiff << ")";
            r.max_err = e;
            return fail(r, os.str());
        }
        if (r.kind == OptFuzzResult::Ok)
            r.max_err = std::max(r.max_err, e);
    }

    // idempotent: optimizing again rewrites nothing and writes the same files
    std::string p1, p2;
    std::vector<uint8_t> b1, b2;
    st = write_both(after, p1, b1);
    if (!st)
        return fail(r, "writing the optimized graph failed: " + st.message());
    Graph again = after;
    OptimizeReport report2;
    st = optimize(again, opt, report2, ow);
    if (!st)
        return fail(r, "optimizing twice failed: " + st.message());
    if (report2.rewrite_count() != 0) {
        std::string lines;
        for (auto& l : report_lines(report2))
            lines += "  " + l + "\n";
        return fail(r, "optimizing twice rewrote again (not a fixed point):\n" + lines);
    }
    st = write_both(again, p2, b2);
    if (!st || p1 != p2 || b1 != b2)
        return fail(r, "optimizing twice changed the written files");

    // write -> read -> write of the optimized graph
    Graph reread;
    Warnings rw;
    st = read_param(p1, reread, rw, "optimized.param");
    if (st)
        st = read_bin(b1.data(), b1.size(), reread, rw, "optimized.bin");
    if (!st)
        return fail(r, "reading the written optimized graph failed: " + st.message() + "\n" + p1);
    std::string p3;
    std::vector<uint8_t> b3;
    st = write_both(reread, p3, b3);
    if (!st || p3 != p1 || b3 != b1)
        return fail(r, "write->read->write of the optimized graph is not a fixed point:\n" + p1 + "---\n" + p3);
    return r;
}

OptFuzzResult check_optimizer_on_graph(uint32_t seed, double tolerance) {
    GeneratedGraph gg = generate_graph(seed);
    std::string keep;
    for (auto& k : gg.keep)
        keep += (keep.empty() ? "" : ",") + k;
    return check_optimizer_on_param(gg.param, keep, seed, tolerance);
}

}  // namespace fuzz
}  // namespace nnfold
