// X error handling that never exits the process.
//
// Xlib's default error handler prints and calls exit(); its default IO error handler
// exits too. We install process-wide handlers once: protocol errors are recorded per
// Display (first error wins) and turned into a JS exception by the call that caused them;
// an IO error (server gone) marks the connection dead through the per-display IO exit
// handler (libX11 >= 1.7), which returns instead of exiting.
#pragma once

#include <X11/Xlib.h>

#include <string>

namespace axpage {

struct XErrorRecord {
  unsigned char errorCode = 0;
  unsigned char requestCode = 0;
  unsigned char minorCode = 0;
  unsigned long resourceId = 0;
  int count = 0;  // how many errors arrived since the last clear (only the first is kept)
};

// Installs the process-wide handlers (idempotent).
void InstallErrorHandlers();

// Starts tracking a display (call right after XOpenDisplay) / stops (before XCloseDisplay).
void TrackDisplay(Display* dpy);
void UntrackDisplay(Display* dpy);

void ClearErrors(Display* dpy);
// Moves the recorded error (if any) into *out and clears it. Returns whether there was one.
bool TakeError(Display* dpy, XErrorRecord* out);

// "BadWindow (invalid Window parameter) in X_GetProperty, resource 0x1234"
std::string DescribeError(Display* dpy, const XErrorRecord& rec);

}  // namespace axpage
