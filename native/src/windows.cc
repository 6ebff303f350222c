// Window queries over EWMH (_NET_CLIENT_LIST, _NET_ACTIVE_WINDOW, _NET_WM_*), with an
// XQueryTree fallback when no EWMH window manager runs. Windows can vanish between two
// requests; a listing skips those instead of failing.
#include <X11/Xatom.h>

#include <algorithm>
#include <cmath>
#include <cctype>

#include "args.h"
#include "display.h"
#include "xerrors.h"

namespace axpage {
namespace {

const char* const kAtomNames[] = {
    "_NET_ACTIVE_WINDOW",   "_NET_WM_PID",         "_NET_CLIENT_LIST",
    "_NET_CLIENT_LIST_STACKING", "_NET_WM_NAME",   "UTF8_STRING",
    "_NET_WM_STATE",        "_NET_WM_STATE_MODAL", "_NET_WM_STATE_HIDDEN",
    "_NET_WM_WINDOW_TYPE",  "WM_STATE",            "_NET_SUPPORTING_WM_CHECK",
    "_AXPAGE_TIMESTAMP",    "COMPOUND_TEXT",
};

std::string Latin1ToUtf8(const std::string& in) {
  std::string out;
  out.reserve(in.size());
  for (unsigned char ch : in) {
    if (ch < 0x80) {
      out += static_cast<char>(ch);
    } else {
      out += static_cast<char>(0xc0 | (ch >> 6));
      out += static_cast<char>(0x80 | (ch & 0x3f));
    }
  }
  return out;
}

// "_NET_WM_WINDOW_TYPE_DIALOG" → "dialog".
std::string ShortName(const std::string& atom, const char* prefix) {
  std::string s = atom;
  size_t n = std::char_traits<char>::length(prefix);
  if (s.compare(0, n, prefix) == 0) s = s.substr(n);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

// A window manager honours a pager's requests without its focus-stealing checks.
constexpr long kSourcePager = 2;

// One 32-bit ClientMessage about `about`, sent to `to` with `mask`: to the root with the
// substructure masks, it is a request to the window manager (EWMH); to the window itself
// with no mask, a protocol message to its client (WM_DELETE_WINDOW).
void SendClientMessage(Display* dpy, Window to, long mask, Window about, Atom type,
                       long l0, long l1 = 0, long l2 = 0) {
  XEvent ev{};
  ev.xclient.type = ClientMessage;
  ev.xclient.window = about;
  ev.xclient.message_type = type;
  ev.xclient.format = 32;
  ev.xclient.data.l[0] = l0;
  ev.xclient.data.l[1] = l1;
  ev.xclient.data.l[2] = l2;
  XSendEvent(dpy, to, False, mask, &ev);
}

constexpr long kToWindowManager = SubstructureRedirectMask | SubstructureNotifyMask;

}  // namespace

void XDisplay::InternAtoms() {
  constexpr int n = sizeof kAtomNames / sizeof kAtomNames[0];
  Atom atoms[n];
  // One round trip for all of them.
  XInternAtoms(dpy_, const_cast<char**>(kAtomNames), n, False, atoms);
  for (int i = 0; i < n; i++) {
    atoms_[kAtomNames[i]] = atoms[i];
    atomNames_[atoms[i]] = kAtomNames[i];
  }
}

Atom XDisplay::A(const char* name) {
  auto it = atoms_.find(name);
  if (it != atoms_.end()) return it->second;
  Atom a = XInternAtom(dpy_, name, False);
  atoms_[name] = a;
  return a;
}

std::string XDisplay::AtomName(Atom atom) {
  if (atom == None) return "";
  auto it = atomNames_.find(atom);
  if (it != atomNames_.end()) return it->second;
  char* name = XGetAtomName(dpy_, atom);
  std::string s = name ? name : "";
  if (name) XFree(name);
  if (!s.empty()) atomNames_[atom] = s;
  return s;
}

bool XDisplay::GetProperty(Window w, Atom prop, Atom type, long maxLongs, Atom* actualType,
                           int* format, std::vector<unsigned long>* longs, std::string* bytes) {
  Atom at = None;
  int fmt = 0;
  unsigned long n = 0, after = 0;
  unsigned char* data = nullptr;
  int st = XGetWindowProperty(dpy_, w, prop, 0, maxLongs, False, type, &at, &fmt, &n, &after,
                              &data);
  bool ok = st == Success && at != None && data != nullptr;
  if (ok) {
    if (actualType) *actualType = at;
    if (format) *format = fmt;
    if (fmt == 32 && longs) {
      // Format-32 data comes back as an array of C longs (8 bytes on 64-bit).
      const auto* l = reinterpret_cast<const unsigned long*>(data);
      longs->assign(l, l + n);
    } else if (fmt == 8 && bytes) {
      bytes->assign(reinterpret_cast<const char*>(data), n);
    }
  }
  if (data) XFree(data);
  return ok;
}

std::vector<unsigned long> XDisplay::GetWindows(Window w, Atom prop, Atom type) {
  std::vector<unsigned long> v;
  GetProperty(w, prop, type, 16384, nullptr, nullptr, &v, nullptr);
  return v;
}

bool XDisplay::GetCardinal(Window w, Atom prop, unsigned long* out) {
  std::vector<unsigned long> v;
  if (!GetProperty(w, prop, XA_CARDINAL, 1, nullptr, nullptr, &v, nullptr) || v.empty()) {
    return false;
  }
  *out = v[0];
  return true;
}

std::string XDisplay::TitleOf(const WindowFacts& f) {
  if (f.hasNetName) return f.netName;
  if (!f.hasName) return "";
  if (f.nameType == XA_STRING) return Latin1ToUtf8(f.name);
  if (f.nameType == A("UTF8_STRING")) return f.name;
  if (f.nameType == A("COMPOUND_TEXT")) {
    std::string raw = f.name;
    XTextProperty tp{reinterpret_cast<unsigned char*>(raw.data()), f.nameType, f.nameFormat,
                     raw.size()};
    char** list = nullptr;
    int count = 0;
    std::string out;
    if (Xutf8TextPropertyToTextList(dpy_, &tp, &list, &count) >= Success && list) {
      for (int i = 0; i < count; i++) out += list[i];
      XFreeStringList(list);
    }
    return out;
  }
  return f.name;
}

WindowAtoms XDisplay::BatchAtoms() {
  auto a = [this](const char* name) { return static_cast<uint32_t>(A(name)); };
  return {a("_NET_WM_PID"),         a("_NET_WM_NAME"),
          a("UTF8_STRING"),         a("_NET_WM_STATE"),
          a("_NET_WM_WINDOW_TYPE"), a("_NET_SUPPORTING_WM_CHECK"),
          a("_NET_CLIENT_LIST"),    a("_NET_CLIENT_LIST_STACKING"),
          a("_NET_FRAME_EXTENTS")};
}

std::vector<WindowFacts> XDisplay::DescribeWindows(Call& c, const std::vector<Window>& windows) {
  std::vector<uint32_t> ids(windows.begin(), windows.end());
  std::vector<WindowFacts> facts;
  std::string error;
  if (!batch_->Describe(ids, static_cast<uint32_t>(root_), BatchAtoms(), &facts, &error)) {
    throw CodedError(c.env(), "X11_PROTOCOL", error);
  }
  return facts;
}

Napi::Object XDisplay::WindowObject(Napi::Env env, const WindowFacts& f) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("window", Napi::Number::New(env, static_cast<double>(f.window)));
  o.Set("pid", f.hasPid ? Napi::Value(Napi::Number::New(env, f.pid)) : env.Null());
  o.Set("title", Napi::String::New(env, TitleOf(f)));
  o.Set("x", Napi::Number::New(env, f.x));
  o.Set("y", Napi::Number::New(env, f.y));
  o.Set("w", Napi::Number::New(env, f.w));
  o.Set("h", Napi::Number::New(env, f.h));
  if (f.hasExtents) {
    Napi::Object e = Napi::Object::New(env);
    e.Set("left", Napi::Number::New(env, f.extents[0]));
    e.Set("right", Napi::Number::New(env, f.extents[1]));
    e.Set("top", Napi::Number::New(env, f.extents[2]));
    e.Set("bottom", Napi::Number::New(env, f.extents[3]));
    o.Set("frameExtents", e);
  } else {
    o.Set("frameExtents", env.Null());
  }
  o.Set("mapped", Napi::Boolean::New(env, f.mapped));
  o.Set("overrideRedirect", Napi::Boolean::New(env, f.overrideRedirect));
  bool hasTransient = f.transientFor != 0;
  o.Set("transientFor",
        hasTransient ? Napi::Value(Napi::Number::New(env, f.transientFor)) : env.Null());
  Napi::Array stateNames = Napi::Array::New(env);
  bool modal = false, hidden = false;
  for (uint32_t s : f.states) {
    modal = modal || s == A("_NET_WM_STATE_MODAL");
    hidden = hidden || s == A("_NET_WM_STATE_HIDDEN");
    stateNames.Set(stateNames.Length(),
                   Napi::String::New(env, ShortName(AtomName(s), "_NET_WM_STATE_")));
  }
  o.Set("modal", Napi::Boolean::New(env, modal));
  o.Set("hidden", Napi::Boolean::New(env, hidden));
  o.Set("states", stateNames);
  // EWMH: without the property a transient window is a dialog, any other a normal one.
  std::string type = !f.types.empty() ? ShortName(AtomName(f.types[0]), "_NET_WM_WINDOW_TYPE_")
                     : hasTransient   ? "dialog"
                                      : "normal";
  o.Set("type", Napi::String::New(env, type));
  if (f.hasClass) {
    o.Set("wmClass", Napi::String::New(env, f.wmClass));
    o.Set("wmInstance", Napi::String::New(env, f.wmInstance));
  } else {
    o.Set("wmClass", env.Null());
    o.Set("wmInstance", env.Null());
  }
  return o;
}

Window XDisplay::WindowManagerCheck() {
  std::vector<unsigned long> check = GetWindows(root_, A("_NET_SUPPORTING_WM_CHECK"), XA_WINDOW);
  if (check.empty() || check[0] == None) return None;
  // A dead WM leaves the root property behind; the live one's check window points to itself.
  std::vector<unsigned long> self = GetWindows(check[0], A("_NET_SUPPORTING_WM_CHECK"), XA_WINDOW);
  XErrorRecord rec;
  TakeError(dpy_, &rec);  // BadWindow here just means "stale"
  return !self.empty() && self[0] == check[0] ? check[0] : None;
}

Napi::Value XDisplay::WindowManager(const Napi::CallbackInfo& info) {
  Call c(this, info);
  Napi::Env env = info.Env();
  Window check = WindowManagerCheck();
  c.Check();
  if (check == None) return env.Null();
  std::string name;
  GetProperty(check, A("_NET_WM_NAME"), A("UTF8_STRING"), 1024, nullptr, nullptr, nullptr, &name);
  XErrorRecord rec;
  TakeError(dpy_, &rec);  // it may exit right now
  c.Check();
  Napi::Object o = Napi::Object::New(env);
  o.Set("window", Napi::Number::New(env, static_cast<double>(check)));
  o.Set("name", Napi::String::New(env, name));
  return o;
}

Time XDisplay::ServerTime() {
  // The standard trick: a zero-length append to a property of our own window makes the
  // server send PropertyNotify stamped with its current time.
  unsigned char dummy = 0;
  XChangeProperty(dpy_, helper_, A("_AXPAGE_TIMESTAMP"), XA_STRING, 8, PropModeAppend, &dummy, 0);
  XSync(dpy_, False);
  XEvent ev;
  if (XCheckTypedWindowEvent(dpy_, helper_, PropertyNotify, &ev)) return ev.xproperty.time;
  return CurrentTime;
}

Napi::Value XDisplay::ActiveWindow(const Napi::CallbackInfo& info) {
  Call c(this, info);
  Napi::Env env = info.Env();
  // A window manager that died leaves a stale _NET_ACTIVE_WINDOW behind: trust the
  // property only while an EWMH WM runs.
  if (WindowManagerCheck() == None) return env.Null();
  std::vector<unsigned long> v = GetWindows(root_, A("_NET_ACTIVE_WINDOW"), XA_WINDOW);
  c.Check();
  if (v.empty() || v[0] == None) return env.Null();
  Napi::Object o = Napi::Object::New(env);
  o.Set("window", Napi::Number::New(env, static_cast<double>(v[0])));
  unsigned long pid;
  bool hasPid = GetCardinal(v[0], A("_NET_WM_PID"), &pid);
  XErrorRecord rec;
  TakeError(dpy_, &rec);  // the window may just have been destroyed: no pid then
  c.Check();
  o.Set("pid", hasPid ? Napi::Value(Napi::Number::New(env, pid)) : env.Null());
  return o;
}

Napi::Value XDisplay::FocusWindow(const Napi::CallbackInfo& info) {
  Call c(this, info);
  Window focus = None;
  int revert;
  XGetInputFocus(dpy_, &focus, &revert);
  c.Check();
  // None and PointerRoot are not windows.
  if (focus == None || focus == PointerRoot) return info.Env().Null();
  return Napi::Number::New(info.Env(), static_cast<double>(focus));
}

Napi::Value XDisplay::WindowInfo(const Napi::CallbackInfo& info) {
  Call c(this, info);
  Window w = static_cast<Window>(IntArg(info, 0, "windowInfo(window)", "window", 1, 0xffffffffLL));
  XWindowAttributes attrs;
  if (!XGetWindowAttributes(dpy_, w, &attrs)) c.Check();  // BadWindow for unknown ids
  std::vector<WindowFacts> facts = DescribeWindows(c, {w});
  if (facts[0].vanished) {
    throw CodedError(c.env(), "X11_PROTOCOL", "X error: window " + std::to_string(w) +
                                                  " was destroyed while it was described");
  }
  return WindowObject(c.env(), facts[0]);
}

Napi::Value XDisplay::EmbeddedWindows(const Napi::CallbackInfo& info) {
  Call c(this, info);
  Napi::Env env = info.Env();
  if (!info[0].IsArray()) {
    throw Napi::TypeError::New(env, "embeddedWindows(windows): windows must be an array of window ids, got " +
                                        Describe(info[0]));
  }
  Napi::Array list = info[0].As<Napi::Array>();
  std::vector<uint32_t> tops;
  for (uint32_t i = 0; i < list.Length(); i++) {
    Napi::Value v = list.Get(i);
    double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 1 && d <= 0xffffffffLL) || std::floor(d) != d) {
      throw Napi::TypeError::New(env, "embeddedWindows(windows): windows[" + std::to_string(i) +
                                          "] must be a window id, got " + Describe(v));
    }
    tops.push_back(static_cast<uint32_t>(d));
  }
  std::vector<WindowFacts> facts;
  std::vector<uint32_t> hosts;
  std::string error;
  if (!batch_->Embedded(tops, static_cast<uint32_t>(root_), BatchAtoms(), &facts, &hosts,
                        &error)) {
    throw CodedError(env, "X11_PROTOCOL", error);
  }
  Napi::Array out = Napi::Array::New(env);
  for (size_t i = 0; i < facts.size(); i++) {
    Napi::Object o = WindowObject(env, facts[i]);
    o.Set("host", Napi::Number::New(env, static_cast<double>(hosts[i])));
    out.Set(out.Length(), o);
  }
  return out;
}

