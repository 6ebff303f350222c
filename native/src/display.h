// The Display class: one Xlib connection with screen capture (XShm / XGetImage), XTest
// input and EWMH window queries. Every method runs on the JS thread and is short (one to a
// few round trips, or one image copy); every method syncs with the server before
// returning, so X errors surface as exceptions of the call that caused them.
#pragma once

// napi.h first: Xlib defines macros (Status, Bool, None, True, False) it must not see.
#include <napi.h>

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>

#include "shm.h"
#include "window-batch.h"

#include <chrono>
#include <memory>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace axpage {

// Opens the X display a constructor was given (its optional name argument, else DISPLAY),
// installs the error handlers and tracks it; throws a TypeError naming `cls` for a bad
// argument, X11_OPEN_FAILED when the server cannot be reached. `name` gets the shown name.
Display* OpenNamedDisplay(const Napi::CallbackInfo& info, const char* cls, std::string* name);

// The core keyboard mapping, fetched fresh per keyboard call: Xlib's own cache
// (XKeysymToKeycode) goes stale after our XChangeKeyboardMapping because we never process
// MappingNotify before the next lookup.
struct KeyMap {
  int minCode = 0, maxCode = 0, perCode = 0;
  std::vector<KeySym> syms;
  KeySym At(int code, int level) const;
  bool Empty(int code) const;
  // Keycode and shift level (0 or 1, group 1) producing sym; false when none.
  bool Find(KeySym sym, int* code, int* level) const;
  void Set(int code, KeySym sym);
};

// Whether a process runs (kill 0; EPERM counts as running: it exists, someone else's).
bool ProcessAlive(long pid);

// heldInput(display?): the keys and buttons X reports down, asked over a connection of
// its own that reads no journal and releases nothing.
Napi::Value HeldInput(const Napi::CallbackInfo& info);

// A key (code: keycode) or pointer button (code: button) we pressed.
constexpr long kHeldKey = 1;
constexpr long kHeldButton = 2;
struct Held {
  long kind;
  long code;
  bool operator==(const Held& o) const { return kind == o.kind && code == o.code; }
};

// Converts a captured image of any TrueColor visual to tightly packed RGB at out.
void ConvertImage(XImage* img, uint8_t* out);

class XDisplay : public Napi::ObjectWrap<XDisplay> {
 public:
  static Napi::Function Init(Napi::Env env);
  explicit XDisplay(const Napi::CallbackInfo& info);
  ~XDisplay() override;

  // One per method call: refuses closed/dead displays, drains pending events, clears the
  // error record; Check() throws the first X error (or the IO error) since then.
  class Call {
   public:
    Call(XDisplay* d, const Napi::CallbackInfo& info);
    Call(XDisplay* d, Napi::Env env);  // for work finished off the JS thread
    void Check();
    void Sync();  // XSync + Check
    Napi::Env env() const { return env_; }

   private:
    XDisplay* d_;
    Napi::Env env_;
  };

 private:
  friend class Call;
  static void OnIOExit(Display* dpy, void* self);

  // Lifecycle and properties.
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value Name(const Napi::CallbackInfo& info);
  Napi::Value Usable(const Napi::CallbackInfo& info);
  Napi::Value Extensions(const Napi::CallbackInfo& info);
  Napi::Value ScreenSize(const Napi::CallbackInfo& info);

  // Capture.
  Napi::Value Capture(const Napi::CallbackInfo& info);
  bool CaptureShm(Call& c, int x, int y, int w, int h, uint8_t* out);
  void CaptureGetImage(Call& c, int x, int y, int w, int h, uint8_t* out);

  // Mouse.
  Napi::Value MouseMove(const Napi::CallbackInfo& info);
  Napi::Value MouseButton(const Napi::CallbackInfo& info);
  // Journals a button pressed or released by another connection (a guarded press).
  Napi::Value NoteButton(const Napi::CallbackInfo& info);
  Napi::Value Pointer(const Napi::CallbackInfo& info);

  // Keyboard (keyboard.cc).
  Napi::Value Key(const Napi::CallbackInfo& info);
  Napi::Value SendKeyCode(const Napi::CallbackInfo& info);
  Napi::Value KeyCombo(const Napi::CallbackInfo& info);
  Napi::Value TypeText(const Napi::CallbackInfo& info);
  Napi::Value RestoreKeymap(const Napi::CallbackInfo& info);
  void RequireXTest(Call& c);
  // The server's keymap; false when it sent none. LoadKeyMap throws instead.
  bool FetchKeyMap(KeyMap* out);
  KeyMap LoadKeyMap(Call& c);
  // Keycodes for syms, mapping spare ones for those the keymap lacks (one batch), and the
  // shift level of the last one.
  std::vector<int> ResolveKeys(Call& c, KeyMap& map, const std::vector<KeySym>& syms,
                               int* lastLevel);
  bool IsSpare(int code) const;
  // A keycode for a new symbol: an empty one, else the spare idle the longest that this
  // call has not used. 0 when the keymap is full; -1 (with *retryAfterMs) when waitForIdle
  // and that spare was typed with less than kSpareSettleMs ago, or all are used here.
  int PickSpare(const KeyMap& map, const std::vector<int>& usedInCall, bool waitForIdle,
                double* retryAfterMs);
  // Records code → sym in map and remapped_, and queues the change for ApplyMappings.
  void AssignSpare(KeyMap& map, int code, KeySym sym,
                   std::vector<std::pair<int, KeySym>>* pending);
  // Sends keymap changes: one XChangeKeyboardMapping per run of adjacent keycodes.
  void ApplyMappings(std::vector<std::pair<int, KeySym>> changes);
  bool ApplyMappingsXkb(const std::vector<std::pair<int, KeySym>>& changes);  // sorted
  // Marks a remapped spare as just typed with.
  void TouchSpare(int code);
  int RestoreSpares(KeyMap* map);

