// Error values for the whole core (docs/errors.md): nothing in src/ aborts or lets an
// exception escape a public entry point. A Status carries a code (mapped to JS `Error.code` and to
// CLI exit codes) and a message that names file, line, layer and blob where known.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nnfold {

enum class ErrorCode {
    Ok = 0,
    InvalidModel,     // malformed .param/.bin/.onnx: bad input, exit code 1
    Unsupported,      // a valid model using something nnfold does not implement: exit code 1
    InvalidArgument,  // caller passed something wrong (unknown blob, bad shape option): exit code 1
    ShapeMismatch,    // input or intermediate shapes do not fit the layer: exit code 1
    ResourceLimit,    // a tensor or model that would exceed the memory limits: exit code 1
    Cancelled,        // the caller asked to stop
    Internal,         // a bug in nnfold: exit code 3
};

// Stable string for JS `Error.code` and JSON reports.
const char* error_code_name(ErrorCode code);

class [[nodiscard]] Status {
public:
    Status() = default;
    Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

    static Status ok() { return Status(); }

    bool is_ok() const { return code_ == ErrorCode::Ok; }
    explicit operator bool() const { return is_ok(); }
    ErrorCode code() const { return code_; }
    const std::string& message() const { return message_; }

    // Prefix the message with context ("layer 'conv1' (Convolution): ...").
    Status with_context(const std::string& context) const;

private:
    ErrorCode code_ = ErrorCode::Ok;
    std::string message_;
};

inline Status invalid_model(std::string msg) { return Status(ErrorCode::InvalidModel, std::move(msg)); }
inline Status unsupported(std::string msg) { return Status(ErrorCode::Unsupported, std::move(msg)); }
inline Status invalid_argument(std::string msg) { return Status(ErrorCode::InvalidArgument, std::move(msg)); }
inline Status shape_mismatch(std::string msg) { return Status(ErrorCode::ShapeMismatch, std::move(msg)); }
inline Status resource_limit(std::string msg) { return Status(ErrorCode::ResourceLimit, std::move(msg)); }
inline Status internal_error(std::string msg) { return Status(ErrorCode::Internal, std::move(msg)); }

// Non-fatal findings (a blob with two consumers, NaN weights, an int token for a float param...).
// At most kMaxItems are kept (a hostile file could otherwise repeat one warning millions of times);
// the last item then says how many more there were.
struct Warnings {
    static constexpr size_t kMaxItems = 1000;
    std::vector<std::string> items;
    size_t dropped = 0;
    void add(std::string w) {
        if (items.size() < kMaxItems) {
            items.push_back(std::move(w));
            return;
        }
        dropped++;
        items.back() = "... and " + std::to_string(dropped + 1) + " more warnings";
    }
};

}  // namespace nnfold

#define NF_RETURN_IF_ERROR(expr)            \
    do {                                    \
        ::nnfold::Status nf_status_ = (expr); \
        if (!nf_status_.is_ok())            \
            return nf_status_;              \
    } while (0)
