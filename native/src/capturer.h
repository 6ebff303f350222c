// The Capturer class: screen capture off the JS thread. It owns an X connection (and an
// MIT-SHM segment) of its own, used only by one worker thread at a time, so a capture can
// run while the JS thread walks an app: Xlib must never see one Display used from two
// threads at once, and the Display class is used from the JS thread.
#pragma once

// napi.h first: Xlib defines macros (Status, Bool, None, True, False) it must not see.
#include <napi.h>

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>

#include "shm.h"
#include "stacked.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace axpage {

class XCapturer : public Napi::ObjectWrap<XCapturer> {
 public:
  static Napi::Function Init(Napi::Env env);
  explicit XCapturer(const Napi::CallbackInfo& info);
  ~XCapturer() override;

  // One capture's outcome, filled on the worker thread (no JS values there).
  struct Grab {
    int x = 0, y = 0, w = 0, h = 0;
    std::unique_ptr<uint8_t[]> data;
    std::string method;
    // Set on failure: an error code for JS ("" for a RangeError) and its message.
    bool failed = false;
    bool range = false;
    std::string code;
    std::string message;
  };

  // Runs on a worker thread: reads the region into *out under the connection's lock.
  void Capture(long long x, long long y, long long w, long long h, const std::string& method,
               Grab* out);
  // Runs on a worker thread: the region and the window stack it shows, in one server grab.
  void CaptureStacked(long long x, long long y, long long w, long long h, StackedShot* out);
  // Runs on a worker thread: a pointer action sent only where an allowed process is on top.
  void Guarded(const GuardedPointer& in, GuardOutcome* out);

 private:
  static void OnIOExit(Display* dpy, void* self);

  Napi::Value Name(const Napi::CallbackInfo& info);
  Napi::Value Usable(const Napi::CallbackInfo& info);
  Napi::Value Extensions(const Napi::CallbackInfo& info);
  Napi::Value CaptureJs(const Napi::CallbackInfo& info);
  Napi::Value CaptureStackedJs(const Napi::CallbackInfo& info);
  Napi::Value PointerGuardedJs(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);

  // Each under mu_.
  bool CaptureShm(int x, int y, int w, int h, uint8_t* out, Grab* err);
  bool CaptureGetImage(int x, int y, int w, int h, uint8_t* out, Grab* err);
  void Shutdown();
  // The connection that lists the stack in one grab, opened on first use; null (with *out
  // failed) once this Capturer is closed. Under mu_.
  template <class Outcome>
  StackedReader* Stacked(Outcome* out);
  // The X error recorded since the last clear, into *out; false when there was none.
  bool Failed(Grab* out);

  std::mutex mu_;
  Display* dpy_ = nullptr;
  // Readable without the lock (a capture may hold it): set once the connection is open.
  std::atomic<bool> open_{false};
  std::atomic<bool> dead_{false};
  std::string name_;
  int screen_ = 0;
  Window root_ = 0;
  bool hasShm_ = false;
  std::atomic<bool> shmBroken_{false};
  ShmSegment shm_;
  // Opened on the first stacked capture: most sessions (no deny list) never take one.
  std::unique_ptr<StackedReader> stacked_;
};

}  // namespace axpage
