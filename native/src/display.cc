#include "display.h"

#include <X11/XKBlib.h>
#include <X11/extensions/XTest.h>

#include <climits>
#include <cstring>

#include "args.h"
#include "capture-args.h"
#include "pixels.h"
#include "xerrors.h"

namespace axpage {

Napi::Function XDisplay::Init(Napi::Env env) {
  return DefineClass(
      env, "Display",
      {
          InstanceAccessor<&XDisplay::Name>("name"),
          InstanceAccessor<&XDisplay::Usable>("usable"),
          InstanceAccessor<&XDisplay::Extensions>("extensions"),
          InstanceMethod<&XDisplay::Close>("close"),
          InstanceMethod<&XDisplay::ScreenSize>("screenSize"),
          InstanceMethod<&XDisplay::Capture>("capture"),
          InstanceMethod<&XDisplay::MouseMove>("mouseMove"),
          InstanceMethod<&XDisplay::MouseButton>("mouseButton"),
          InstanceMethod<&XDisplay::NoteButton>("noteButton"),
          InstanceMethod<&XDisplay::Pointer>("pointer"),
          InstanceMethod<&XDisplay::Key>("key"),
          InstanceMethod<&XDisplay::SendKeyCode>("keyCode"),
          InstanceMethod<&XDisplay::KeyCombo>("keyCombo"),
          InstanceMethod<&XDisplay::TypeText>("typeText"),
          InstanceMethod<&XDisplay::RestoreKeymap>("restoreKeymap"),
          InstanceMethod<&XDisplay::RecoverKeymap>("recoverKeymap"),
          InstanceMethod<&XDisplay::ReleaseHeld>("releaseHeld"),
          InstanceMethod<&XDisplay::RecoverInput>("recoverInput"),
          InstanceAccessor<&XDisplay::ReleasedAtOpen>("releasedAtOpen"),
          InstanceMethod<&XDisplay::ActiveWindow>("activeWindow"),
          InstanceMethod<&XDisplay::FocusWindow>("inputFocus"),
          InstanceMethod<&XDisplay::ListWindows>("listWindows"),
          InstanceMethod<&XDisplay::ListWindowsAsync>("listWindowsAsync"),
          InstanceMethod<&XDisplay::WindowInfo>("windowInfo"),
          InstanceMethod<&XDisplay::EmbeddedWindows>("embeddedWindows"),
          InstanceMethod<&XDisplay::PopupWindows>("popupWindows"),
          InstanceMethod<&XDisplay::SelectionOwner>("selectionOwner"),
          InstanceMethod<&XDisplay::ActivateWindow>("activateWindow"),
          InstanceMethod<&XDisplay::CloseWindow>("closeWindow"),
          InstanceMethod<&XDisplay::WindowManager>("windowManager"),
      });
}

Display* OpenNamedDisplay(const Napi::CallbackInfo& info, const char* cls, std::string* name) {
  Napi::Env env = info.Env();
  InstallErrorHandlers();
  const char* requested = nullptr;
  std::string arg;
  if (info.Length() > 0 && !info[0].IsUndefined() && !info[0].IsNull()) {
    if (!info[0].IsString()) {
      throw Napi::TypeError::New(env, std::string(cls) +
                                          "(name): name must be a string like ':91', got " +
                                          Describe(info[0]));
    }
    arg = info[0].As<Napi::String>().Utf8Value();
    requested = arg.c_str();
  }
  const char* shown = requested ? requested : XDisplayName(nullptr);
  *name = shown ? shown : "";
  Display* dpy = XOpenDisplay(requested);
  if (!dpy) {
    throw CodedError(env, "X11_OPEN_FAILED",
                     "cannot open X display '" + *name +
                         "': is the X server running, and is the name (or DISPLAY) right?");
  }
  TrackDisplay(dpy);
  return dpy;
}

XDisplay::XDisplay(const Napi::CallbackInfo& info) : Napi::ObjectWrap<XDisplay>(info) {
  Napi::Env env = info.Env();
  dpy_ = OpenNamedDisplay(info, "Display", &name_);
  XSetIOErrorExitHandler(dpy_, &XDisplay::OnIOExit, this);
  screen_ = DefaultScreen(dpy_);
  root_ = RootWindow(dpy_, screen_);
  hasShm_ = XShmQueryExtension(dpy_) == True;
  int evBase, errBase, major, minor;
  hasXTest_ = XTestQueryExtension(dpy_, &evBase, &errBase, &major, &minor) == True;
  int xkbOpcode, xkbEvent, xkbError, xkbMajor = XkbMajorVersion, xkbMinor = XkbMinorVersion;
  hasXkb_ = XkbQueryExtension(dpy_, &xkbOpcode, &xkbEvent, &xkbError, &xkbMajor, &xkbMinor) == True;
  // Keep XTest events flowing even if another client grabs the server.
  if (hasXTest_) XTestGrabControl(dpy_, True);
  InternAtoms();
  batch_ = std::make_unique<WindowBatch>(DisplayString(dpy_));
  XSetWindowAttributes wa{};
  wa.event_mask = PropertyChangeMask;
  helper_ = XCreateWindow(dpy_, root_, -10, -10, 1, 1, 0, CopyFromParent, InputOnly,
                          CopyFromParent, CWEventMask, &wa);
  XSync(dpy_, False);
  // Spares a killed process left remapped would fill the keymap for good; keys it left
  // held would repeat into the focused window for good.
  if (!dead_ && hasXTest_) RecoverJournal();
  if (!dead_ && hasXTest_) releasedAtOpen_ = RecoverHeld();
  XErrorRecord rec;
  if (dead_ || TakeError(dpy_, &rec)) {
    std::string why = dead_ ? "the connection dropped" : DescribeError(dpy_, rec);
    Shutdown();
    throw CodedError(env, "X11_OPEN_FAILED", "X display '" + name_ + "' failed to set up: " + why);
  }
}

XDisplay::~XDisplay() { Shutdown(); }

void XDisplay::OnIOExit(Display*, void* self) {
  // Returning (instead of exiting, as Xlib's default does) makes the pending Xlib call
  // return a failure; the Call guard then throws and the display stays unusable.
  static_cast<XDisplay*>(self)->dead_ = true;
}

void XDisplay::Shutdown() {
  if (batch_) batch_->Shutdown();
  if (!dpy_) return;
  if (!dead_) {
    ReleaseOwnHeld();
    RestoreSpares(nullptr);
    shm_.Release(dpy_, false);
    if (helper_) XDestroyWindow(dpy_, helper_);
    XSync(dpy_, False);
  } else {
    shm_.Release(dpy_, true);  // the server side went away with the connection
  }
  helper_ = 0;
  // XCloseDisplay on a dead connection only runs into the (returning) IO handlers again
  // and then frees the structure and the socket.
  XCloseDisplay(dpy_);
  UntrackDisplay(dpy_);
  dpy_ = nullptr;
}

XDisplay::Call::Call(XDisplay* d, const Napi::CallbackInfo& info) : Call(d, info.Env()) {}

XDisplay::Call::Call(XDisplay* d, Napi::Env env) : d_(d), env_(env) {
  if (!d->dpy_) {
    throw CodedError(env_, "X11_CLOSED", "X display '" + d->name_ + "' is closed");
  }
  if (!d->dead_) {
    // Events reach us only unsolicited (MappingNotify after keymap changes) or on the
    // helper window; drop them so the queue never grows.
    while (!d->dead_ && XPending(d->dpy_) > 0) {
      XEvent ev;
      XNextEvent(d->dpy_, &ev);
      if (ev.type == MappingNotify) XRefreshKeyboardMapping(&ev.xmapping);
    }
  }
  Check();
  ClearErrors(d->dpy_);
}

void XDisplay::Call::Check() {
  if (d_->dead_) {
    throw CodedError(env_, "X11_CONNECTION_LOST",
                     "lost the connection to X display '" + d_->name_ +
                         "' (the X server went away); this Display is unusable, open a new one");
  }
  XErrorRecord rec;
  if (TakeError(d_->dpy_, &rec)) {
    Napi::Error e = CodedError(env_, "X11_PROTOCOL", "X error: " + DescribeError(d_->dpy_, rec));
    e.Set("errorCode", Napi::Number::New(env_, rec.errorCode));
    e.Set("requestCode", Napi::Number::New(env_, rec.requestCode));
    e.Set("resourceId", Napi::Number::New(env_, static_cast<double>(rec.resourceId)));
    throw e;
  }
}

void XDisplay::Call::Sync() {
  if (!d_->dead_) XSync(d_->dpy_, False);
  Check();
}

Napi::Value XDisplay::Name(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), name_);
}

