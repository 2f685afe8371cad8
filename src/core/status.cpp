#include "core/status.h"

namespace nnfold {

const char* error_code_name(ErrorCode code) {
    switch (code) {
    case ErrorCode::Ok: return "ok";
    case ErrorCode::InvalidModel: return "invalid_model";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::InvalidArgument: return "invalid_argument";
    case ErrorCode::ShapeMismatch: return "shape_mismatch";
    case ErrorCode::ResourceLimit: return "resource_limit";
    case ErrorCode::Cancelled: return "cancelled";
    case ErrorCode::Internal: return "internal";
    }
    return "internal";
}

Status Status::with_context(const std::string& context) const {
    if (is_ok() || context.empty())
        return *this;
    return Status(code_, context + ": " + message_);
}

}  // namespace nnfold
