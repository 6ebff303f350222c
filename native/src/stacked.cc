#include "stacked.h"

#include <sys/uio.h>
#include <xcb/xcbext.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "pixels.h"
#include "xres.h"

namespace axpage {
namespace {

// How deep inside a root window its client is looked for: a window manager's frame holds
// it one or two levels down (openbox, xfwm4, mutter: one; KWin: two).
constexpr int kMaxFrameDepth = 3;
// Windows looked at inside frames, all frames together: the grab stays short whatever an
// app builds; a frame not looked into in full has no known pid (filled when in doubt).
constexpr size_t kMaxFrameWindows = 4096;

xcb_extension_t kXTest = {"XTEST", 0};
// How long input held back by a window manager is waited for: 2 s, polled every millisecond.
constexpr int kReleaseWaitPolls = 2000;
constexpr useconds_t kReleaseWaitPollUs = 1000;
constexpr uint8_t kXTestFakeInput = 2;

// Releases the server however a capture leaves: a grab left behind freezes every other
// client of the display.
class ServerGrab {
 public:
  explicit ServerGrab(xcb_connection_t* c) : c_(c) { xcb_grab_server(c_); }
  ~ServerGrab() { Release(); }
  void Release() {
    if (!c_) return;
    if (!xcb_connection_has_error(c_)) {  // else the server dropped us, and the grab
      xcb_ungrab_server(c_);
      xcb_flush(c_);
    }
    c_ = nullptr;
  }
  ServerGrab(const ServerGrab&) = delete;
  ServerGrab& operator=(const ServerGrab&) = delete;

 private:
  xcb_connection_t* c_;
};

void Fail(StackedShot* out, const char* code, const std::string& message) {
  out->failed = true;
  out->code = code;
  out->message = message;
}

template <typename Reply>
Reply* Take(Reply* reply, xcb_generic_error_t* err) {
  std::free(err);  // a window gone meanwhile answers BadWindow: no reply, left out
  return reply;
}

bool PropertyCard(xcb_get_property_reply_t* r, uint32_t* out) {
  if (!r || r->type == XCB_NONE || r->format != 32 || xcb_get_property_value_length(r) < 4)
    return false;
  std::memcpy(out, xcb_get_property_value(r), 4);
  return true;
}

bool ClipToScreen(long long x, long long y, long long w, long long h, int width, int height,
                  int* cx, int* cy, int* cw, int* ch) {
  long long x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
  long long x1 = x + w > width ? width : x + w, y1 = y + h > height ? height : y + h;
  if (x1 <= x0 || y1 <= y0) return false;
  *cx = static_cast<int>(x0);
  *cy = static_cast<int>(y0);
  *cw = static_cast<int>(x1 - x0);
  *ch = static_cast<int>(y1 - y0);
  return true;
}

// What one window's requests answer: the pid it names (_NET_WM_PID, else the client's pid
// as X-Resource knows it) and whether it is a client window (WM_STATE).
struct PidCookies {
  xcb_get_property_cookie_t pid, state;
  unsigned int clientPid = 0;
};

}  // namespace

uint32_t StackedReader::Atom(const char* name) {
  xcb_intern_atom_reply_t* r = xcb_intern_atom_reply(
      conn_, xcb_intern_atom(conn_, 0, static_cast<uint16_t>(std::strlen(name)), name), nullptr);
  uint32_t atom = r ? r->atom : 0;
  std::free(r);
  return atom;
}

void StackedReader::Close() {
  if (conn_) xcb_disconnect(conn_);
  conn_ = nullptr;
  screen_ = nullptr;
}

bool StackedReader::Open(StackedShot* out) {
  if (conn_ && !xcb_connection_has_error(conn_)) return true;
  Close();
  int screen = 0;
  conn_ = xcb_connect(display_.empty() ? nullptr : display_.c_str(), &screen);
  if (xcb_connection_has_error(conn_)) {
    Close();
    Fail(out, "X11_CONNECTION_LOST",
         "cannot open a connection to X display '" + display_ + "' (for stacked captures)");
    return false;
  }
  xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(conn_));
  for (int i = 0; i < screen && it.rem > 0; i++) xcb_screen_next(&it);
  screen_ = it.data;
  wmPid_ = Atom("_NET_WM_PID");
  wmState_ = Atom("WM_STATE");
  xres_ = HasClientPids(conn_);
  const xcb_query_extension_reply_t* xtest = xcb_get_extension_data(conn_, &kXTest);
  xtest_ = xtest && xtest->present;
  clientBits_ = ~xcb_get_setup(conn_)->resource_id_mask;
  // Every window the root's children go through from now on, told as events: the places
  // a window showed between two captures.
  const uint32_t mask = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY;
  xcb_change_window_attributes(conn_, screen_->root, XCB_CW_EVENT_MASK, &mask);
  known_.clear();
  clients_.clear();
  return true;
}

