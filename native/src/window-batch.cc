#include "window-batch.h"

#include "xres.h"

#include <sys/uio.h>
#include <xcb/xcbext.h>
#include <xcb/xproto.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace axpage {
namespace {

// Longest property value read, in 32-bit units (as the Xlib queries did).
constexpr uint32_t kMaxTextLongs = 4096;
constexpr uint32_t kMaxListLongs = 16384;

// Bounds of the search for embedded windows: a Tk app makes an X window of every widget
// (hundreds); nesting deeper than this is no toolkit's.
constexpr size_t kMaxEmbedWindows = 20000;
constexpr int kMaxEmbedDepth = 64;

// X protocol error codes for a window (or drawable) that no longer exists.
constexpr uint8_t kBadWindow = 3;
constexpr uint8_t kBadDrawable = 9;

xcb_get_property_cookie_t AskProperty(xcb_connection_t* c, uint32_t w, uint32_t prop,
                                      uint32_t type, uint32_t longs) {
  return xcb_get_property(c, 0, w, prop, type, 0, longs);
}

// Takes a reply (or its error) apart; records the first error that is not "gone".
class Replies {
 public:
  explicit Replies(WindowFacts* f) : f_(f) {}

  template <typename Reply>
  Reply* Take(Reply* reply, xcb_generic_error_t* err) {
    if (err) {
      if (err->error_code == kBadWindow || err->error_code == kBadDrawable) {
        f_->vanished = true;
      } else if (!failed_) {
        failed_ = true;
        code_ = err->error_code;
        major_ = err->major_code;
      }
      std::free(err);
    }
    return reply;
  }

  bool failed() const { return failed_; }
  std::string Describe() const {
    return "X error " + std::to_string(code_) + " (request " + std::to_string(major_) +
           ") describing window " + std::to_string(f_->window);
  }

 private:
  WindowFacts* f_;
  bool failed_ = false;
  uint8_t code_ = 0, major_ = 0;
};

bool PropertyBytes(xcb_get_property_reply_t* r, std::string* out, uint32_t* type = nullptr,
                   uint8_t* format = nullptr) {
  if (!r || r->type == XCB_NONE || r->format != 8) return false;
  const char* data = static_cast<const char*>(xcb_get_property_value(r));
  out->assign(data, xcb_get_property_value_length(r));
  if (type) *type = r->type;
  if (format) *format = r->format;
  return true;
}

std::vector<uint32_t> PropertyLongs(xcb_get_property_reply_t* r) {
  if (!r || r->type == XCB_NONE || r->format != 32) return {};
  const auto* data = static_cast<const uint32_t*>(xcb_get_property_value(r));
  return std::vector<uint32_t>(data, data + xcb_get_property_value_length(r) / 4);
}

}  // namespace

WindowBatch::~WindowBatch() { Shutdown(); }

void WindowBatch::Close() {
  if (conn_) xcb_disconnect(conn_);
  conn_ = nullptr;
}

void WindowBatch::Shutdown() {
  std::lock_guard<std::mutex> lock(mu_);
  shut_ = true;
  Close();
}

bool WindowBatch::Open(std::string* error) {
  if (shut_) {
    *error = "X display '" + display_ + "' is closed";
    return false;
  }
  if (conn_ && !xcb_connection_has_error(conn_)) return true;
  Close();
  conn_ = xcb_connect(display_.empty() ? nullptr : display_.c_str(), nullptr);
  if (xcb_connection_has_error(conn_)) {
    Close();
    *error = "cannot open a second connection to X display '" + display_ +
             "' (for window queries)";
    return false;
  }
  xres_ = HasClientPids(conn_);
  return true;
}

