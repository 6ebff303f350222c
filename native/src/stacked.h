// The pixels of a region and the window stack they show, read as one instant: under a
// server grab, over an XCB connection of its own, so no client maps, unmaps or moves a
// window between the listing and the read. A listing taken before or after the pixels
// misses a window that flashes in between (a popup shown for a few milliseconds), and a
// capture that must leave some process's windows out has to know every window it shows.
//
// The grab must hold the listing and the read on one connection: a grab on one connection
// blocks every other, this process's too. Xlib's connection cannot be reached from XCB
// without libX11-xcb (not a build dependency), so this one is XCB throughout, pixels
// included (core GetImage).
#pragma once

#include <xcb/xcb.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace axpage {

// A mapped window drawn on the root, its outer frame in screen coordinates (border and a
// window manager's decorations included) and the process whose pixels it holds.
struct StackedWindow {
  int x = 0, y = 0, w = 0, h = 0;
  bool hasPid = false;
  uint32_t pid = 0;
};

struct StackedShot {
  int x = 0, y = 0, w = 0, h = 0;
  std::unique_ptr<uint8_t[]> data;  // w*h*3 RGB
  std::vector<StackedWindow> windows;  // bottom to top
  // Set on failure: range for a rect off the screen (a RangeError), else code and message.
  bool failed = false;
  bool range = false;
  std::string code;
  std::string message;
};

class StackedReader {
 public:
  explicit StackedReader(std::string display) : display_(std::move(display)) {}
  ~StackedReader() { Close(); }
  StackedReader(const StackedReader&) = delete;
  StackedReader& operator=(const StackedReader&) = delete;

  // Reads the rect (clipped to the screen) and the root's mapped children in one grab.
  // Not thread-safe: the caller serializes (the Capturer's lock).
  void Capture(long long x, long long y, long long w, long long h, StackedShot* out);
  void Close();

 private:
  bool Open(StackedShot* out);
  // The root's viewable InputOutput children, bottom to top, each with its pid.
  bool ListStack(StackedShot* out);
  // For window-manager frames: the pid of the client window inside each.
  void ClientPids(const std::vector<uint32_t>& frames, std::vector<StackedWindow*>& entries);
  bool ReadPixels(int x, int y, int w, int h, uint8_t* data, StackedShot* out);
  uint32_t Atom(const char* name);

  std::string display_;
  xcb_connection_t* conn_ = nullptr;
  xcb_screen_t* screen_ = nullptr;
  bool xres_ = false;
  uint32_t wmPid_ = 0, wmState_ = 0;
};

}  // namespace axpage
