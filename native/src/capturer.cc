#include "capturer.h"

#include <climits>
#include <functional>
#include <new>

#include "args.h"
#include "capture-args.h"
#include "display.h"
#include "pixels.h"
#include "xerrors.h"

namespace axpage {
namespace {

// The error a failed capture rejects with.
template <class Shot>
Napi::Error ErrorOf(Napi::Env env, const Shot& s) {
  return s.range ? Napi::RangeError::New(env, s.message)
                 : CodedError(env, s.code.c_str(), s.message);
}

// A capture's pixels as JS gets them. The pixels become the Buffer's own memory: no copy of
// a whole frame on the JS thread.
template <class Shot>
Napi::Object ImageOf(Napi::Env env, Shot& s, const std::string& method) {
  size_t bytes = static_cast<size_t>(s.w) * static_cast<size_t>(s.h) * 3;
  uint8_t* pixels = s.data.release();
  Napi::Object o = Napi::Object::New(env);
  o.Set("x", Napi::Number::New(env, s.x));
  o.Set("y", Napi::Number::New(env, s.y));
  o.Set("width", Napi::Number::New(env, s.w));
  o.Set("height", Napi::Number::New(env, s.h));
  o.Set("data", Napi::Buffer<uint8_t>::New(env, pixels, bytes,
                                           [](Napi::Env, uint8_t* p) { delete[] p; }));
  o.Set("method", Napi::String::New(env, method));
  return o;
}

// Runs one call's work on a worker thread and settles its promise: rejected with the
// outcome's error when it failed, else resolved with what `value` makes of it. Holds the
// Capturer alive meanwhile.
template <class Outcome>
class PromiseWorker : public Napi::AsyncWorker {
 public:
  using Run = std::function<void(Outcome*)>;
  using Value = std::function<Napi::Value(Napi::Env, Outcome&)>;

  // Queues the work; the promise it settles.
  static Napi::Promise Start(Napi::Env env, const char* name, Napi::Object self, Run run,
                             Value value) {
    auto* worker = new PromiseWorker(env, name, self, std::move(run), std::move(value));
    Napi::Promise promise = worker->deferred_.Promise();
    worker->Queue();
    return promise;
  }

  void Execute() override { run_(&out_); }

  void OnOK() override {
    Napi::Env env = Env();
    if (out_.failed) {
      deferred_.Reject(ErrorOf(env, out_).Value());
      return;
    }
    deferred_.Resolve(value_(env, out_));
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  PromiseWorker(Napi::Env env, const char* name, Napi::Object self, Run run, Value value)
      : Napi::AsyncWorker(env, name),
        deferred_(Napi::Promise::Deferred::New(env)),
        run_(std::move(run)),
        value_(std::move(value)) {
    self_ = Napi::Persistent(self);
  }

  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference self_;
  Run run_;
  Value value_;
  Outcome out_;
};

Napi::Array List(Napi::Env env, const std::vector<StackedWindow>& list) {
  Napi::Array out = Napi::Array::New(env, list.size());
  for (size_t i = 0; i < list.size(); i++) {
    const StackedWindow& s = list[i];
    Napi::Object w = Napi::Object::New(env);
    w.Set("x", Napi::Number::New(env, s.x));
    w.Set("y", Napi::Number::New(env, s.y));
    w.Set("w", Napi::Number::New(env, s.w));
    w.Set("h", Napi::Number::New(env, s.h));
    w.Set("pid", s.hasPid ? Napi::Number::New(env, s.pid).As<Napi::Value>()
                          : env.Null().As<Napi::Value>());
    out.Set(static_cast<uint32_t>(i), w);
  }
  return out;
}

void Fail(XCapturer::Grab* out, const char* code, const std::string& message) {
  out->failed = true;
  out->code = code;
  out->message = message;
}

}  // namespace

Napi::Function XCapturer::Init(Napi::Env env) {
  return DefineClass(env, "Capturer",
                     {
                         InstanceAccessor<&XCapturer::Name>("name"),
                         InstanceAccessor<&XCapturer::Usable>("usable"),
                         InstanceAccessor<&XCapturer::Extensions>("extensions"),
                         InstanceMethod<&XCapturer::CaptureJs>("capture"),
                         InstanceMethod<&XCapturer::CaptureStackedJs>("captureStacked"),
                         InstanceMethod<&XCapturer::PointerGuardedJs>("pointerGuarded"),
                         InstanceMethod<&XCapturer::Close>("close"),
                     });
}

XCapturer::XCapturer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<XCapturer>(info) {
  Napi::Env env = info.Env();
  dpy_ = OpenNamedDisplay(info, "Capturer", &name_);
  XSetIOErrorExitHandler(dpy_, &XCapturer::OnIOExit, this);
  screen_ = DefaultScreen(dpy_);
  root_ = RootWindow(dpy_, screen_);
  hasShm_ = XShmQueryExtension(dpy_) == True;
  XSync(dpy_, False);
  XErrorRecord rec;
  if (dead_ || TakeError(dpy_, &rec)) {
    std::string why = dead_ ? "the connection dropped" : DescribeError(dpy_, rec);
    Shutdown();
    throw CodedError(env, "X11_OPEN_FAILED", "X display '" + name_ + "' failed to set up: " + why);
  }
  open_ = true;
}

XCapturer::~XCapturer() {
  std::lock_guard<std::mutex> lock(mu_);
  Shutdown();
}

void XCapturer::OnIOExit(Display*, void* self) {
  // Returning (instead of exiting, as Xlib's default does) makes the pending Xlib call
  // return a failure; the capture then reports the lost connection.
  static_cast<XCapturer*>(self)->dead_ = true;
}

void XCapturer::Shutdown() {
  open_ = false;
  stacked_.reset();
  if (!dpy_) return;
  shm_.Release(dpy_, dead_);
  if (!dead_) XSync(dpy_, False);
  XCloseDisplay(dpy_);
  UntrackDisplay(dpy_);
  dpy_ = nullptr;
}

Napi::Value XCapturer::Name(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), name_);
}

