// Facts about many top-level windows in one round trip. Xlib answers each property query
// before the next is sent, so describing n windows took ~8n round trips; on a busy
// 2-core desktop the X server answers one in 0.1-0.3 ms, which added milliseconds to every
// tool call (window titles, other apps' windows for redaction). XCB sends every request
// first and then collects the replies: one round trip whatever n is.
#pragma once

#include <xcb/xcb.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace axpage {

// The atoms a description reads (the same ids on every connection to one server).
struct WindowAtoms {
  uint32_t wmPid, netWmName, utf8String, wmState, wmWindowType;
  uint32_t supportingWmCheck, clientList, clientListStacking;
  uint32_t frameExtents;
};

// The cookies of one window's requests, sent before any reply is read.
struct WindowPending {
  xcb_get_window_attributes_cookie_t attrs;
  xcb_get_geometry_cookie_t geometry;
  xcb_translate_coordinates_cookie_t origin;
  xcb_get_property_cookie_t pid, netName, name, transient, states, types, wmClass, extents;
  // X-Resource QueryClientIds for the window's client pid; 0 when the server lacks it.
  unsigned int clientPid = 0;
};

// What a window's properties and geometry say; text and atoms are left undecoded
// (decoding COMPOUND_TEXT and naming atoms is Xlib's job, on the caller's connection).
struct WindowFacts {
  uint32_t window = 0;
  bool vanished = false;  // destroyed while we asked: left out of a listing
  // _NET_WM_PID, else the pid the X server knows for the window's client (X-Resource): an
  // app that never set the property (an Xt app such as xmessage) still has one.
  bool hasPid = false;
  uint32_t pid = 0;
  bool hasNetName = false;
  std::string netName;  // _NET_WM_NAME, UTF-8
  bool hasName = false;
  uint32_t nameType = 0;  // WM_NAME's type: STRING, UTF8_STRING, COMPOUND_TEXT, ...
  uint8_t nameFormat = 0;
  std::string name;
  int x = 0, y = 0;  // the window's origin on the screen
  int w = 0, h = 0;
  bool mapped = false;
  bool overrideRedirect = false;
  uint32_t transientFor = 0;  // 0: none
  std::vector<uint32_t> states;
  std::vector<uint32_t> types;
  bool hasClass = false;  // WM_CLASS: "instance\0class\0"
  std::string wmInstance, wmClass;
  // _NET_FRAME_EXTENTS: the WM's decorations around the client area (its title bar shows
  // the title too), left, right, top, bottom.
  bool hasExtents = false;
  uint32_t extents[4] = {0, 0, 0, 0};
};

// An XCB connection of its own, opened on first use. Its calls may come from a worker
// thread (a listing in the background) and from the JS thread at once: they take turns.
class WindowBatch {
 public:
  explicit WindowBatch(std::string display) : display_(std::move(display)) {}
  ~WindowBatch();
  WindowBatch(const WindowBatch&) = delete;
  WindowBatch& operator=(const WindowBatch&) = delete;

  // Describes `windows` (root: the screen's root window). False with *error set when the
  // connection cannot be opened or breaks; a window destroyed meanwhile is marked
  // `vanished`, any other X error on one fails the batch (*error says which).
  bool Describe(const std::vector<uint32_t>& windows, uint32_t root, const WindowAtoms& atoms,
                std::vector<WindowFacts>* out, std::string* error);
  // The windows a live EWMH window manager lists, front to back, described: two round
  // trips. *ewmh false (and nothing listed) when no such manager runs: a dead one leaves
  // its lists behind, stale.
  bool ListManaged(uint32_t root, const WindowAtoms& atoms, std::vector<WindowFacts>* out,
                   bool* ewmh, std::string* error);
  // The windows inside `tops` (at any depth) that another client created than the one that
  // created their parent: an XEmbed plug of another process drawn inside an app's window.
  // Each is described, with the top-level it is in (`hosts`, index for index). Children are
  // asked level by level, every window of a level in one round trip; a window gone meanwhile
  // is left out. False with *error when the connection breaks.
  bool Embedded(const std::vector<uint32_t>& tops, uint32_t root, const WindowAtoms& atoms,
                std::vector<WindowFacts>* out, std::vector<uint32_t>* hosts,
                std::string* error);
  // The root's viewable override-redirect children (menus, popups, tooltips, lock and
  // prompt windows: no window manager lists them), front to back, described: two round
  // trips.
  bool ListPopups(uint32_t root, const WindowAtoms& atoms, std::vector<WindowFacts>* out,
                  std::string* error);
  // Closes the connection for good: later calls fail (a listing queued before its display
  // closed must not open a new connection).
  void Shutdown();

 private:
  using Pending = WindowPending;
  void Close();
  bool Open(std::string* error);
  Pending Ask(uint32_t window, uint32_t root, const WindowAtoms& atoms);
  WindowFacts Collect(const Pending& p, uint32_t window, std::string* failure);
  // Asks for every window's facts, flushes (with anything asked before) and collects the
  // replies into *out: one round trip. Returns the first failure, empty when none.
  std::string Gather(const std::vector<uint32_t>& windows, uint32_t root,
                     const WindowAtoms& atoms, std::vector<WindowFacts>* out);
  // After a batch: false with *error when the connection broke or `failure` is set.
  bool Finish(const std::string& failure, std::string* error);
  std::string display_;
  std::mutex mu_;
  bool shut_ = false;
  xcb_connection_t* conn_ = nullptr;
  // Whether the server has X-Resource 1.2 (client pids), asked once per connection.
  bool xres_ = false;
};

}  // namespace axpage