void StackedReader::Capture(long long x, long long y, long long w, long long h,
                            StackedShot* out) {
  if (!Open(out)) return;
  xcb_window_t root = screen_->root;
  ServerGrab grab(conn_);
  // Asked under the grab: RANDR can resize the screen too.
  xcb_get_geometry_reply_t* size =
      Take(xcb_get_geometry_reply(conn_, xcb_get_geometry(conn_, root), nullptr), nullptr);
  if (!size) {
    Fail(out, "X11_CAPTURE_FAILED", "cannot read the root window's size");
    return;
  }
  int width = size->width, height = size->height;
  std::free(size);
  Drain();
  std::map<uint32_t, std::vector<StackedWindow>> moves = std::move(moves_);
  moves_.clear();
  if (!ClipToScreen(x, y, w, h, width, height, &out->x, &out->y, &out->w, &out->h)) {
    out->failed = true;
    out->range = true;
    out->message = "captureStacked: rect {x: " + std::to_string(x) + ", y: " + std::to_string(y) +
                   ", w: " + std::to_string(w) + ", h: " + std::to_string(h) +
                   "} lies outside the " + std::to_string(width) + "x" + std::to_string(height) +
                   " screen";
    return;
  }
  size_t bytes = static_cast<size_t>(out->w) * static_cast<size_t>(out->h) * 3;
  std::unique_ptr<uint8_t[]> data(new (std::nothrow) uint8_t[bytes]);
  if (!data) {
    Fail(out, "X11_CAPTURE_FAILED", "no memory for a " + std::to_string(out->w) + "x" +
                                        std::to_string(out->h) + " capture");
    return;
  }
  if (!ListStack(out) || !ReadPixels(out->x, out->y, out->w, out->h, data.get(), out)) return;
  Earlier(moves, out);
  Remember(*out);
  out->data = std::move(data);
}

void StackedReader::FakeInput(uint8_t type, uint8_t detail, int x, int y) {
  struct {
    uint8_t major, minor;
    uint16_t length;
    uint8_t type, detail;
    uint16_t pad0;
    uint32_t time, root, pad1, pad2;
    int16_t rootX, rootY;
    uint32_t pad3;
    uint16_t pad4;
    uint8_t pad5, deviceid;
  } req = {};
  static_assert(sizeof req == 36, "XTest FakeInput is 36 bytes");
  req.minor = kXTestFakeInput;
  req.type = type;
  req.detail = detail;
  req.root = screen_->root;
  req.rootX = static_cast<int16_t>(x);
  req.rootY = static_cast<int16_t>(y);
  static const xcb_protocol_request_t kReq = {2, &kXTest, kXTestFakeInput, 1};
  iovec parts[4] = {};
  parts[2] = {&req, sizeof req};
  parts[3] = {nullptr, 0};
  xcb_send_request(conn_, 0, parts + 2, &kReq);
}