Napi::Value XCapturer::Usable(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), open_ && !dead_);
}

Napi::Value XCapturer::Extensions(const Napi::CallbackInfo& info) {
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("shm", Napi::Boolean::New(info.Env(), hasShm_ && !shmBroken_));
  return o;
}

Napi::Value XCapturer::Close(const Napi::CallbackInfo& info) {
  // Waits for a capture in progress; those still queued then find the connection closed.
  std::lock_guard<std::mutex> lock(mu_);
  Shutdown();
  return info.Env().Undefined();
}

Napi::Value XCapturer::CaptureJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* fn = "capture(x, y, w, h)";
  CaptureRect r = RectArgs(info, 0, fn);
  std::string method = MethodArg(info, 4, fn);
  return PromiseWorker<Grab>::Start(
      env, "axpage.capture", info.This().As<Napi::Object>(),
      [this, r, method](Grab* out) { Capture(r.x, r.y, r.w, r.h, method, out); },
      [](Napi::Env env, Grab& grab) -> Napi::Value { return ImageOf(env, grab, grab.method); });
}

Napi::Value XCapturer::CaptureStackedJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CaptureRect r = RectArgs(info, 0, "captureStacked(x, y, w, h)");
  return PromiseWorker<StackedShot>::Start(
      env, "axpage.captureStacked", info.This().As<Napi::Object>(),
      [this, r](StackedShot* out) { CaptureStacked(r.x, r.y, r.w, r.h, out); },
      [](Napi::Env env, StackedShot& shot) -> Napi::Value {
        Napi::Object o = ImageOf(env, shot, "getimage");
        o.Set("earlier", List(env, shot.earlier));
        o.Set("windows", List(env, shot.windows));
        return o;
      });
}

Napi::Value XCapturer::PointerGuardedJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* fn = "pointerGuarded(x, y, button, phase, taps, allowed, elseX, elseY)";
  GuardedPointer in;
  in.x = static_cast<int>(IntArg(info, 0, fn, "x", -32768, 32767));
  in.y = static_cast<int>(IntArg(info, 1, fn, "y", -32768, 32767));
  in.button = static_cast<int>(IntArg(info, 2, fn, "button", 1, 9));
  if (!info[3].IsString()) {
    throw Napi::TypeError::New(env, std::string(fn) + ": phase must be 'click', 'press' or 'release'");
  }
  std::string phase = info[3].As<Napi::String>().Utf8Value();
  if (phase != "click" && phase != "press" && phase != "release") {
    throw Napi::TypeError::New(env, std::string(fn) + ": phase must be 'click', 'press' or 'release', got '" + phase + "'");
  }
  in.phase = phase[0] == 'c' ? 'c' : phase[0] == 'p' ? 'p' : 'r';
  in.taps = static_cast<int>(IntArg(info, 4, fn, "taps", 1, 1000));
  if (!info[5].IsArray()) throw Napi::TypeError::New(env, std::string(fn) + ": allowed must be an array of pids");
  Napi::Array allowed = info[5].As<Napi::Array>();
  for (uint32_t i = 0; i < allowed.Length(); i++) {
    Napi::Value v = allowed.Get(i);
    if (!v.IsNumber()) throw Napi::TypeError::New(env, std::string(fn) + ": allowed must be an array of pids");
    in.allowed.push_back(v.As<Napi::Number>().Uint32Value());
  }
  in.elseX = static_cast<int>(IntArg(info, 6, fn, "elseX", -32768, 32767));
  in.elseY = static_cast<int>(IntArg(info, 7, fn, "elseY", -32768, 32767));
  return PromiseWorker<GuardOutcome>::Start(
      env, "axpage.pointerGuarded", info.This().As<Napi::Object>(),
      [this, in = std::move(in)](GuardOutcome* out) { Guarded(in, out); },
      [](Napi::Env env, GuardOutcome& out) -> Napi::Value {
        Napi::Object o = Napi::Object::New(env);
        o.Set("sent", Napi::Boolean::New(env, out.sent));
        o.Set("pid", out.hasPid ? Napi::Number::New(env, out.pid).As<Napi::Value>()
                                : env.Null().As<Napi::Value>());
        o.Set("late", out.late ? Napi::Number::New(env, out.latePid).As<Napi::Value>()
                               : env.Null().As<Napi::Value>());
        return o;
      });
}