Napi::Value XDisplay::SelectionOwner(const Napi::CallbackInfo& info) {
  Call c(this, info);
  Napi::Env env = info.Env();
  if (!info[0].IsString()) {
    throw Napi::TypeError::New(env, "selectionOwner(selection): selection must be a string, got " +
                                        Describe(info[0]));
  }
  std::string name = info[0].As<Napi::String>().Utf8Value();
  if (name != "CLIPBOARD" && name != "PRIMARY") {
    throw Napi::TypeError::New(env, "selectionOwner(selection): selection must be CLIPBOARD or PRIMARY");
  }
  Window owner = XGetSelectionOwner(dpy_, A(name.c_str()));
  c.Check();
  if (owner == None) return env.Null();
  std::vector<WindowFacts> facts = DescribeWindows(c, {owner});
  if (facts[0].vanished || !facts[0].hasPid) return env.Null();
  return Napi::Number::New(env, facts[0].pid);
}

Napi::Value XDisplay::PopupWindows(const Napi::CallbackInfo& info) {
  Call c(this, info);
  std::vector<WindowFacts> facts;
  std::string error;
  if (!batch_->ListPopups(static_cast<uint32_t>(root_), BatchAtoms(), &facts, &error)) {
    throw CodedError(c.env(), "X11_PROTOCOL", error);
  }
  return WindowArray(c.env(), facts);
}