void StackedReader::Guarded(const GuardedPointer& in, GuardOutcome* out) {
  StackedShot listing;
  auto failed = [&]() {
    out->failed = true;
    out->code = listing.code;
    out->message = listing.message;
  };
  if (!Open(&listing)) return failed();
  if (!xtest_) {
    out->failed = true;
    out->code = "X11_NO_XTEST";
    out->message = "the X server lacks the XTEST extension: no pointer input can be sent";
    return;
  }
  ServerGrab grab(conn_);
  if (!ListStack(&listing)) return failed();
  const StackedWindow* top = nullptr;
  for (auto it = listing.windows.rbegin(); it != listing.windows.rend(); ++it) {
    if (in.x >= it->x && in.x < it->x + it->w && in.y >= it->y && in.y < it->y + it->h) {
      top = &*it;
      break;
    }
  }
  // A window whose process the server cannot tell is let through, as the listings do: no
  // app is known to stand behind it.
  const bool allowed = !top || !top->hasPid ||
                       std::find(in.allowed.begin(), in.allowed.end(), top->pid) != in.allowed.end();
  if (!allowed) {
    out->hasPid = true;
    out->pid = top->pid;
  }
  const uint8_t button = static_cast<uint8_t>(in.button);
  if (allowed) {
    // What moves from now on is what could take this press late (see AfterPress).
    Drain();
    watching_ = true;
    touched_.clear();
    FakeInput(XCB_MOTION_NOTIFY, 0, in.x, in.y);
    for (int i = 0; i < (in.phase == 'c' ? in.taps : 1); i++) {
      if (in.phase != 'r') FakeInput(XCB_BUTTON_PRESS, button, in.x, in.y);
      if (in.phase != 'p') FakeInput(XCB_BUTTON_RELEASE, button, in.x, in.y);
    }
    out->sent = true;
  } else if (in.phase == 'r') {
    FakeInput(XCB_MOTION_NOTIFY, 0, in.elseX, in.elseY);
    FakeInput(XCB_BUTTON_RELEASE, button, in.elseX, in.elseY);
  }
  // A round trip before the grab ends: the server has taken the events in.
  std::free(xcb_get_input_focus_reply(conn_, xcb_get_input_focus(conn_), nullptr));
  if (xcb_connection_has_error(conn_)) {
    out->failed = true;
    out->sent = false;
    out->code = "X11_CONNECTION_LOST";
    out->message = "lost the connection to X display '" + display_ + "'";
    return;
  }
  grab.Release();
  if (out->sent) AfterPress(in, out);
}

void StackedReader::AfterPress(const GuardedPointer& in, GuardOutcome* out) {
  // A window manager that grabs the button on its clients (click to focus) holds the press,
  // and all input after it, until it lets it go on: the press then goes to the window on
  // top at that moment, which may have shown after the check above. Once the server has
  // acted on input sent after the press (a release: the button is up; a drag's first step:
  // the pointer has moved), the press has gone wherever it went. Buttons past 5 have no
  // state to tell by: looked at at once.
  int stepX = in.x, stepY = in.y;
  if (in.phase == 'p') {
    stepX = in.x + (in.elseX > in.x ? 1 : in.elseX < in.x ? -1 : 0);
    stepY = in.y + (in.elseY > in.y ? 1 : in.elseY < in.y ? -1 : 0);
    if (stepX == in.x && stepY == in.y) stepX = in.x > 0 ? in.x - 1 : in.x + 1;
    FakeInput(XCB_MOTION_NOTIFY, 0, stepX, stepY);
  }
  if (in.phase == 'p' || in.button <= 5) {
    const uint16_t mask = static_cast<uint16_t>(XCB_BUTTON_MASK_1 << (in.button - 1));
    for (int i = 0; i < kReleaseWaitPolls; i++) {
      auto* p = xcb_query_pointer_reply(conn_, xcb_query_pointer(conn_, screen_->root), nullptr);
      const bool done = p && (in.phase == 'p' ? p->root_x == stepX && p->root_y == stepY
                                              : !(p->mask & mask));
      std::free(p);
      if (done) break;
      usleep(kReleaseWaitPollUs);
    }
  }
  std::free(xcb_get_input_focus_reply(conn_, xcb_get_input_focus(conn_), nullptr));
  Drain();
  watching_ = false;
  if (touched_.empty()) return;
  std::map<uint32_t, std::vector<StackedWindow>> since;
  for (uint32_t w : touched_) {
    auto it = moves_.find(w);
    since[w] = it == moves_.end() ? std::vector<StackedWindow>{} : it->second;
  }
  touched_.clear();
  StackedShot places;
  Earlier(since, &places);
  for (const StackedWindow& p : places.earlier) {
    if (!p.hasPid || std::find(in.allowed.begin(), in.allowed.end(), p.pid) != in.allowed.end())
      continue;
    if (in.x >= p.x && in.x < p.x + p.w && in.y >= p.y && in.y < p.y + p.h) {
      out->late = true;
      out->latePid = p.pid;
      return;
    }
  }
}

