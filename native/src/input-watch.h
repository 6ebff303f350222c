// InputWatch: the person's own key and button presses, from any client, as the X server
// reports them to a connection that asked for XInput2 raw events on the root window.
#pragma once

#include <napi.h>

#include <X11/Xlib.h>

#include <string>

namespace axpage {

class XInputWatch : public Napi::ObjectWrap<XInputWatch> {
 public:
  static Napi::Function Init(Napi::Env env);
  explicit XInputWatch(const Napi::CallbackInfo& info);
  ~XInputWatch() override;

 private:
  static void OnIOExit(Display* dpy, void* self);
  Napi::Value Read(const Napi::CallbackInfo& info);
  Napi::Value Usable(const Napi::CallbackInfo& info);
  void Close(const Napi::CallbackInfo& info);
  void Shutdown();

  Display* dpy_ = nullptr;
  std::string name_;
  int opcode_ = 0;
  bool dead_ = false;
};

}  // namespace axpage