std::vector<WindowFacts> XDisplay::ListUnmanaged(Call& c) {
  std::vector<unsigned long> list;
  Window rootRet, parent, *kids = nullptr;
  unsigned n = 0;
  if (XQueryTree(dpy_, root_, &rootRet, &parent, &kids, &n) && kids) {
    for (unsigned i = n; i-- > 0;) {  // XQueryTree lists bottom to top
      XWindowAttributes a;
      if (!XGetWindowAttributes(dpy_, kids[i], &a)) continue;
      if (a.map_state != IsViewable || a.c_class == InputOnly || a.override_redirect) continue;
      // A reparenting WM without EWMH: the client (with WM_STATE) sits inside the frame.
      Window client = kids[i];
      std::vector<unsigned long> st;
      if (!GetProperty(client, A("WM_STATE"), AnyPropertyType, 2, nullptr, nullptr, &st,
                       nullptr)) {
        Window r2, p2, *sub = nullptr;
        unsigned m = 0;
        if (XQueryTree(dpy_, kids[i], &r2, &p2, &sub, &m) && sub) {
          for (unsigned j = 0; j < m; j++) {
            if (GetProperty(sub[j], A("WM_STATE"), AnyPropertyType, 2, nullptr, nullptr, &st,
                            nullptr)) {
              client = sub[j];
              break;
            }
          }
          XFree(sub);
        }
      }
      list.push_back(client);
    }
    XFree(kids);
  }
  XErrorRecord rec;
  TakeError(dpy_, &rec);  // windows that vanished while we looked
  c.Check();
  return DescribeWindows(c, std::vector<Window>(list.begin(), list.end()));
}