bool StackedReader::ListStack(StackedShot* out) {
  xcb_connection_t* c = conn_;
  xcb_query_tree_reply_t* tree =
      Take(xcb_query_tree_reply(c, xcb_query_tree(c, screen_->root), nullptr), nullptr);
  if (!tree) {
    Fail(out, "X11_CAPTURE_FAILED", "cannot list the root window's children");
    return false;
  }
  const xcb_window_t* kids = xcb_query_tree_children(tree);
  std::vector<uint32_t> windows(kids, kids + xcb_query_tree_children_length(tree));
  std::free(tree);
  struct Asked {
    xcb_get_window_attributes_cookie_t attrs;
    xcb_get_geometry_cookie_t geometry;
    PidCookies pid;
  };
  std::vector<Asked> asked;
  asked.reserve(windows.size());
  for (uint32_t win : windows) {
    asked.push_back({xcb_get_window_attributes(c, win), xcb_get_geometry(c, win),
                     {xcb_get_property(c, 0, win, wmPid_, XCB_ATOM_CARDINAL, 0, 1),
                      xcb_get_property(c, 0, win, wmState_, XCB_GET_PROPERTY_TYPE_ANY, 0, 0),
                      xres_ ? AskClientPid(c, win) : 0}});
  }
  xcb_flush(c);
  std::vector<uint32_t> frames;
  std::vector<size_t> frameEntries;
  for (size_t i = 0; i < windows.size(); i++) {
    auto* attrs = Take(xcb_get_window_attributes_reply(c, asked[i].attrs, nullptr), nullptr);
    auto* geom = Take(xcb_get_geometry_reply(c, asked[i].geometry, nullptr), nullptr);
    auto* pid = Take(xcb_get_property_reply(c, asked[i].pid.pid, nullptr), nullptr);
    auto* state = Take(xcb_get_property_reply(c, asked[i].pid.state, nullptr), nullptr);
    uint32_t clientPid = 0;
    bool hasClientPid =
        asked[i].pid.clientPid != 0 && TakeClientPid(c, asked[i].pid.clientPid, &clientPid);
    // InputOnly windows draw nothing; unmapped ones are not on screen.
    if (attrs && geom && attrs->map_state == XCB_MAP_STATE_VIEWABLE &&
        attrs->_class == XCB_WINDOW_CLASS_INPUT_OUTPUT) {
      StackedWindow s;
      s.window = windows[i];
      s.x = geom->x;
      s.y = geom->y;
      s.w = geom->width + 2 * geom->border_width;
      s.h = geom->height + 2 * geom->border_width;
      bool named = PropertyCard(pid, &s.pid);
      s.hasPid = named || hasClientPid;
      if (!named) s.pid = clientPid;
      if (s.hasPid) clients_[windows[i] & clientBits_] = s;
      // A window that is no client (no WM_STATE, no pid of its own, managed) is a window
      // manager's frame: its pixels are the client's inside.
      bool client = attrs->override_redirect || named || (state && state->type != XCB_NONE);
      out->windows.push_back(s);
      if (!client) {
        frames.push_back(windows[i]);
        frameEntries.push_back(out->windows.size() - 1);
      }
    }
    std::free(attrs);
    std::free(geom);
    std::free(pid);
    std::free(state);
  }
  std::vector<StackedWindow*> entries;
  for (size_t k : frameEntries) entries.push_back(&out->windows[k]);
  if (!frames.empty()) ClientPids(frames, entries);
  if (xcb_connection_has_error(c)) {
    Fail(out, "X11_CONNECTION_LOST", "lost the connection to X display '" + display_ + "'");
    return false;
  }
  return true;
}

