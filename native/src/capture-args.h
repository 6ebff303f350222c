// What the capture entry points share: the (x, y, w, h[, method]) arguments and the words
// of their range and no-SHM errors. Display.capture (JS thread), Capturer.capture (worker)
// and decodeXwd take the same rect and must say the same things about it.
#pragma once

#include <napi.h>

#include <climits>
#include <string>

#include "args.h"

namespace axpage {

struct CaptureRect {
  long long x = 0, y = 0, w = 0, h = 0;
};

// The rect at arguments first..first+3 of `fn`; TypeError naming the bad one.
inline CaptureRect RectArgs(const Napi::CallbackInfo& info, size_t first, const char* fn) {
  CaptureRect r;
  r.x = IntArg(info, first, fn, "x", INT_MIN, INT_MAX);
  r.y = IntArg(info, first + 1, fn, "y", INT_MIN, INT_MAX);
  r.w = IntArg(info, first + 2, fn, "w", 1, INT_MAX);
  r.h = IntArg(info, first + 3, fn, "h", 1, INT_MAX);
  return r;
}

// The optional capture method at argument i: "auto" (default), "shm" or "getimage".
inline std::string MethodArg(const Napi::CallbackInfo& info, size_t i, const char* fn) {
  std::string method = "auto";
  if (info.Length() > i && !info[i].IsUndefined()) {
    if (info[i].IsString()) method = info[i].As<Napi::String>().Utf8Value();
    if (!info[i].IsString() || (method != "auto" && method != "shm" && method != "getimage")) {
      throw Napi::TypeError::New(info.Env(), std::string(fn) +
                                                 ": method must be 'auto', 'shm' or 'getimage', got " +
                                                 Describe(info[i]));
    }
  }
  return method;
}

// "<who>: rect {...} lies outside the WxH <what>" (a RangeError's message).
inline std::string OutsideMessage(const char* who, const CaptureRect& r, int width, int height,
                                  const char* what) {
  return std::string(who) + ": rect {x: " + std::to_string(r.x) + ", y: " + std::to_string(r.y) +
         ", w: " + std::to_string(r.w) + ", h: " + std::to_string(r.h) + "} lies outside the " +
         std::to_string(width) + "x" + std::to_string(height) + " " + what;
}

// Why "shm" was asked for and cannot be had (X11_NO_SHM).
inline std::string NoShmMessage(bool advertised) {
  return advertised ? "capture: MIT-SHM is advertised but does not work with this server "
                      "(remote display or another IPC namespace)"
                    : "capture: the X server has no MIT-SHM extension";
}

}  // namespace axpage