Napi::Value XDisplay::Usable(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), dpy_ != nullptr && !dead_);
}

Napi::Value XDisplay::Extensions(const Napi::CallbackInfo& info) {
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("shm", Napi::Boolean::New(info.Env(), hasShm_ && !shmBroken_));
  o.Set("xtest", Napi::Boolean::New(info.Env(), hasXTest_));
  return o;
}

Napi::Value XDisplay::Close(const Napi::CallbackInfo& info) {
  Shutdown();
  return info.Env().Undefined();
}

Napi::Value XDisplay::ScreenSize(const Napi::CallbackInfo& info) {
  Call c(this, info);
  XWindowAttributes ra;
  // Asked fresh each time: RANDR can resize the screen under us.
  if (!XGetWindowAttributes(dpy_, root_, &ra)) c.Check();
  c.Check();
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("w", Napi::Number::New(info.Env(), ra.width));
  o.Set("h", Napi::Number::New(info.Env(), ra.height));
  return o;
}

// ---- capture --------------------------------------------------------------------------

namespace {

int MaskShift(unsigned long mask) {
  int s = 0;
  while (mask && !(mask & 1)) {
    mask >>= 1;
    s++;
  }
  return s;
}

int MaskBits(unsigned long mask) {
  int n = 0;
  for (; mask; mask >>= 1) n += mask & 1;
  return n;
}

uint8_t Scale(unsigned long pixel, unsigned long mask) {
  int bits = MaskBits(mask);
  if (bits == 0) return 0;
  unsigned long v = (pixel & mask) >> MaskShift(mask);
  return static_cast<uint8_t>(bits >= 8 ? v >> (bits - 8) : (v * 255) / ((1UL << bits) - 1));
}

}  // namespace

