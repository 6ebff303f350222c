// Module entry: the Display class plus the connection-free helpers.
#include <napi.h>

#include <X11/Xlib.h>

#include "args.h"
#include "capturer.h"
#include "display.h"
#include "grab.h"
#include "input-watch.h"
#include "keysyms.h"
#include "root-property.h"
#include "xwd.h"

namespace axpage {
namespace {

Napi::Value KeysymFromNameJs(const Napi::CallbackInfo& info) {
  if (!info[0].IsString()) {
    throw Napi::TypeError::New(info.Env(),
                               "keysymFromName(name): name must be a string, got " +
                                   Describe(info[0]));
  }
  KeySym sym = KeysymFromName(info[0].As<Napi::String>().Utf8Value());
  if (sym == NoSymbol) return info.Env().Null();
  return Napi::Number::New(info.Env(), static_cast<double>(sym));
}

Napi::Value KeysymNameJs(const Napi::CallbackInfo& info) {
  KeySym sym = static_cast<KeySym>(IntArg(info, 0, "keysymName(keysym)", "keysym", 0, 0x1fffffff));
  const char* name = XKeysymToString(sym);
  if (!name) return info.Env().Null();
  return Napi::String::New(info.Env(), name);
}

}  // namespace
}  // namespace axpage

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) {
  using namespace axpage;
  // Before any other Xlib call: a Capturer's connection is used from worker threads
  // (libX11 1.8 does this by itself; older ones need it).
  XInitThreads();
  exports.Set("Display", XDisplay::Init(env));
  exports.Set("Capturer", XCapturer::Init(env));
  exports.Set("RootProperty", XRootProperty::Init(env));
  exports.Set("InputWatch", XInputWatch::Init(env));
  exports.Set("decodeXwd", Napi::Function::New(env, DecodeXwd, "decodeXwd"));
  exports.Set("xwdInfo", Napi::Function::New(env, XwdInfo, "xwdInfo"));
  exports.Set("keysymFromName", Napi::Function::New(env, KeysymFromNameJs, "keysymFromName"));
  exports.Set("keysymName", Napi::Function::New(env, KeysymNameJs, "keysymName"));
  exports.Set("heldInput", Napi::Function::New(env, HeldInput, "heldInput"));
  exports.Set("inputGrabs", Napi::Function::New(env, InputGrabs, "inputGrabs"));
  exports.Set("platform", Napi::String::New(env, "linux-x11"));
  return exports;
}

NODE_API_MODULE(axpage_native, InitAddon)