Napi::Array XDisplay::WindowArray(Napi::Env env, const std::vector<WindowFacts>& facts) {
  Napi::Array out = Napi::Array::New(env);
  for (const WindowFacts& f : facts) {
    if (!f.vanished) out.Set(out.Length(), WindowObject(env, f));  // destroyed meanwhile
  }
  return out;
}

Napi::Array XDisplay::FinishListing(Call& c, Listing& listing) {
  if (!listing.ok) throw CodedError(c.env(), "X11_PROTOCOL", listing.error);
  if (!listing.ewmh) listing.facts = ListUnmanaged(c);
  Napi::Array out = WindowArray(c.env(), listing.facts);
  c.Check();
  return out;
}

Napi::Value XDisplay::ListWindows(const Napi::CallbackInfo& info) {
  Call c(this, info);
  // The EWMH lists, with every window described: two round trips in all.
  Listing listing;
  listing.ok = batch_->ListManaged(static_cast<uint32_t>(root_), BatchAtoms(), &listing.facts,
                                   &listing.ewmh, &listing.error);
  return FinishListing(c, listing);
}

namespace {

// listWindowsAsync(): the EWMH listing's round trips wait on a worker thread, so the JS
// thread goes on meanwhile (a busy X server answers each in 0.1-1 ms). Holds the Display
// alive until it settles.
class ListWorker : public Napi::AsyncWorker {
 public:
  ListWorker(Napi::Env env, XDisplay* owner, Napi::Object self, WindowBatch* batch,
             uint32_t root, WindowAtoms atoms)
      : Napi::AsyncWorker(env, "axpage.listWindows"),
        deferred_(Napi::Promise::Deferred::New(env)),
        owner_(owner),
        batch_(batch),
        root_(root),
        atoms_(atoms) {
    self_ = Napi::Persistent(self);
  }