  // The keymap journal (journal.cc): spares remapped by any process, on the root window.
  Napi::Value RecoverKeymap(const Napi::CallbackInfo& info);
  std::vector<long> ReadJournal();
  void WriteJournal(const std::vector<long>& triples);
  // Records remaps before they are sent; forgets ours once restored.
  void JournalAdd(const std::vector<std::pair<int, KeySym>>& changes);
  void JournalForget(const std::vector<int>& codes);
  // Restores the spares of processes that are gone; returns how many.
  int RecoverJournal();

  // The held-input journal (held.cc): keys and buttons pressed and not yet released.
  Napi::Value ReleaseHeld(const Napi::CallbackInfo& info);
  Napi::Value RecoverInput(const Napi::CallbackInfo& info);
  Napi::Value ReleasedAtOpen(const Napi::CallbackInfo& info);
  std::vector<long> ReadHeld();
  void WriteHeld(const std::vector<long>& triples);
  // Records inputs before their presses are sent; forgets them once released.
  void HoldBegin(const std::vector<Held>& inputs);
  void HoldEnd(const std::vector<Held>& inputs);
  void SendRelease(const Held& h);
  // Releases what we hold; returns how many.
  int ReleaseOwnHeld();
  // Releases what processes that are gone left held (X still reports it down); how many.
  int RecoverHeld();

  // Windows (windows.cc).
  Napi::Value ActiveWindow(const Napi::CallbackInfo& info);
  Napi::Value FocusWindow(const Napi::CallbackInfo& info);
  Napi::Value ListWindows(const Napi::CallbackInfo& info);
  Napi::Value WindowInfo(const Napi::CallbackInfo& info);
  Napi::Value EmbeddedWindows(const Napi::CallbackInfo& info);
  Napi::Value PopupWindows(const Napi::CallbackInfo& info);
  Napi::Value SelectionOwner(const Napi::CallbackInfo& info);
  Napi::Value ActivateWindow(const Napi::CallbackInfo& info);
  Napi::Value CloseWindow(const Napi::CallbackInfo& info);
  Napi::Value WindowManager(const Napi::CallbackInfo& info);
  void InternAtoms();
  Atom A(const char* name);
  std::string AtomName(Atom atom);
  bool GetProperty(Window w, Atom prop, Atom type, long maxLongs, Atom* actualType, int* format,
                   std::vector<unsigned long>* longs, std::string* bytes);
  std::vector<unsigned long> GetWindows(Window w, Atom prop, Atom type);
  bool GetCardinal(Window w, Atom prop, unsigned long* out);
  // Facts of many windows at once (window-batch.h); throws X11_PROTOCOL on failure.
  std::vector<WindowFacts> DescribeWindows(Call& c, const std::vector<Window>& windows);
  WindowAtoms BatchAtoms();
  std::string TitleOf(const WindowFacts& f);
  Napi::Object WindowObject(Napi::Env env, const WindowFacts& f);
  Time ServerTime();
  Window WindowManagerCheck();  // the live EWMH WM's check window, or None

  void Shutdown();

 public:
  // What a background listing found (window-batch.cc ListManaged, on a worker thread).
  struct Listing {
    bool ok = false;
    std::string error;
    bool ewmh = false;
    std::vector<WindowFacts> facts;
  };
  // On the JS thread, after a background listing: its windows (falling back to Xlib's
  // tree when no EWMH manager runs), or the error, settle `deferred`.
  void SettleListing(Napi::Env env, Napi::Promise::Deferred deferred, Listing& listing);

 private:
  Napi::Value ListWindowsAsync(const Napi::CallbackInfo& info);
  // The mapped top-level clients when no EWMH window manager lists them, front to back.
  std::vector<WindowFacts> ListUnmanaged(Call& c);
  // A listing's windows (Xlib's tree when no EWMH manager listed them), or its error.
  Napi::Array FinishListing(Call& c, Listing& listing);
  Napi::Array WindowArray(Napi::Env env, const std::vector<WindowFacts>& facts);

  Display* dpy_ = nullptr;
  bool dead_ = false;
  std::string name_;
  int screen_ = 0;
  Window root_ = 0;
  Window helper_ = 0;  // unmapped InputOnly window: source of server timestamps

  bool hasShm_ = false;
  bool shmBroken_ = false;  // attach failed once (remote display, other IPC namespace)
  ShmSegment shm_;

  bool hasXTest_ = false;
  bool hasXkb_ = false;

  // Spare keycodes we remapped, to what, and when last typed with; least recent first.
  struct Spare {
    int code;
    KeySym sym;
    std::chrono::steady_clock::time_point lastUsed;
  };
  std::vector<Spare> remapped_;
  // Keys and buttons we pressed and have not released (recorded in the held-input journal).
  std::vector<Held> held_;
  // What the constructor's recovery released for processes that are gone.
  int releasedAtOpen_ = 0;
  static constexpr int kSpareSettleMs = 40;

  // Window queries on a second connection of their own, where requests are pipelined.
  std::unique_ptr<WindowBatch> batch_;

  std::unordered_map<std::string, Atom> atoms_;
  std::unordered_map<Atom, std::string> atomNames_;
};

}  // namespace axpage