WindowPending WindowBatch::Ask(uint32_t w, uint32_t root, const WindowAtoms& atoms) {
  xcb_connection_t* c = conn_;
  return {
      xcb_get_window_attributes(c, w),
      xcb_get_geometry(c, w),
      xcb_translate_coordinates(c, w, root, 0, 0),
      AskProperty(c, w, atoms.wmPid, XCB_ATOM_CARDINAL, 1),
      AskProperty(c, w, atoms.netWmName, atoms.utf8String, kMaxTextLongs),
      AskProperty(c, w, XCB_ATOM_WM_NAME, XCB_GET_PROPERTY_TYPE_ANY, kMaxTextLongs),
      AskProperty(c, w, XCB_ATOM_WM_TRANSIENT_FOR, XCB_ATOM_WINDOW, 1),
      AskProperty(c, w, atoms.wmState, XCB_ATOM_ATOM, kMaxListLongs),
      AskProperty(c, w, atoms.wmWindowType, XCB_ATOM_ATOM, kMaxListLongs),
      AskProperty(c, w, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, kMaxTextLongs),
      AskProperty(c, w, atoms.frameExtents, XCB_ATOM_CARDINAL, 4),
      xres_ ? AskClientPid(c, w) : 0,
  };
}

WindowFacts WindowBatch::Collect(const Pending& p, uint32_t window, std::string* failure) {
  xcb_connection_t* c = conn_;
  // Every reply is read (and freed), also after the window turned out to be gone.
  WindowFacts f;
  f.window = window;
  Replies r(&f);
  xcb_generic_error_t* err = nullptr;
  auto* attrs = r.Take(xcb_get_window_attributes_reply(c, p.attrs, &err), err);
  err = nullptr;
  auto* geom = r.Take(xcb_get_geometry_reply(c, p.geometry, &err), err);
  err = nullptr;
  auto* origin = r.Take(xcb_translate_coordinates_reply(c, p.origin, &err), err);
  constexpr int kProps = 8;
  xcb_get_property_reply_t* props[kProps];
  const xcb_get_property_cookie_t cookies[kProps] = {
      p.pid, p.netName, p.name, p.transient, p.states, p.types, p.wmClass, p.extents};
  for (int k = 0; k < kProps; k++) {
    err = nullptr;
    props[k] = r.Take(xcb_get_property_reply(c, cookies[k], &err), err);
  }
  if (attrs && geom && origin) {
    f.mapped = attrs->map_state == XCB_MAP_STATE_VIEWABLE;
    f.overrideRedirect = attrs->override_redirect != 0;
    f.w = geom->width;
    f.h = geom->height;
    f.x = origin->dst_x;
    f.y = origin->dst_y;
  } else {
    f.vanished = true;
  }
  std::vector<uint32_t> pid = PropertyLongs(props[0]);
  uint32_t clientPid = 0;
  const bool hasClientPid = p.clientPid != 0 && TakeClientPid(c, p.clientPid, &clientPid);
  if (!pid.empty()) {
    f.hasPid = true;
    f.pid = pid[0];
  } else if (hasClientPid) {
    f.hasPid = true;
    f.pid = clientPid;
  }
  f.hasNetName = PropertyBytes(props[1], &f.netName);
  f.hasName = PropertyBytes(props[2], &f.name, &f.nameType, &f.nameFormat);
  std::vector<uint32_t> transient = PropertyLongs(props[3]);
  if (!transient.empty()) f.transientFor = transient[0];
  f.states = PropertyLongs(props[4]);
  f.types = PropertyLongs(props[5]);
  std::string cls;
  if (PropertyBytes(props[6], &cls) && props[6]->type == XCB_ATOM_STRING) {
    // As XGetClassHint splits it: the instance up to the first NUL, the class after it.
    f.hasClass = true;
    size_t nul = cls.find('\0');
    f.wmInstance = cls.substr(0, nul);
    if (nul != std::string::npos) {
      std::string rest = cls.substr(nul + 1);
      f.wmClass = rest.substr(0, rest.find('\0'));
    }
  }
  std::vector<uint32_t> extents = PropertyLongs(props[7]);
  if (extents.size() == 4) {
    f.hasExtents = true;
    for (int k = 0; k < 4; k++) f.extents[k] = extents[k];
  }
  std::free(attrs);
  std::free(geom);
  std::free(origin);
  for (auto* prop : props) std::free(prop);
  if (r.failed() && failure->empty()) *failure = r.Describe();
  return f;
}

