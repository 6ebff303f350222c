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
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace axpage {

// A mapped window drawn on the root, its outer frame in screen coordinates (border and a
// window manager's decorations included) and the process whose pixels it holds.
struct StackedWindow {
  uint32_t window = 0;
  int x = 0, y = 0, w = 0, h = 0;
  bool hasPid = false;
  uint32_t pid = 0;
};

struct StackedShot {
  int x = 0, y = 0, w = 0, h = 0;
  std::unique_ptr<uint8_t[]> data;  // w*h*3 RGB
  std::vector<StackedWindow> windows;  // bottom to top
  // Where the windows that were created, shown, hidden, moved or destroyed since the
  // previous stacked capture have been: what they drew there may still be on screen (a
  // window they uncovered is repainted only when its app gets to it).
  std::vector<StackedWindow> earlier;
  // Set on failure: range for a rect off the screen (a RangeError), else code and message.
  bool failed = false;
  bool range = false;
  std::string code;
  std::string message;
};

// A pointer action sent under one server grab only while the window on top at its point
// belongs to an allowed process: a window shown between a caller's check and the press
// can never take it.
struct GuardedPointer {
  int x = 0, y = 0;
  int button = 1;
  // 'c': `taps` presses and releases (a click, wheel steps); 'p': a press (a drag's start);
  // 'r': a release (a drag's end), which goes to (elseX, elseY) when the point is not allowed:
  // a held button is always let go. For 'p', (elseX, elseY) is where the drag goes: its
  // first step, a pixel that way, is sent with the press.
  char phase = 'c';
  int taps = 1;
  int elseX = 0, elseY = 0;
  std::vector<uint32_t> allowed;
};

struct GuardOutcome {
  bool sent = false;
  // When not sent: whose window was on top at the point (hasPid false: no process known).
  bool hasPid = false;
  uint32_t pid = 0;
  // Sent, and a window of a process not allowed showed at a press point before the press
  // was done with (a window manager held it meanwhile): it may have taken the press.
  bool late = false;
  uint32_t latePid = 0;
  bool failed = false;
  bool range = false;  // never set: ErrorOf reads it for every worker's outcome
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
  // Lists the stack and sends the action in one grab (see GuardedPointer). Not thread-safe,
  // as Capture.
  void Guarded(const GuardedPointer& in, GuardOutcome* out);
  void Close();

 private:
  bool Open(StackedShot* out);
  // XTest FakeInput (no reply; errors come as events, dropped by Drain).
  void FakeInput(uint8_t type, uint8_t detail, int x, int y);
  // The root's viewable InputOutput children, bottom to top, each with its pid.
  bool ListStack(StackedShot* out);
  // For window-manager frames: the pid of the client window inside each.
  void ClientPids(const std::vector<uint32_t>& frames, std::vector<StackedWindow*>& entries);
  bool ReadPixels(int x, int y, int w, int h, uint8_t* data, StackedShot* out);
  // Reads the root's structure events received so far into moves_ (where each window they
  // name has been since the previous capture) and, while watching_, the windows shown or
  // moved into touched_. Called after a round trip (so every event before it is in).
  void Drain();
  // After a sent press or release: waits for the server to be done with it, then tells
  // whether a window of a process not allowed showed at its point meanwhile.
  void AfterPress(const GuardedPointer& in, GuardOutcome* out);
  // Fills out->earlier from `moves`, with pids from what the last listings learnt.
  void Earlier(std::map<uint32_t, std::vector<StackedWindow>>& moves, StackedShot* out);
  // Remembers this listing's windows and their clients' pids, for the next Earlier.
  void Remember(const StackedShot& shot);
  uint32_t Atom(const char* name);

  std::string display_;
  xcb_connection_t* conn_ = nullptr;
  xcb_screen_t* screen_ = nullptr;
  bool xres_ = false;
  bool xtest_ = false;
  uint32_t wmPid_ = 0, wmState_ = 0;
  uint32_t clientBits_ = 0;
  // Each root child listed last time, with its frame and pid.
  std::unordered_map<uint32_t, StackedWindow> known_;
  // The pid of each client (by the bits of a resource id that name it) seen in a listing:
  // a window destroyed before anyone asked still tells whose it was.
  std::unordered_map<uint32_t, StackedWindow> clients_;
  // Structure events read and not yet used by a capture.
  std::map<uint32_t, std::vector<StackedWindow>> moves_;
  // Since the last guarded press or release: the windows shown or moved.
  bool watching_ = false;
  std::set<uint32_t> touched_;
};

}  // namespace axpage
