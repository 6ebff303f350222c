// XWD decoding, for the Xvfb -fbdir framebuffer file (a live XWD image of the screen).
#pragma once

#include <napi.h>

namespace axpage {

// decodeXwd(buffer, x?, y?, w?, h?) → {x, y, width, height, data: RGB Buffer}
Napi::Value DecodeXwd(const Napi::CallbackInfo& info);
// xwdInfo(buffer) → header facts (size, pixel format, data offset, window name)
Napi::Value XwdInfo(const Napi::CallbackInfo& info);

}  // namespace axpage