void StackedReader::ClientPids(const std::vector<uint32_t>& frames,
                               std::vector<StackedWindow*>& entries) {
  xcb_connection_t* c = conn_;
  // The bits of a resource id that name its client (X hands each client a range of ids).
  const uint32_t clientBits = ~xcb_get_setup(c)->resource_id_mask;
  struct Node {
    uint32_t window;
    size_t frame;
  };
  // Per frame: the client inside (a window with WM_STATE), else the first window another
  // client made (a reparented client whose WM_STATE is not set yet), else none.
  std::vector<uint32_t> client(frames.size(), 0), foreign(frames.size(), 0);
  std::vector<bool> complete(frames.size(), true);
  std::vector<Node> level;
  for (size_t f = 0; f < frames.size(); f++) level.push_back({frames[f], f});
  size_t visited = 0;
  for (int depth = 0; depth < kMaxFrameDepth && !level.empty(); depth++) {
    std::vector<xcb_query_tree_cookie_t> trees;
    for (const Node& n : level) trees.push_back(xcb_query_tree(c, n.window));
    xcb_flush(c);
    std::vector<Node> next;
    for (size_t i = 0; i < level.size(); i++) {
      auto* tree = Take(xcb_query_tree_reply(c, trees[i], nullptr), nullptr);
      if (!tree) continue;
      const xcb_window_t* kids = xcb_query_tree_children(tree);
      const int n = xcb_query_tree_children_length(tree);
      for (int k = 0; k < n; k++) {
        if (++visited > kMaxFrameWindows) {
          complete[level[i].frame] = false;
          break;
        }
        next.push_back({kids[k], level[i].frame});
      }
      std::free(tree);
    }
    std::vector<xcb_get_property_cookie_t> states;
    for (const Node& n : next) {
      states.push_back(
          xcb_get_property(c, 0, n.window, wmState_, XCB_GET_PROPERTY_TYPE_ANY, 0, 0));
    }
    xcb_flush(c);
    for (size_t i = 0; i < next.size(); i++) {
      auto* state = Take(xcb_get_property_reply(c, states[i], nullptr), nullptr);
      const size_t f = next[i].frame;
      if (state && state->type != XCB_NONE && client[f] == 0) client[f] = next[i].window;
      if (foreign[f] == 0 && (next[i].window & clientBits) != (frames[f] & clientBits))
        foreign[f] = next[i].window;
      std::free(state);
    }
    std::vector<Node> deeper;
    for (const Node& n : next) {
      if (client[n.frame] == 0) deeper.push_back(n);
    }
    level = std::move(deeper);
  }
  std::vector<PidCookies> asked(frames.size());
  for (size_t f = 0; f < frames.size(); f++) {
    uint32_t inner = client[f] ? client[f] : foreign[f];
    if (!inner) continue;
    asked[f] = {xcb_get_property(c, 0, inner, wmPid_, XCB_ATOM_CARDINAL, 0, 1), {},
                xres_ ? AskClientPid(c, inner) : 0};
  }
  xcb_flush(c);
  for (size_t f = 0; f < frames.size(); f++) {
    uint32_t inner = client[f] ? client[f] : foreign[f];
    if (!complete[f] && !inner) entries[f]->hasPid = false;
    if (!inner) continue;
    auto* pid = Take(xcb_get_property_reply(c, asked[f].pid, nullptr), nullptr);
    uint32_t clientPid = 0;
    bool hasClientPid =
        asked[f].clientPid != 0 && TakeClientPid(c, asked[f].clientPid, &clientPid);
    uint32_t named = 0;
    if (PropertyCard(pid, &named)) {
      entries[f]->hasPid = true;
      entries[f]->pid = named;
    } else {
      entries[f]->hasPid = hasClientPid;
      entries[f]->pid = clientPid;
    }
    if (entries[f]->hasPid) clients_[inner & clientBits_] = *entries[f];
    std::free(pid);
  }
}