  Napi::Promise Promise() const { return deferred_.Promise(); }

  void Execute() override {
    listing_.ok = batch_->ListManaged(root_, atoms_, &listing_.facts, &listing_.ewmh,
                                      &listing_.error);
  }

  void OnOK() override { owner_->SettleListing(Env(), deferred_, listing_); }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  XDisplay* owner_;
  Napi::ObjectReference self_;
  WindowBatch* batch_;
  uint32_t root_;
  WindowAtoms atoms_;
  XDisplay::Listing listing_;
};

}  // namespace

Napi::Value XDisplay::ListWindowsAsync(const Napi::CallbackInfo& info) {
  Call c(this, info);  // a closed display fails here, before anything is queued
  auto* worker = new ListWorker(info.Env(), this, info.This().As<Napi::Object>(), batch_.get(),
                                static_cast<uint32_t>(root_), BatchAtoms());
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

void XDisplay::SettleListing(Napi::Env env, Napi::Promise::Deferred deferred,
                             Listing& listing) {
  try {
    Call c(this, env);  // closed or dead meanwhile: rejected with that error
    deferred.Resolve(FinishListing(c, listing));
  } catch (const Napi::Error& e) {
    deferred.Reject(e.Value());
  }
}

Napi::Value XDisplay::ActivateWindow(const Napi::CallbackInfo& info) {
  Call c(this, info);
  Napi::Env env = info.Env();
  Window w = static_cast<Window>(
      IntArg(info, 0, "activateWindow(window)", "window", 1, 0xffffffffLL));
  XWindowAttributes attrs;
  if (!XGetWindowAttributes(dpy_, w, &attrs)) c.Check();  // BadWindow for unknown ids
  bool wm = WindowManagerCheck() != None;
  Time now = ServerTime();
  std::string method;
  if (wm) {
    std::vector<unsigned long> active = GetWindows(root_, A("_NET_ACTIVE_WINDOW"), XA_WINDOW);
    SendClientMessage(dpy_, root_, kToWindowManager, w, A("_NET_ACTIVE_WINDOW"), kSourcePager,
                      static_cast<long>(now), active.empty() ? 0 : static_cast<long>(active[0]));
    method = "ewmh";
  } else {
    // No window manager: nobody would answer the message; raise and focus directly.
    XRaiseWindow(dpy_, w);
    XSetInputFocus(dpy_, w, RevertToParent, now);
    method = "focus";
  }
  c.Sync();
  Napi::Object o = Napi::Object::New(env);
  o.Set("method", Napi::String::New(env, method));
  o.Set("timestamp", Napi::Number::New(env, static_cast<double>(now)));
  return o;
}

Napi::Value XDisplay::CloseWindow(const Napi::CallbackInfo& info) {
  Call c(this, info);
  Napi::Env env = info.Env();
  Window w = static_cast<Window>(
      IntArg(info, 0, "closeWindow(window)", "window", 1, 0xffffffffLL));
  XWindowAttributes attrs;
  if (!XGetWindowAttributes(dpy_, w, &attrs)) c.Check();  // BadWindow for unknown ids
  Time now = ServerTime();
  std::string method;
  if (WindowManagerCheck() != None) {
    // What the title bar's close button does: the WM asks the client (WM_DELETE_WINDOW),
    // so the app can still ask to save; it never destroys the window itself.
    SendClientMessage(dpy_, root_, kToWindowManager, w, A("_NET_CLOSE_WINDOW"),
                      static_cast<long>(now), kSourcePager);
    method = "ewmh";
  } else {
    // No window manager to ask: send the client the WM_DELETE_WINDOW request a WM would.
    SendClientMessage(dpy_, w, NoEventMask, w, A("WM_PROTOCOLS"),
                      static_cast<long>(A("WM_DELETE_WINDOW")), static_cast<long>(now));
    method = "delete";
  }
  c.Sync();
  Napi::Object o = Napi::Object::New(env);
  o.Set("method", Napi::String::New(env, method));
  return o;
}

}  // namespace axpage
