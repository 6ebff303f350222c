// The held-input journal: every key and pointer button we press is recorded on the root
// window (property _AXPAGE_HELD_INPUT: triples of pid, kind, code, 32-bit INTEGER) BEFORE
// the press is sent, and forgotten once its release has been sent after it. XTest input
// outlives the client that sent it: a process killed between a press and its release
// (SIGKILL in the middle of typing, whose events go out in buffer-sized writes) leaves the
// key down, and the X server auto-repeats it into whatever window has the focus, for good.
// Every new Display therefore releases the entries of processes that are gone, when X
// still reports them down; close() releases what this Display holds.
// Like the keymap journal, the property lives exactly as long as the X server, and its
// read-modify-writes run under a server grab.
#include <X11/Xatom.h>
#include <X11/extensions/XTest.h>
#include <unistd.h>

#include <algorithm>

#include "args.h"
#include "display.h"
#include "xerrors.h"

namespace axpage {

namespace {

constexpr const char* kHeld = "_AXPAGE_HELD_INPUT";

// Buttons 1-5 are in the pointer's state mask; X reports no state for the others.
bool ButtonDown(unsigned mask, long button) {
  return button < 1 || button > 5 || (mask & (1u << (7 + button))) != 0;
}

bool KeyDown(const char keys[32], long code) {
  return code >= 0 && code < 256 && (keys[code / 8] & (1 << (code % 8))) != 0;
}

}  // namespace

std::vector<long> XDisplay::ReadHeld() {
  std::vector<long> out;
  Atom type;
  int format;
  std::vector<unsigned long> longs;
  if (!GetProperty(root_, A(kHeld), XA_INTEGER, 1 << 16, &type, &format, &longs, nullptr))
    return out;
  if (type != XA_INTEGER || format != 32) return out;
  for (unsigned long v : longs) out.push_back(static_cast<long>(v));
  out.resize(out.size() - out.size() % 3);
  return out;
}

void XDisplay::WriteHeld(const std::vector<long>& triples) {
  if (triples.empty()) {
    XDeleteProperty(dpy_, root_, A(kHeld));
    return;
  }
  XChangeProperty(dpy_, root_, A(kHeld), XA_INTEGER, 32, PropModeReplace,
                  reinterpret_cast<const unsigned char*>(triples.data()),
                  static_cast<int>(triples.size()));
}

void XDisplay::HoldBegin(const std::vector<Held>& inputs) {
  std::vector<long> triples;
  long pid = static_cast<long>(getpid());
  for (const Held& h : inputs) {
    if (std::find(held_.begin(), held_.end(), h) != held_.end()) continue;
    held_.push_back(h);
    triples.insert(triples.end(), {pid, h.kind, h.code});
  }
  if (triples.empty()) return;
  // Appending is atomic in the server, and goes out before the presses queued after it.
  XChangeProperty(dpy_, root_, A(kHeld), XA_INTEGER, 32, PropModeAppend,
                  reinterpret_cast<const unsigned char*>(triples.data()),
                  static_cast<int>(triples.size()));
}

void XDisplay::HoldEnd(const std::vector<Held>& inputs) {
  std::vector<Held> ending;
  for (const Held& h : inputs) {
    auto it = std::find(held_.begin(), held_.end(), h);
    if (it == held_.end()) continue;
    held_.erase(it);
    ending.push_back(h);
  }
  if (ending.empty()) return;
  // The releases were queued before this: if we die first, the entry stays, and the next
  // process finds the key up and just drops it.
  XGrabServer(dpy_);
  std::vector<long> all = ReadHeld();
  std::vector<long> kept;
  long pid = static_cast<long>(getpid());
  for (size_t i = 0; i + 2 < all.size(); i += 3) {
    bool ours = all[i] == pid && std::find(ending.begin(), ending.end(),
                                           Held{all[i + 1], all[i + 2]}) != ending.end();
    if (!ours) kept.insert(kept.end(), {all[i], all[i + 1], all[i + 2]});
  }
  if (kept.size() != all.size()) WriteHeld(kept);
  XUngrabServer(dpy_);
  XFlush(dpy_);
}

void XDisplay::SendRelease(const Held& h) {
  if (h.kind == kHeldKey) {
    XTestFakeKeyEvent(dpy_, static_cast<unsigned>(h.code), False, CurrentTime);
  } else {
    XTestFakeButtonEvent(dpy_, static_cast<unsigned>(h.code), False, CurrentTime);
  }
}

int XDisplay::ReleaseOwnHeld() {
  if (held_.empty() || dead_ || !dpy_ || !hasXTest_) return 0;
  std::vector<Held> ours = held_;
  for (const Held& h : ours) SendRelease(h);
  HoldEnd(ours);
  return static_cast<int>(ours.size());
}

int XDisplay::RecoverHeld() {
  XGrabServer(dpy_);
  std::vector<long> all = ReadHeld();
  if (all.empty()) {
    XUngrabServer(dpy_);
    XFlush(dpy_);
    return 0;
  }
  char keys[32] = {0};
  XQueryKeymap(dpy_, keys);
  Window rootRet, child;
  int rx, ry, wx, wy;
  unsigned mask = 0;
  XQueryPointer(dpy_, root_, &rootRet, &child, &rx, &ry, &wx, &wy, &mask);
  std::vector<long> kept;
  std::vector<Held> released;
  for (size_t i = 0; i + 2 < all.size(); i += 3) {
    if (ProcessAlive(all[i])) {
      kept.insert(kept.end(), {all[i], all[i + 1], all[i + 2]});
      continue;
    }
    Held h{all[i + 1], all[i + 2]};
    bool down = h.kind == kHeldKey ? KeyDown(keys, h.code) : ButtonDown(mask, h.code);
    if (!down || std::find(released.begin(), released.end(), h) != released.end()) continue;
    SendRelease(h);
    released.push_back(h);
  }
  WriteHeld(kept);
  XUngrabServer(dpy_);
  XSync(dpy_, False);
  return static_cast<int>(released.size());
}

Napi::Value XDisplay::ReleaseHeld(const Napi::CallbackInfo& info) {
  // Safe on a closed or dead display: an exit hook calls it whatever state it is in.
  if (dead_ || !dpy_) return Napi::Number::New(info.Env(), 0);
  Call c(this, info);
  int n = ReleaseOwnHeld();
  c.Sync();
  return Napi::Number::New(info.Env(), n);
}

Napi::Value XDisplay::RecoverInput(const Napi::CallbackInfo& info) {
  Call c(this, info);
  int n = hasXTest_ ? RecoverHeld() : 0;
  c.Sync();
  return Napi::Number::New(info.Env(), n);
}

Napi::Value XDisplay::ReleasedAtOpen(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), releasedAtOpen_);
}

// A connection of its own that only asks: no journal is read, nothing is released.
Napi::Value HeldInput(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string name;
  Display* dpy = OpenNamedDisplay(info, "heldInput", &name);
  char keys[32] = {0};
  XQueryKeymap(dpy, keys);
  Window rootRet, child;
  int rx, ry, wx, wy;
  unsigned mask = 0;
  XQueryPointer(dpy, DefaultRootWindow(dpy), &rootRet, &child, &rx, &ry, &wx, &wy, &mask);
  UntrackDisplay(dpy);
  XCloseDisplay(dpy);
  Napi::Array codes = Napi::Array::New(env);
  uint32_t n = 0;
  for (int code = 0; code < 256; code++) {
    if (KeyDown(keys, code)) codes.Set(n++, Napi::Number::New(env, code));
  }
  Napi::Object o = Napi::Object::New(env);
  o.Set("keys", codes);
  o.Set("buttons", Napi::Number::New(env, (mask >> 8) & 0x1f));
  return o;
}

}  // namespace axpage
