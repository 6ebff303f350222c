// The keymap journal: spare keycodes we remap are recorded on the root window (property
// _AXPAGE_REMAPPED_KEYS: triples of pid, keycode, keysym, 32-bit INTEGER) BEFORE the
// remap is sent. A process killed before it could restore its spares (SIGKILL) leaves
// them remapped, and later processes would find the keymap full; every new Display
// therefore restores the journal entries of processes that are gone, when the keycode
// still holds the keysym recorded (anyone may have remapped it since: theirs stays).
// The property lives exactly as long as the X server, like the remappings themselves.
// Read-modify-write of the property runs under a server grab, so two processes sharing
// a display never lose each other's entries.
#include <X11/Xatom.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "display.h"

namespace axpage {

namespace {

constexpr const char* kJournal = "_AXPAGE_REMAPPED_KEYS";

struct Entry {
  long pid;
  long code;
  long sym;
};

}  // namespace

bool ProcessAlive(long pid) {
  if (pid <= 0) return false;
  // EPERM: it exists, someone else's. Only ESRCH says it is gone.
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

std::vector<long> XDisplay::ReadJournal() {
  std::vector<long> out;
  Atom type;
  int format;
  std::vector<unsigned long> longs;
  if (!GetProperty(root_, A(kJournal), XA_INTEGER, 1 << 16, &type, &format, &longs, nullptr))
    return out;
  if (type != XA_INTEGER || format != 32) return out;
  for (unsigned long v : longs) out.push_back(static_cast<long>(v));
  out.resize(out.size() - out.size() % 3);
  return out;
}

void XDisplay::WriteJournal(const std::vector<long>& triples) {
  if (triples.empty()) {
    XDeleteProperty(dpy_, root_, A(kJournal));
    return;
  }
  XChangeProperty(dpy_, root_, A(kJournal), XA_INTEGER, 32, PropModeReplace,
                  reinterpret_cast<const unsigned char*>(triples.data()),
                  static_cast<int>(triples.size()));
}

void XDisplay::JournalAdd(const std::vector<std::pair<int, KeySym>>& changes) {
  std::vector<long> triples;
  long pid = static_cast<long>(getpid());
  for (const auto& [code, sym] : changes) {
    if (sym == NoSymbol) continue;
    triples.push_back(pid);
    triples.push_back(code);
    triples.push_back(static_cast<long>(sym));
  }
  if (triples.empty()) return;
  // Appending is atomic in the server: no grab needed.
  XChangeProperty(dpy_, root_, A(kJournal), XA_INTEGER, 32, PropModeAppend,
                  reinterpret_cast<const unsigned char*>(triples.data()),
                  static_cast<int>(triples.size()));
}

void XDisplay::JournalForget(const std::vector<int>& codes) {
  XGrabServer(dpy_);
  std::vector<long> all = ReadJournal();
  std::vector<long> kept;
  long pid = static_cast<long>(getpid());
  for (size_t i = 0; i + 2 < all.size(); i += 3) {
    bool ours = all[i] == pid && std::find(codes.begin(), codes.end(), all[i + 1]) != codes.end();
    if (!ours) kept.insert(kept.end(), {all[i], all[i + 1], all[i + 2]});
  }
  if (kept.size() != all.size()) WriteJournal(kept);
  XUngrabServer(dpy_);
  XFlush(dpy_);
}

int XDisplay::RecoverJournal() {
  XGrabServer(dpy_);
  std::vector<long> all = ReadJournal();
  if (all.empty()) {
    XUngrabServer(dpy_);
    XFlush(dpy_);
    return 0;
  }
  KeyMap map;
  if (!FetchKeyMap(&map)) {
    XUngrabServer(dpy_);
    XFlush(dpy_);
    return 0;
  }
  std::vector<long> kept;
  std::vector<std::pair<int, KeySym>> changes;
  for (size_t i = 0; i + 2 < all.size(); i += 3) {
    if (ProcessAlive(all[i])) {
      kept.insert(kept.end(), {all[i], all[i + 1], all[i + 2]});
      continue;
    }
    int code = static_cast<int>(all[i + 1]);
    KeySym sym = static_cast<KeySym>(all[i + 2]);
    bool stillOurs = map.At(code, 0) == sym;
    bool queued = std::any_of(changes.begin(), changes.end(),
                              [code](const auto& ch) { return ch.first == code; });
    if (stillOurs && !queued) {
      changes.emplace_back(code, NoSymbol);
      map.Set(code, NoSymbol);
    }
  }
  WriteJournal(kept);
  ApplyMappings(changes);
  XUngrabServer(dpy_);
  XSync(dpy_, False);
  return static_cast<int>(changes.size());
}

Napi::Value XDisplay::RecoverKeymap(const Napi::CallbackInfo& info) {
  Call c(this, info);
  int n = RecoverJournal();
  c.Sync();
  return Napi::Number::New(info.Env(), n);
}

}  // namespace axpage
