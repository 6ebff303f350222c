// Whether another client holds the keyboard or the pointer grabbed (grab.cc).
#pragma once

#include <napi.h>

namespace axpage {

// inputGrabs(display?): { keyboard, pointer }, each true when another client holds that
// device grabbed, asked over a connection of its own.
Napi::Value InputGrabs(const Napi::CallbackInfo& info);

}  // namespace axpage
