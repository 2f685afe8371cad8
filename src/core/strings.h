// Text helpers for messages: user-supplied names (layer, blob, file) are shown with control
// characters escaped and their length capped, so a hostile file cannot flood or garble an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nnfold {

// Control characters (and DEL) as \xNN, so a text stays one line; the length is kept.
std::string escape_controls(const std::string& s);
// escape_controls of `s` cut to 80 characters.
std::string sanitize(const std::string& s);
// 'name' with sanitize applied.
std::string quote(const std::string& s);
// "layer 'conv1' (Convolution)"
std::string layer_desc(const std::string& name, const std::string& type);
// Escapes every byte outside [A-Za-z0-9._-] as %XX (docs/shapes-and-files.md), for file names.
std::string escape_file_name(const std::string& name);
// "[1,3,224,224]": a shape of any rank (an ONNX tensor's), outermost first.
std::string dims_str(const std::vector<int64_t>& dims);

}  // namespace nnfold
