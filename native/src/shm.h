// One MIT-SHM segment attached to one X connection, grown as captures need it. Shared by
// the Display class (captures on the JS thread) and the Capturer (on a worker thread):
// each owns its own segment for its own connection.
#pragma once

// napi.h first, by whoever includes this: Xlib defines macros napi.h must not see.
#include <X11/Xlib.h>
#include <X11/extensions/XShm.h>

#include <X11/Xutil.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace axpage {

class ShmSegment {
 public:
  // A segment of at least `bytes` attached to `dpy` (the current one when big enough);
  // false when the server cannot attach it (remote display, another IPC namespace) or the
  // connection dropped meanwhile (the caller tells which by its own `dead` flag).
  template <typename DeadFlag>
  bool Ensure(Display* dpy, size_t bytes, const DeadFlag& dead) {
    if (attached_ && capacity_ >= bytes) return true;
    Release(dpy, dead);
    return Attach(dpy, bytes) && !dead;
  }

  // Detaches it: from the server too unless the connection is dead (the server side went
  // away with it), then from this process.
  void Release(Display* dpy, bool dead);

  enum class Grab { kOk, kNoSegment, kFailed };

  // Copies the w×h region at (x, y) of the root window into RGB at `out` through this
  // segment (attached as needed). kNoSegment: no segment could be attached (the caller
  // checks its connection first: an IO error is not "no SHM"); kFailed: the server
  // refused the grab (its X error is left for the caller to take).
  template <typename DeadFlag>
  Grab GrabRoot(Display* dpy, int screen, Window root, int x, int y, int w, int h,
                uint8_t* out, const DeadFlag& dead) {
    XImage* img = XShmCreateImage(dpy, DefaultVisual(dpy, screen), DefaultDepth(dpy, screen),
                                  ZPixmap, nullptr, &shm_, w, h);
    if (!img) return Grab::kFailed;
    size_t bytes = static_cast<size_t>(img->bytes_per_line) * h;
    if (!Ensure(dpy, bytes, dead)) {
      XDestroyImage(img);
      return Grab::kNoSegment;
    }
    bool ok = ReadInto(dpy, root, img, x, y, out);
    return ok ? Grab::kOk : Grab::kFailed;
  }

  XShmSegmentInfo* info() { return &shm_; }
  char* addr() const { return shm_.shmaddr; }
  bool attached() const { return attached_; }

 private:
  bool Attach(Display* dpy, size_t bytes);
  // XShmGetImage into the segment, converted to RGB; destroys `img` either way.
  bool ReadInto(Display* dpy, Window root, XImage* img, int x, int y, uint8_t* out);

  XShmSegmentInfo shm_{};
  bool attached_ = false;
  size_t capacity_ = 0;
};

}  // namespace axpage