void XCapturer::Guarded(const GuardedPointer& in, GuardOutcome* out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (StackedReader* reader = Stacked(out)) reader->Guarded(in, out);
}

void XCapturer::CaptureStacked(long long x, long long y, long long w, long long h,
                               StackedShot* out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (StackedReader* reader = Stacked(out)) reader->Capture(x, y, w, h, out);
}

template <class Outcome>
StackedReader* XCapturer::Stacked(Outcome* out) {
  if (!dpy_) {
    out->failed = true;
    out->code = "X11_CLOSED";
    out->message = "X display '" + name_ + "' is closed (Capturer)";
    return nullptr;
  }
  if (!stacked_) stacked_ = std::make_unique<StackedReader>(name_);
  return stacked_.get();
}

bool XCapturer::Failed(Grab* out) {
  if (dead_) {
    Fail(out, "X11_CONNECTION_LOST",
         "lost the connection to X display '" + name_ +
             "' (the X server went away); this Capturer is unusable, open a new one");
    return true;
  }
  XErrorRecord rec;
  if (!TakeError(dpy_, &rec)) return false;
  Fail(out, "X11_PROTOCOL", "X error: " + DescribeError(dpy_, rec));
  return true;
}

void XCapturer::Capture(long long x, long long y, long long w, long long h,
                        const std::string& method, Grab* out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!dpy_) {
    Fail(out, "X11_CLOSED", "X display '" + name_ + "' is closed (Capturer)");
    return;
  }
  // Nothing asks for events on this connection; drop any (MappingNotify) so none pile up.
  while (!dead_ && XPending(dpy_) > 0) {
    XEvent ev;
    XNextEvent(dpy_, &ev);
  }
  if (Failed(out)) return;
  ClearErrors(dpy_);
  XWindowAttributes ra;
  // Asked fresh each time: RANDR can resize the screen under us.
  if (!XGetWindowAttributes(dpy_, root_, &ra) || Failed(out)) {
    if (!out->failed) Fail(out, "X11_CAPTURE_FAILED", "cannot read the root window's size");
    return;
  }
  ClippedRect r;
  if (!ClipToBounds(x, y, w, h, ra.width, ra.height, &r)) {
    out->failed = true;
    out->range = true;
    out->message = OutsideMessage("capture", {x, y, w, h}, ra.width, ra.height, "screen");
    return;
  }
  size_t bytes = static_cast<size_t>(r.w) * static_cast<size_t>(r.h) * 3;
  std::unique_ptr<uint8_t[]> data(new (std::nothrow) uint8_t[bytes]);
  if (!data) {
    Fail(out, "X11_CAPTURE_FAILED", "no memory for a " + std::to_string(r.w) + "x" +
                                        std::to_string(r.h) + " capture");
    return;
  }
  std::string used;
  if (method != "getimage") {
    if (hasShm_ && !shmBroken_ && CaptureShm(r.x, r.y, r.w, r.h, data.get(), out)) {
      used = "shm";
    } else if (out->failed) {
      return;
    } else if (method == "shm") {
      Fail(out, "X11_NO_SHM", NoShmMessage(hasShm_));
      return;
    }
  }
  if (used.empty()) {
    if (!CaptureGetImage(r.x, r.y, r.w, r.h, data.get(), out)) return;
    used = "getimage";
  }
  if (Failed(out)) return;
  out->x = r.x;
  out->y = r.y;
  out->w = r.w;
  out->h = r.h;
  out->data = std::move(data);
  out->method = used;
}

bool XCapturer::CaptureShm(int x, int y, int w, int h, uint8_t* out, Grab* err) {
  ShmSegment::Grab got = shm_.GrabRoot(dpy_, screen_, root_, x, y, w, h, out, dead_);
  // An IO error while attaching must not be mistaken for "no SHM".
  if (got == ShmSegment::Grab::kNoSegment && !Failed(err)) shmBroken_ = true;
  if (dead_) Failed(err);
  return got == ShmSegment::Grab::kOk && !dead_;
}

bool XCapturer::CaptureGetImage(int x, int y, int w, int h, uint8_t* out, Grab* err) {
  XImage* img = XGetImage(dpy_, root_, x, y, w, h, AllPlanes, ZPixmap);
  if (!img) {
    if (!Failed(err)) Fail(err, "X11_CAPTURE_FAILED", "XGetImage returned no image");
    return false;
  }
  ConvertImage(img, out);
  XDestroyImage(img);
  return true;
}

}  // namespace axpage
