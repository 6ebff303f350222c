// The RootProperty class: one property of the root window of screen 0, read whole or
// rewritten under a server grab, over an X connection of its own. What every process on
// an X display must agree on goes there: it is the same whatever a process's environment
// says (runtime dir, temp dir, the screen named in DISPLAY), and it lives exactly as long
// as the X server, like the windows and apps it is about.
#pragma once

// napi.h first: Xlib defines macros (Status, Bool, None, True, False) it must not see.
#include <napi.h>

#include <X11/Xlib.h>

#include <string>

namespace axpage {

class XRootProperty : public Napi::ObjectWrap<XRootProperty> {
 public:
  static Napi::Function Init(Napi::Env env);
  explicit XRootProperty(const Napi::CallbackInfo& info);
  ~XRootProperty() override;

 private:
  static void OnIOExit(Display* dpy, void* self);

  Napi::Value Name(const Napi::CallbackInfo& info);
  Napi::Value Usable(const Napi::CallbackInfo& info);
  Napi::Value Read(const Napi::CallbackInfo& info);
  Napi::Value Update(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);

  // Refuses a closed or lost connection; drops unsolicited events; clears the error record.
  void Begin(Napi::Env env);
  // Throws the lost connection or the first X error since Begin.
  void Check(Napi::Env env);
  // The property's bytes into *out; false when it is unset or not 8-bit data.
  bool Fetch(std::string* out);
  void Shutdown();

  Display* dpy_ = nullptr;
  bool dead_ = false;
  bool updating_ = false;
  std::string name_;
  std::string property_;
  Window root_ = 0;
  Atom atom_ = 0;
  Atom utf8_ = 0;
};

}  // namespace axpage
