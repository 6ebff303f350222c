#include "root-property.h"

#include <X11/Xatom.h>

#include "args.h"
#include "display.h"
#include "xerrors.h"

namespace axpage {
namespace {

// Read in pieces this size (32-bit units): one reply stays small, any length is read.
constexpr long kChunkLongs = 1 << 16;

// Ungrabs the server however update() leaves (the callback may throw): a grab left behind
// would freeze every other client of the display.
class ServerGrab {
 public:
  ServerGrab(Display* dpy, const bool& dead) : dpy_(dpy), dead_(dead) { XGrabServer(dpy_); }
  ~ServerGrab() {
    // A lost connection took its grab with it; Xlib must not be called on it again.
    if (dead_) return;
    XUngrabServer(dpy_);
    XSync(dpy_, False);
  }
  ServerGrab(const ServerGrab&) = delete;
  ServerGrab& operator=(const ServerGrab&) = delete;

 private:
  Display* dpy_;
  const bool& dead_;
};

}  // namespace

Napi::Function XRootProperty::Init(Napi::Env env) {
  return DefineClass(env, "RootProperty",
                     {
                         InstanceAccessor<&XRootProperty::Name>("name"),
                         InstanceAccessor<&XRootProperty::Usable>("usable"),
                         InstanceMethod<&XRootProperty::Read>("read"),
                         InstanceMethod<&XRootProperty::Update>("update"),
                         InstanceMethod<&XRootProperty::Close>("close"),
                     });
}

XRootProperty::XRootProperty(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<XRootProperty>(info) {
  Napi::Env env = info.Env();
  if (!info[1].IsString() || info[1].As<Napi::String>().Utf8Value().empty()) {
    throw Napi::TypeError::New(env,
                               "RootProperty(display, property): property must be a non-empty "
                               "string, got " +
                                   Describe(info[1]));
  }
  property_ = info[1].As<Napi::String>().Utf8Value();
  dpy_ = OpenNamedDisplay(info, "RootProperty", &name_);
  XSetIOErrorExitHandler(dpy_, &XRootProperty::OnIOExit, this);
  // Screen 0's root whatever screen DISPLAY names: one property per X server.
  root_ = RootWindow(dpy_, 0);
  atom_ = XInternAtom(dpy_, property_.c_str(), False);
  utf8_ = XInternAtom(dpy_, "UTF8_STRING", False);
  XSync(dpy_, False);
  XErrorRecord rec;
  if (dead_ || TakeError(dpy_, &rec)) {
    std::string why = dead_ ? "the connection dropped" : DescribeError(dpy_, rec);
    Shutdown();
    throw CodedError(env, "X11_OPEN_FAILED", "X display '" + name_ + "' failed to set up: " + why);
  }
}

XRootProperty::~XRootProperty() { Shutdown(); }

void XRootProperty::OnIOExit(Display*, void* self) {
  // Returning (instead of exiting, as Xlib's default does) makes the pending Xlib call
  // return a failure; Check() then throws and the connection stays unusable.
  static_cast<XRootProperty*>(self)->dead_ = true;
}

void XRootProperty::Shutdown() {
  if (!dpy_) return;
  if (!dead_) XSync(dpy_, False);
  XCloseDisplay(dpy_);
  UntrackDisplay(dpy_);
  dpy_ = nullptr;
}

Napi::Value XRootProperty::Name(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), name_);
}

Napi::Value XRootProperty::Usable(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), dpy_ != nullptr && !dead_);
}

Napi::Value XRootProperty::Close(const Napi::CallbackInfo& info) {
  if (updating_) {
    throw CodedError(info.Env(), "X11_BUSY", "RootProperty.close() inside its own update()");
  }
  Shutdown();
  return info.Env().Undefined();
}

void XRootProperty::Begin(Napi::Env env) {
  if (!dpy_) {
    throw CodedError(env, "X11_CLOSED", "X display '" + name_ + "' is closed (RootProperty)");
  }
  // Nothing asks for events here; drop the unsolicited ones (MappingNotify) so none pile up.
  while (!dead_ && XPending(dpy_) > 0) {
    XEvent ev;
    XNextEvent(dpy_, &ev);
  }
  Check(env);
  ClearErrors(dpy_);
}

