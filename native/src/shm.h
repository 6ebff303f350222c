// One MIT-SHM segment attached to one X connection, grown as captures need it. Shared by
// the Display class (captures on the JS thread) and the Capturer (on a worker thread):
// each owns its own segment for its own connection.
#pragma once

// napi.h first, by whoever includes this: Xlib defines macros napi.h must not see.
#include <X11/Xlib.h>
#include <X11/extensions/XShm.h>

#include <atomic>
#include <cstddef>

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

  XShmSegmentInfo* info() { return &shm_; }
  char* addr() const { return shm_.shmaddr; }
  bool attached() const { return attached_; }

 private:
  bool Attach(Display* dpy, size_t bytes);

  XShmSegmentInfo shm_{};
  bool attached_ = false;
  size_t capacity_ = 0;
};

}  // namespace axpage
