// Argument checks shared by the bindings: every bad argument becomes a TypeError naming
// the function and the parameter, never a crash or a silent coercion.
#pragma once

#include <napi.h>

#include <cmath>
#include <string>

namespace axpage {

inline std::string Describe(const Napi::Value& v) {
  if (v.IsUndefined()) return "undefined";
  if (v.IsNull()) return "null";
  if (v.IsNumber()) {
    double d = v.As<Napi::Number>().DoubleValue();
    if (std::isnan(d)) return "NaN";
    std::string s = std::to_string(d);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }
  if (v.IsString()) return "a string";
  if (v.IsBoolean()) return "a boolean";
  return "an object";
}

// An integer argument in [min, max].
inline long long IntArg(const Napi::CallbackInfo& info, size_t i, const char* fn,
                        const char* name, long long min, long long max) {
  Napi::Value v = info[i];
  if (!v.IsNumber()) {
    throw Napi::TypeError::New(info.Env(), std::string(fn) + ": " + name +
                                               " must be an integer, got " + Describe(v));
  }
  double d = v.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || std::floor(d) != d || d < static_cast<double>(min) ||
      d > static_cast<double>(max)) {
    throw Napi::TypeError::New(info.Env(), std::string(fn) + ": " + name +
                                               " must be an integer in [" + std::to_string(min) +
                                               ", " + std::to_string(max) + "], got " +
                                               Describe(v));
  }
  return static_cast<long long>(d);
}

inline bool BoolArg(const Napi::CallbackInfo& info, size_t i, const char* fn, const char* name) {
  Napi::Value v = info[i];
  if (!v.IsBoolean()) {
    throw Napi::TypeError::New(info.Env(), std::string(fn) + ": " + name +
                                               " must be a boolean, got " + Describe(v));
  }
  return v.As<Napi::Boolean>().Value();
}

inline Napi::Error CodedError(Napi::Env env, const char* code, const std::string& message) {
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("code", Napi::String::New(env, code));
  return e;
}

}  // namespace axpage