void ConvertImage(XImage* img, uint8_t* out) {
  PixelLayout layout;
  if (LayoutFromMasks(img->bits_per_pixel, img->byte_order == MSBFirst, img->red_mask,
                      img->green_mask, img->blue_mask, &layout)) {
    ConvertToRgb(reinterpret_cast<const uint8_t*>(img->data), img->bytes_per_line, layout, 0, 0,
                 img->width, img->height, out);
    return;
  }
  // Unusual visuals (16 bpp and the like): correct but slow, pixel by pixel.
  for (int y = 0; y < img->height; y++) {
    for (int x = 0; x < img->width; x++, out += 3) {
      unsigned long p = XGetPixel(img, x, y);
      out[0] = Scale(p, img->red_mask);
      out[1] = Scale(p, img->green_mask);
      out[2] = Scale(p, img->blue_mask);
    }
  }
}

bool XDisplay::CaptureShm(Call& c, int x, int y, int w, int h, uint8_t* out) {
  ShmSegment::Grab got = shm_.GrabRoot(dpy_, screen_, root_, x, y, w, h, out, dead_);
  c.Check();  // an IO error while attaching must not be mistaken for "no SHM"
  if (got == ShmSegment::Grab::kNoSegment) shmBroken_ = true;
  return got == ShmSegment::Grab::kOk;
}

void XDisplay::CaptureGetImage(Call& c, int x, int y, int w, int h, uint8_t* out) {
  XImage* img = XGetImage(dpy_, root_, x, y, w, h, AllPlanes, ZPixmap);
  if (!img) {
    c.Check();
    throw CodedError(c.env(), "X11_CAPTURE_FAILED", "XGetImage returned no image");
  }
  ConvertImage(img, out);
  XDestroyImage(img);
}

