// XInput2 raw events arrive for every device press whoever the focused client is, and
// whatever other clients selected (unlike core button events, which one client at a time
// may take on a window). They carry no position: the pointer is asked where it is when
// the presses are read, which for a click is where it landed unless the hand moved on.
#include "input-watch.h"

#include <X11/XKBlib.h>
#include <X11/extensions/XInput2.h>

#include "args.h"
#include "display.h"

namespace axpage {

Napi::Function XInputWatch::Init(Napi::Env env) {
  return DefineClass(env, "InputWatch",
                     {
                         InstanceAccessor<&XInputWatch::Usable>("usable"),
                         InstanceMethod<&XInputWatch::Read>("read"),
                         InstanceMethod<&XInputWatch::Close>("close"),
                     });
}

XInputWatch::XInputWatch(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<XInputWatch>(info) {
  Napi::Env env = info.Env();
  dpy_ = OpenNamedDisplay(info, "InputWatch", &name_);
  XSetIOErrorExitHandler(dpy_, &XInputWatch::OnIOExit, this);
  int event = 0, error = 0, major = 2, minor = 0;
  if (!XQueryExtension(dpy_, "XInputExtension", &opcode_, &event, &error) ||
      XIQueryVersion(dpy_, &major, &minor) != Success) {
    Shutdown();
    throw CodedError(env, "X11_NO_XINPUT2",
                     "X display '" + name_ + "' has no XInput 2: its input cannot be watched");
  }
  unsigned char bits[XIMaskLen(XI_LASTEVENT)] = {0};
  XISetMask(bits, XI_RawKeyPress);
  XISetMask(bits, XI_RawKeyRelease);
  XISetMask(bits, XI_RawButtonPress);
  XIEventMask mask{XIAllMasterDevices, sizeof(bits), bits};
  XISelectEvents(dpy_, DefaultRootWindow(dpy_), &mask, 1);
  XSync(dpy_, False);
  if (dead_) {
    Shutdown();
    throw CodedError(env, "X11_OPEN_FAILED", "X display '" + name_ + "' dropped the connection");
  }
}

XInputWatch::~XInputWatch() { Shutdown(); }

void XInputWatch::OnIOExit(Display*, void* self) { static_cast<XInputWatch*>(self)->dead_ = true; }

void XInputWatch::Shutdown() {
  if (!dpy_) return;
  if (!dead_) XCloseDisplay(dpy_);
  dpy_ = nullptr;
}

Napi::Value XInputWatch::Usable(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), dpy_ != nullptr && !dead_);
}

void XInputWatch::Close(const Napi::CallbackInfo&) { Shutdown(); }

// Every press since the last read, oldest first: {kind: 'button', button, x, y} or
// {kind: 'key' | 'keyup', keysym (its name, e.g. "Return", "a"), keycode}.
Napi::Value XInputWatch::Read(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array out = Napi::Array::New(env);
  if (!dpy_ || dead_) {
    throw CodedError(env, "X11_CONNECTION_LOST", "the input watch's X connection is gone");
  }
  uint32_t n = 0;
  bool pointerRead = false;
  int px = 0, py = 0;
  while (XPending(dpy_) > 0 && !dead_) {
    XEvent ev;
    XNextEvent(dpy_, &ev);
    XGenericEventCookie* cookie = &ev.xcookie;
    if (cookie->type != GenericEvent || cookie->extension != opcode_ ||
        !XGetEventData(dpy_, cookie)) {
      continue;
    }
    auto* raw = static_cast<XIRawEvent*>(cookie->data);
    Napi::Object item = Napi::Object::New(env);
    if (cookie->evtype == XI_RawButtonPress) {
      if (!pointerRead) {
        Window root, child;
        int wx, wy;
        unsigned mask;
        XQueryPointer(dpy_, DefaultRootWindow(dpy_), &root, &child, &px, &py, &wx, &wy, &mask);
        pointerRead = true;
      }
      item.Set("kind", "button");
      item.Set("button", raw->detail);
      item.Set("x", px);
      item.Set("y", py);
    } else {
      KeySym sym = XkbKeycodeToKeysym(dpy_, static_cast<KeyCode>(raw->detail), 0, 0);
      const char* name = sym == NoSymbol ? nullptr : XKeysymToString(sym);
      item.Set("kind", cookie->evtype == XI_RawKeyPress ? "key" : "keyup");
      item.Set("keycode", raw->detail);
      item.Set("keysym", name ? Napi::Value(Napi::String::New(env, name)) : env.Null());
    }
    XFreeEventData(dpy_, cookie);
    out.Set(n++, item);
  }
  return out;
}

}  // namespace axpage