void XRootProperty::Check(Napi::Env env) {
  if (dead_) {
    throw CodedError(env, "X11_CONNECTION_LOST",
                     "lost the connection to X display '" + name_ +
                         "' (the X server went away); this RootProperty is unusable, open a new "
                         "one");
  }
  XErrorRecord rec;
  if (TakeError(dpy_, &rec)) {
    throw CodedError(env, "X11_PROTOCOL", "X error: " + DescribeError(dpy_, rec));
  }
}

bool XRootProperty::Fetch(std::string* out) {
  out->clear();
  long offset = 0;
  for (;;) {
    Atom type = None;
    int format = 0;
    unsigned long n = 0, after = 0;
    unsigned char* data = nullptr;
    int st = XGetWindowProperty(dpy_, root_, atom_, offset, kChunkLongs, False, AnyPropertyType,
                                &type, &format, &n, &after, &data);
    bool ok = st == Success && type != None && format == 8;
    if (ok && data) out->append(reinterpret_cast<const char*>(data), n);
    if (data) XFree(data);
    if (!ok) return false;
    if (after == 0) return true;
    offset += static_cast<long>(n / 4);
  }
}

Napi::Value XRootProperty::Read(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Begin(env);
  std::string bytes;
  bool present = Fetch(&bytes);
  Check(env);
  if (!present) return env.Null();
  return Napi::Buffer<char>::Copy(env, bytes.data(), bytes.size());
}

Napi::Value XRootProperty::Update(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsFunction()) {
    throw Napi::TypeError::New(env, "update(fn): fn must be a function, got " + Describe(info[0]));
  }
  if (updating_) {
    throw CodedError(env, "X11_BUSY", "RootProperty.update() inside its own update()");
  }
  Napi::Function fn = info[0].As<Napi::Function>();
  Begin(env);
  bool changed = false;
  updating_ = true;
  try {
    // Read, decide and write with every other client held off: two processes updating
    // at once never lose each other's changes.
    ServerGrab grab(dpy_, dead_);
    std::string bytes;
    bool present = Fetch(&bytes);
    Check(env);
    Napi::Value current =
        present ? Napi::Buffer<char>::Copy(env, bytes.data(), bytes.size()).As<Napi::Value>()
                : env.Null().As<Napi::Value>();
    Napi::Value next = fn.Call({current});
    if (next.IsNull()) {
      XDeleteProperty(dpy_, root_, atom_);
      changed = present;
    } else if (next.IsBuffer()) {
      Napi::Buffer<char> buf = next.As<Napi::Buffer<char>>();
      long limit = XExtendedMaxRequestSize(dpy_);
      if (limit == 0) limit = XMaxRequestSize(dpy_);
      // The request's header takes 24 bytes; Xlib sends a longer one anyway and the server
      // answers BadLength, so refuse it here with the sizes.
      size_t most = static_cast<size_t>(limit) * 4 - 24;
      if (buf.Length() > most) {
        throw CodedError(env, "X11_TOO_LARGE",
                         "property " + property_ + " would take " +
                             std::to_string(buf.Length()) + " bytes; the X server takes at most " +
                             std::to_string(most) + " in one request");
      }
      XChangeProperty(dpy_, root_, atom_, utf8_, 8, PropModeReplace,
                      reinterpret_cast<const unsigned char*>(buf.Data()),
                      static_cast<int>(buf.Length()));
      changed = true;
    } else if (!next.IsUndefined()) {
      throw Napi::TypeError::New(
          env, "update(fn): fn must return a Buffer, null (delete) or undefined (keep), got " +
                   Describe(next));
    }
  } catch (...) {
    updating_ = false;
    throw;
  }
  updating_ = false;
  Check(env);
  return Napi::Boolean::New(env, changed);
}

}  // namespace axpage