bool WindowBatch::Finish(const std::string& failure, std::string* error) {
  if (xcb_connection_has_error(conn_)) {
    Close();
    *error = "lost the second connection to X display '" + display_ + "' (for window queries)";
    return false;
  }
  if (!failure.empty()) {
    *error = failure;
    return false;
  }
  return true;
}

bool WindowBatch::Describe(const std::vector<uint32_t>& windows, uint32_t root,
                           const WindowAtoms& atoms, std::vector<WindowFacts>* out,
                           std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  out->clear();
  if (windows.empty()) return true;
  if (!Open(error)) return false;
  return Finish(Gather(windows, root, atoms, out), error);
}

std::string WindowBatch::Gather(const std::vector<uint32_t>& windows, uint32_t root,
                                const WindowAtoms& atoms, std::vector<WindowFacts>* out) {
  std::vector<Pending> pending;
  pending.reserve(windows.size());
  for (uint32_t w : windows) pending.push_back(Ask(w, root, atoms));
  xcb_flush(conn_);
  std::string failure;
  out->reserve(windows.size());
  for (size_t i = 0; i < windows.size(); i++) out->push_back(Collect(pending[i], windows[i], &failure));
  return failure;
}

bool WindowBatch::ListManaged(uint32_t root, const WindowAtoms& atoms,
                              std::vector<WindowFacts>* out, bool* ewmh, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  out->clear();
  *ewmh = false;
  if (!Open(error)) return false;
  xcb_connection_t* c = conn_;
  // First flight: who manages the windows, and their lists.
  auto check = AskProperty(c, root, atoms.supportingWmCheck, XCB_ATOM_WINDOW, 1);
  auto stacking = AskProperty(c, root, atoms.clientListStacking, XCB_ATOM_WINDOW, kMaxListLongs);
  auto clients = AskProperty(c, root, atoms.clientList, XCB_ATOM_WINDOW, kMaxListLongs);
  xcb_get_property_reply_t* checkReply = xcb_get_property_reply(c, check, nullptr);
  xcb_get_property_reply_t* stackingReply = xcb_get_property_reply(c, stacking, nullptr);
  xcb_get_property_reply_t* clientsReply = xcb_get_property_reply(c, clients, nullptr);
  std::vector<uint32_t> checkWindow = PropertyLongs(checkReply);
  std::vector<uint32_t> list;
  bool listed = false;
  if (stackingReply && stackingReply->type != XCB_NONE) {
    list = PropertyLongs(stackingReply);
    std::reverse(list.begin(), list.end());  // stacking order is bottom to top
    listed = true;
  } else if (clientsReply && clientsReply->type != XCB_NONE) {
    list = PropertyLongs(clientsReply);
    listed = true;
  }
  std::free(checkReply);
  std::free(stackingReply);
  std::free(clientsReply);
  if (checkWindow.empty() || checkWindow[0] == 0 || !listed) return Finish("", error);
  // Second flight: the WM's check window still names itself (a dead WM leaves the lists
  // behind, stale), and every listed window's facts.
  auto alive = AskProperty(c, checkWindow[0], atoms.supportingWmCheck, XCB_ATOM_WINDOW, 1);
  std::string failure = Gather(list, root, atoms, out);  // flushes `alive` with the rest
  xcb_generic_error_t* err = nullptr;
  xcb_get_property_reply_t* aliveReply = xcb_get_property_reply(c, alive, &err);
  std::free(err);  // BadWindow: the check window is gone with its WM
  std::vector<uint32_t> self = PropertyLongs(aliveReply);
  std::free(aliveReply);
  if (self.empty() || self[0] != checkWindow[0]) {
    out->clear();
    return Finish("", error);
  }
  *ewmh = true;
  return Finish(failure, error);
}