void StackedReader::Drain() {
  std::map<uint32_t, std::vector<StackedWindow>>& moves = moves_;
  auto at = [](uint32_t w, int x, int y, int width, int height, int border) {
    StackedWindow s;
    s.window = w;
    s.x = x;
    s.y = y;
    s.w = width + 2 * border;
    s.h = height + 2 * border;
    return s;
  };
  const xcb_window_t root = screen_->root;
  while (xcb_generic_event_t* e = xcb_poll_for_event(conn_)) {
    switch (e->response_type & 0x7f) {
      case XCB_CREATE_NOTIFY: {
        auto* c = reinterpret_cast<xcb_create_notify_event_t*>(e);
        if (c->parent == root)
          moves[c->window].push_back(at(c->window, c->x, c->y, c->width, c->height,
                                        c->border_width));
        break;
      }
      case XCB_CONFIGURE_NOTIFY: {
        auto* c = reinterpret_cast<xcb_configure_notify_event_t*>(e);
        if (c->event == root)
          moves[c->window].push_back(at(c->window, c->x, c->y, c->width, c->height,
                                        c->border_width));
        break;
      }
      case XCB_MAP_NOTIFY: {
        auto* m = reinterpret_cast<xcb_map_notify_event_t*>(e);
        if (m->event == root) moves[m->window];
        break;
      }
      case XCB_UNMAP_NOTIFY: {
        auto* u = reinterpret_cast<xcb_unmap_notify_event_t*>(e);
        if (u->event == root) moves[u->window];
        break;
      }
      case XCB_DESTROY_NOTIFY: {
        auto* d = reinterpret_cast<xcb_destroy_notify_event_t*>(e);
        if (d->event == root) moves[d->window];
        break;
      }
      default:  // errors of unchecked requests, and events no one asked for
        break;
    }
    if (watching_) {
      const uint8_t type = e->response_type & 0x7f;
      uint32_t w = 0;
      if (type == XCB_MAP_NOTIFY) w = reinterpret_cast<xcb_map_notify_event_t*>(e)->window;
      if (type == XCB_CONFIGURE_NOTIFY)
        w = reinterpret_cast<xcb_configure_notify_event_t*>(e)->window;
      if (w) touched_.insert(w);
    }
    std::free(e);
  }
}