Napi::Value XDisplay::Capture(const Napi::CallbackInfo& info) {
  Call c(this, info);
  Napi::Env env = info.Env();
  const char* fn = "capture(x, y, w, h)";
  CaptureRect want = RectArgs(info, 0, fn);
  std::string method = MethodArg(info, 4, fn);
  XWindowAttributes ra;
  if (!XGetWindowAttributes(dpy_, root_, &ra)) c.Check();
  c.Check();
  ClippedRect r;
  if (!ClipToBounds(want.x, want.y, want.w, want.h, ra.width, ra.height, &r)) {
    throw Napi::RangeError::New(env,
                                OutsideMessage("capture", want, ra.width, ra.height, "screen"));
  }
  Napi::Buffer<uint8_t> data =
      Napi::Buffer<uint8_t>::New(env, static_cast<size_t>(r.w) * static_cast<size_t>(r.h) * 3);
  std::string used;
  if (method != "getimage") {
    if (hasShm_ && !shmBroken_ && CaptureShm(c, r.x, r.y, r.w, r.h, data.Data())) {
      used = "shm";
    } else if (method == "shm") {
      throw CodedError(env, "X11_NO_SHM", NoShmMessage(hasShm_));
    }
  }
  if (used.empty()) {
    CaptureGetImage(c, r.x, r.y, r.w, r.h, data.Data());
    used = "getimage";
  }
  c.Check();
  Napi::Object o = Napi::Object::New(env);
  o.Set("x", Napi::Number::New(env, r.x));
  o.Set("y", Napi::Number::New(env, r.y));
  o.Set("width", Napi::Number::New(env, r.w));
  o.Set("height", Napi::Number::New(env, r.h));
  o.Set("data", data);
  o.Set("method", Napi::String::New(env, used));
  return o;
}

// ---- mouse ----------------------------------------------------------------------------

Napi::Value XDisplay::MouseMove(const Napi::CallbackInfo& info) {
  Call c(this, info);
  RequireXTest(c);
  const char* fn = "mouseMove(x, y)";
  int x = static_cast<int>(IntArg(info, 0, fn, "x", -32768, 32767));
  int y = static_cast<int>(IntArg(info, 1, fn, "y", -32768, 32767));
  XTestFakeMotionEvent(dpy_, screen_, x, y, CurrentTime);
  c.Sync();
  return info.Env().Undefined();
}

Napi::Value XDisplay::MouseButton(const Napi::CallbackInfo& info) {
  Call c(this, info);
  RequireXTest(c);
  const char* fn = "mouseButton(button, down)";
  // 1-3 left/middle/right, 4/5 wheel up/down, 6/7 wheel left/right, 8/9 back/forward.
  unsigned button = static_cast<unsigned>(IntArg(info, 0, fn, "button", 1, 9));
  bool down = BoolArg(info, 1, fn, "down");
  Held h{kHeldButton, static_cast<long>(button)};
  if (down) HoldBegin({h});
  XTestFakeButtonEvent(dpy_, button, down ? True : False, CurrentTime);
  if (!down) HoldEnd({h});
  c.Sync();
  return info.Env().Undefined();
}

Napi::Value XDisplay::NoteButton(const Napi::CallbackInfo& info) {
  Call c(this, info);
  const char* fn = "noteButton(button, down)";
  unsigned button = static_cast<unsigned>(IntArg(info, 0, fn, "button", 1, 9));
  bool down = BoolArg(info, 1, fn, "down");
  Held h{kHeldButton, static_cast<long>(button)};
  if (down) {
    HoldBegin({h});
  } else {
    HoldEnd({h});
  }
  // In the journal before the press another connection sends next.
  c.Sync();
  return info.Env().Undefined();
}

Napi::Value XDisplay::Pointer(const Napi::CallbackInfo& info) {
  Call c(this, info);
  Window rootRet, child;
  int rx, ry, wx, wy;
  unsigned mask;
  if (!XQueryPointer(dpy_, root_, &rootRet, &child, &rx, &ry, &wx, &wy, &mask)) c.Check();
  c.Check();
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("x", Napi::Number::New(info.Env(), rx));
  o.Set("y", Napi::Number::New(info.Env(), ry));
  o.Set("buttons", Napi::Number::New(info.Env(), (mask >> 8) & 0x1f));
  return o;
}

void XDisplay::RequireXTest(Call& c) {
  if (!hasXTest_) {
    throw CodedError(c.env(), "X11_NO_XTEST",
                     "X display '" + name_ +
                         "' has no XTEST extension: input cannot be injected (start Xvfb with "
                         "+extension XTEST)");
  }
}

}  // namespace axpage