bool WindowBatch::ListPopups(uint32_t root, const WindowAtoms& atoms,
                             std::vector<WindowFacts>* out, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  out->clear();
  if (!Open(error)) return false;
  xcb_connection_t* c = conn_;
  xcb_generic_error_t* err = nullptr;
  xcb_query_tree_reply_t* tree = xcb_query_tree_reply(c, xcb_query_tree(c, root), &err);
  std::free(err);
  if (!tree) return Finish("cannot list the root window's children", error);
  const xcb_window_t* kids = xcb_query_tree_children(tree);
  // Bottom to top as the server stacks them: front to back is the reverse.
  std::vector<uint32_t> windows(kids, kids + xcb_query_tree_children_length(tree));
  std::free(tree);
  std::reverse(windows.begin(), windows.end());
  std::vector<WindowFacts> facts;
  std::string failure = Gather(windows, root, atoms, &facts);
  for (WindowFacts& f : facts) {
    if (!f.vanished && f.mapped && f.overrideRedirect) out->push_back(std::move(f));
  }
  return Finish(failure, error);
}

bool WindowBatch::Embedded(const std::vector<uint32_t>& tops, uint32_t root,
                           const WindowAtoms& atoms, std::vector<WindowFacts>* out,
                           std::vector<uint32_t>* hosts, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  out->clear();
  hosts->clear();
  if (tops.empty()) return true;
  if (!Open(error)) return false;
  xcb_connection_t* c = conn_;
  // The bits of a resource id that name its client (X hands each client a range of ids).
  const uint32_t clientBits = ~xcb_get_setup(c)->resource_id_mask;
  struct Level {
    uint32_t window, host;
  };
  std::vector<Level> level;
  for (uint32_t t : tops) level.push_back({t, t});
  std::vector<uint32_t> foreign;
  size_t visited = 0;
  for (int depth = 0; depth < kMaxEmbedDepth && !level.empty(); depth++) {
    std::vector<xcb_query_tree_cookie_t> asked;
    asked.reserve(level.size());
    for (const Level& l : level) asked.push_back(xcb_query_tree(c, l.window));
    xcb_flush(c);
    std::vector<Level> next;
    for (size_t i = 0; i < level.size(); i++) {
      xcb_generic_error_t* err = nullptr;
      xcb_query_tree_reply_t* tree = xcb_query_tree_reply(c, asked[i], &err);
      std::free(err);  // BadWindow: destroyed meanwhile, with its children
      if (!tree) continue;
      const xcb_window_t* kids = xcb_query_tree_children(tree);
      const int n = xcb_query_tree_children_length(tree);
      for (int k = 0; k < n; k++) {
        if ((kids[k] & clientBits) != (level[i].window & clientBits)) {
          foreign.push_back(kids[k]);
          hosts->push_back(level[i].host);
        }
        // A window too many is not looked into: its plugs would go unseen, so the caller
        // is told rather than given a partial answer.
        if (++visited > kMaxEmbedWindows) {
          std::free(tree);
          *error = "more than " + std::to_string(kMaxEmbedWindows) +
                   " child windows inside the listed windows (looking for embedded ones)";
          return false;
        }
        next.push_back({kids[k], level[i].host});
      }
      std::free(tree);
    }
    level = std::move(next);
  }
  if (!level.empty()) {
    *error = "child windows nested deeper than " + std::to_string(kMaxEmbedDepth) +
             " levels inside the listed windows (looking for embedded ones)";
    return false;
  }
  std::vector<WindowFacts> facts;
  std::string failure = Gather(foreign, root, atoms, &facts);
  for (size_t i = 0; i < facts.size(); i++) {
    if (facts[i].vanished) continue;
    out->push_back(facts[i]);
    (*hosts)[out->size() - 1] = (*hosts)[i];
  }
  hosts->resize(out->size());
  return Finish(failure, error);
}

}  // namespace axpage