void StackedReader::Earlier(std::map<uint32_t, std::vector<StackedWindow>>& moves,
                            StackedShot* out) {
  if (moves.empty()) return;
  // Where each window is now, shown or not (a hidden window keeps its place), and whose.
  struct Asked {
    uint32_t window;
    xcb_get_geometry_cookie_t geometry;
    xcb_translate_coordinates_cookie_t origin;
    PidCookies pid;
  };
  std::vector<Asked> asked;
  for (auto& [w, places] : moves) {
    asked.push_back({w, xcb_get_geometry(conn_, w),
                     xcb_translate_coordinates(conn_, w, screen_->root, 0, 0),
                     {xcb_get_property(conn_, 0, w, wmPid_, XCB_ATOM_CARDINAL, 0, 1), {},
                      xres_ ? AskClientPid(conn_, w) : 0}});
  }
  xcb_flush(conn_);
  for (const Asked& a : asked) {
    auto* g = Take(xcb_get_geometry_reply(conn_, a.geometry, nullptr), nullptr);
    auto* o = Take(xcb_translate_coordinates_reply(conn_, a.origin, nullptr), nullptr);
    auto* pid = Take(xcb_get_property_reply(conn_, a.pid.pid, nullptr), nullptr);
    uint32_t clientPid = 0;
    bool hasClientPid = a.pid.clientPid != 0 && TakeClientPid(conn_, a.pid.clientPid, &clientPid);
    std::vector<StackedWindow>& places = moves[a.window];
    if (g && o) {
      StackedWindow s;
      s.x = o->dst_x - g->border_width;
      s.y = o->dst_y - g->border_width;
      s.w = g->width + 2 * g->border_width;
      s.h = g->height + 2 * g->border_width;
      places.push_back(s);
    }
    // Whose pixels it held: a frame's client as listed last time, else its own client's.
    StackedWindow owner;
    auto was = known_.find(a.window);
    auto client = clients_.find(a.window & clientBits_);
    uint32_t named = 0;
    if (was != known_.end()) {
      owner = was->second;
      places.push_back(was->second);
    } else if (PropertyCard(pid, &named)) {
      owner.hasPid = true;
      owner.pid = named;
    } else if (hasClientPid) {
      owner.hasPid = true;
      owner.pid = clientPid;
    } else if (client != clients_.end()) {
      owner = client->second;
    }
    std::free(g);
    std::free(o);
    std::free(pid);
    for (StackedWindow& p : places) {
      if (p.w <= 0 || p.h <= 0) continue;
      p.window = a.window;
      p.hasPid = owner.hasPid;
      p.pid = owner.pid;
      out->earlier.push_back(p);
    }
  }
}

void StackedReader::Remember(const StackedShot& shot) {
  known_.clear();
  for (const StackedWindow& s : shot.windows) known_[s.window] = s;
}

bool StackedReader::ReadPixels(int x, int y, int w, int h, uint8_t* data, StackedShot* out) {
  xcb_connection_t* c = conn_;
  xcb_generic_error_t* err = nullptr;
  xcb_get_image_reply_t* img = xcb_get_image_reply(
      c,
      xcb_get_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, screen_->root, static_cast<int16_t>(x),
                    static_cast<int16_t>(y), static_cast<uint16_t>(w), static_cast<uint16_t>(h),
                    ~0u),
      &err);
  if (!img) {
    Fail(out, "X11_CAPTURE_FAILED",
         err ? "GetImage failed: X error " + std::to_string(err->error_code)
             : "GetImage returned no image (connection lost?)");
    std::free(err);
    return false;
  }
  const xcb_setup_t* setup = xcb_get_setup(c);
  int bpp = 0, pad = 0;
  for (auto f = xcb_setup_pixmap_formats_iterator(setup); f.rem > 0; xcb_format_next(&f)) {
    if (f.data->depth == img->depth) {
      bpp = f.data->bits_per_pixel;
      pad = f.data->scanline_pad;
    }
  }
  const xcb_visualtype_t* visual = nullptr;
  for (auto d = xcb_screen_allowed_depths_iterator(screen_); d.rem > 0 && !visual;
       xcb_depth_next(&d)) {
    for (auto v = xcb_depth_visuals_iterator(d.data); v.rem > 0; xcb_visualtype_next(&v)) {
      if (v.data->visual_id == img->visual) visual = v.data;
    }
  }
  PixelLayout layout;
  bool known = visual && bpp > 0 && pad > 0 &&
               LayoutFromMasks(bpp, setup->image_byte_order == XCB_IMAGE_ORDER_MSB_FIRST,
                               visual->red_mask, visual->green_mask, visual->blue_mask, &layout);
  size_t bpl = ((static_cast<size_t>(w) * bpp + pad - 1) / pad) * pad / 8;
  if (!known || static_cast<size_t>(xcb_get_image_data_length(img)) < bpl * h) {
    std::free(img);
    Fail(out, "X11_CAPTURE_FAILED", "unsupported pixel format (" + std::to_string(bpp) +
                                        " bits per pixel)");
    return false;
  }
  ConvertToRgb(xcb_get_image_data(img), bpl, layout, 0, 0, w, h, data);
  std::free(img);
  return true;
}

}  // namespace axpage
