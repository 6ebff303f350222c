// XTest keyboard input. Characters the keymap lacks are typed through spare keycodes
// (keycodes with no symbols) remapped with XChangeKeyboardMapping. Two facts shape this:
//  - Clients translate a key event with the keymap they fetch when they process it, so
//    restoring (or reusing) a spare right after typing with it races the client and turns
//    the key into another character. Remappings stay until restoreKeymap() (the TS
//    wrapper calls it shortly after typing stops; close() always does), and a spare is
//    reused only once idle for kSpareSettleMs.
//  - Every keymap change makes every client refresh its keymap; a window manager
//    re-grabs its key bindings (openbox: ~60 ms each, backlogging activation requests by
//    seconds after dozens of changes). So changes are batched: one request per run of
//    adjacent keycodes, per call.
#include <X11/XKBlib.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "args.h"
#include "display.h"
#include "keysyms.h"

namespace axpage {

// ---- KeyMap ---------------------------------------------------------------------------

KeySym KeyMap::At(int code, int level) const {
  if (code < minCode || code > maxCode || level >= perCode) return NoSymbol;
  return syms[static_cast<size_t>(code - minCode) * perCode + level];
}

bool KeyMap::Empty(int code) const {
  for (int l = 0; l < perCode; l++) {
    if (At(code, l) != NoSymbol) return false;
  }
  return true;
}

bool KeyMap::Find(KeySym sym, int* code, int* level) const {
  if (sym == NoSymbol) return false;
  // Level 0 anywhere beats level 1: "<" sits unshifted on the 102nd key and shifted on
  // the comma key; the unshifted one needs no Shift.
  for (int l = 0; l < 2; l++) {
    for (int k = minCode; k <= maxCode; k++) {
      KeySym s = At(k, l);
      if (l == 1 && s == NoSymbol) {
        // Xlib's rule for a one-symbol group: level 1 is the uppercase of an alphabetic
        // level 0, else level 0 itself (already checked).
        KeySym lower, upper;
        XConvertCase(At(k, 0), &lower, &upper);
        if (At(k, 0) == lower && lower != upper) s = upper;
      }
      if (s == sym) {
        *code = k;
        *level = l;
        return true;
      }
    }
  }
  return false;
}

void KeyMap::Set(int code, KeySym sym) {
  for (int l = 0; l < perCode; l++) {
    syms[static_cast<size_t>(code - minCode) * perCode + l] = l < 2 ? sym : NoSymbol;
  }
}

// ---- keysyms --------------------------------------------------------------------------

KeySym KeysymForCodepoint(uint32_t cp) {
  if (cp == '\n' || cp == '\r') return XK_Return;
  if (cp == '\t') return XK_Tab;
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return NoSymbol;
  if (cp < 0x100) return cp;
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return NoSymbol;
  return 0x01000000 | cp;
}

namespace {

// Decodes one UTF-8 code point; false when s is not exactly one.
bool SingleCodepoint(const std::string& s, uint32_t* cp) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  if (n == 1 && b[0] < 0x80) {
    *cp = b[0];
    return true;
  }
  size_t len = (b[0] & 0xe0) == 0xc0 ? 2 : (b[0] & 0xf0) == 0xe0 ? 3 : (b[0] & 0xf8) == 0xf0 ? 4 : 0;
  if (len == 0 || n != len) return false;
  uint32_t v = b[0] & (0x7f >> len);
  for (size_t i = 1; i < len; i++) {
    if ((b[i] & 0xc0) != 0x80) return false;
    v = (v << 6) | (b[i] & 0x3f);
  }
  *cp = v;
  return true;
}

}  // namespace

KeySym KeysymFromName(const std::string& name) {
  if (name.empty()) return NoSymbol;
  KeySym sym = XStringToKeysym(name.c_str());
  if (sym != NoSymbol) return sym;
  uint32_t cp;
  if (SingleCodepoint(name, &cp)) return KeysymForCodepoint(cp);
  return NoSymbol;
}

KeySym KeysymArg(const Napi::CallbackInfo& info, size_t i, const char* fn) {
  Napi::Value v = info[i];
  if (v.IsString()) {
    std::string name = v.As<Napi::String>().Utf8Value();
    KeySym sym = KeysymFromName(name);
    if (sym == NoSymbol) {
      throw Napi::TypeError::New(info.Env(), std::string(fn) + ": unknown key name '" + name +
                                                 "' (use X keysym names like Return, Tab, "
                                                 "Escape, F5, Left, a, A, or one character)");
    }
    return sym;
  }
  return static_cast<KeySym>(IntArg(info, i, fn, "keysym", 1, 0x1fffffff));
}

// ---- XDisplay keyboard methods ----------------------------------------------------------

bool XDisplay::FetchKeyMap(KeyMap* out) {
  XDisplayKeycodes(dpy_, &out->minCode, &out->maxCode);
  KeySym* syms = XGetKeyboardMapping(dpy_, out->minCode, out->maxCode - out->minCode + 1,
                                     &out->perCode);
  if (!syms) return false;
  out->syms.assign(syms,
                   syms + static_cast<size_t>(out->maxCode - out->minCode + 1) * out->perCode);
  XFree(syms);
  return true;
}

KeyMap XDisplay::LoadKeyMap(Call& c) {
  KeyMap map;
  if (!FetchKeyMap(&map)) {
    c.Check();
    throw CodedError(c.env(), "X11_PROTOCOL", "XGetKeyboardMapping returned nothing");
  }
  return map;
}

bool XDisplay::IsSpare(int code) const {
  for (const Spare& s : remapped_) {
    if (s.code == code) return true;
  }
  return false;
}

int XDisplay::PickSpare(const KeyMap& map, const std::vector<int>& usedInCall, bool waitForIdle,
                        double* retryAfterMs) {
  // From the top: high keycodes are the ones no layout uses.
  for (int k = map.maxCode; k >= map.minCode; k--) {
    if (map.Empty(k)) return k;
  }
  auto now = std::chrono::steady_clock::now();
  auto settle = std::chrono::milliseconds(kSpareSettleMs);
  for (const Spare& s : remapped_) {  // least recently used first
    if (std::find(usedInCall.begin(), usedInCall.end(), s.code) != usedInCall.end()) continue;
    if (waitForIdle && now - s.lastUsed < settle) {
      *retryAfterMs = std::chrono::duration<double, std::milli>(settle - (now - s.lastUsed)).count();
      return -1;
    }
    return s.code;
  }
  if (remapped_.empty()) return 0;  // nothing empty, nothing of ours: the keymap is full
  *retryAfterMs = kSpareSettleMs;  // every spare is used by this very call
  return -1;
}

void XDisplay::AssignSpare(KeyMap& map, int code, KeySym sym,
                           std::vector<std::pair<int, KeySym>>* pending) {
  map.Set(code, sym);
  remapped_.erase(std::remove_if(remapped_.begin(), remapped_.end(),
                                 [code](const Spare& s) { return s.code == code; }),
                  remapped_.end());
  remapped_.push_back({code, sym, std::chrono::steady_clock::now()});
  pending->emplace_back(code, sym);
}

void XDisplay::ApplyMappings(std::vector<std::pair<int, KeySym>> changes) {
  if (changes.empty()) return;
  std::sort(changes.begin(), changes.end());
  // Journal first: if we die between the two, the entry points at a keycode that does
  // not hold its keysym, which recovery leaves alone.
  JournalAdd(changes);
  if (hasXkb_ && ApplyMappingsXkb(changes)) return;
  // Core protocol: one request (and one MappingNotify) per run of adjacent keycodes.
  for (size_t i = 0; i < changes.size();) {
    size_t j = i + 1;
    while (j < changes.size() && changes[j].first == changes[j - 1].first + 1) j++;
    std::vector<KeySym> syms;
    for (size_t k = i; k < j; k++) {
      syms.push_back(changes[k].second);  // both levels, so Shift state does not matter
      syms.push_back(changes[k].second);
    }
    XChangeKeyboardMapping(dpy_, changes[i].first, 2, syms.data(), static_cast<int>(j - i));
    i = j;
  }
}

bool XDisplay::ApplyMappingsXkb(const std::vector<std::pair<int, KeySym>>& changes) {
  // Spare keycodes are scattered over the keymap; the core request covers one contiguous
  // range, so N spares would cost N keymap notifications. An XKB SetMap covers the span
  // from the first to the last spare in one request, re-sending the keys in between as
  // they are.
  XkbDescPtr xkb = XkbGetMap(dpy_, XkbKeyTypesMask | XkbKeySymsMask, XkbUseCoreKbd);
  if (!xkb) return false;
  XkbMapChangesRec mc{};
  bool ok = true;
  for (const auto& [code, sym] : changes) {
    if (sym == NoSymbol) {
      ok = ok && XkbChangeTypesOfKey(xkb, code, 0, XkbGroup1Mask, nullptr, &mc) == Success;
      continue;
    }
    // TWO_LEVEL with the symbol on both levels: Shift does not matter, and the core view
    // shows [sym, sym] so Find() never takes level 2 for the uppercase of sym.
    int types[XkbNumKbdGroups] = {XkbTwoLevelIndex};
    ok = ok && XkbChangeTypesOfKey(xkb, code, 1, XkbGroup1Mask, types, &mc) == Success;
    if (!ok) break;
    KeySym* syms = XkbKeySymsPtr(xkb, code);
    syms[0] = sym;
    syms[1] = sym;
  }
  if (ok) {
    // XkbChangeTypesOfKey noted each key in mc; make sure the span covers all of them.
    mc.changed |= XkbKeySymsMask;
    mc.first_key_sym = static_cast<KeyCode>(changes.front().first);
    mc.num_key_syms = static_cast<unsigned char>(changes.back().first - changes.front().first + 1);
    ok = XkbChangeMap(dpy_, xkb, &mc) == True;
  }
  XkbFreeKeyboard(xkb, 0, True);
  return ok;
}

void XDisplay::TouchSpare(int code) {
  for (size_t i = 0; i < remapped_.size(); i++) {
    if (remapped_[i].code != code) continue;
    // Kept in order of last use, so the front is the spare idle the longest.
    Spare spare = remapped_[i];
    spare.lastUsed = std::chrono::steady_clock::now();
    remapped_.erase(remapped_.begin() + static_cast<long>(i));
    remapped_.push_back(spare);
    return;
  }
}

int XDisplay::RestoreSpares(KeyMap* given) {
  if (remapped_.empty() || dead_ || !dpy_) return 0;
  KeyMap fresh;
  KeyMap* map = given;
  if (!map) {
    if (!FetchKeyMap(&fresh)) return 0;
    map = &fresh;
  }
  std::vector<std::pair<int, KeySym>> changes;
  for (const Spare& spare : remapped_) {
    // Someone else may have remapped it since: leave theirs alone.
    if (map->At(spare.code, 0) != spare.sym) continue;
    changes.emplace_back(spare.code, NoSymbol);
    map->Set(spare.code, NoSymbol);
  }
  std::vector<int> codes;
  for (const Spare& spare : remapped_) codes.push_back(spare.code);
  remapped_.clear();
  ApplyMappings(changes);
  JournalForget(codes);
  return static_cast<int>(changes.size());
}

std::vector<int> XDisplay::ResolveKeys(Call& c, KeyMap& map, const std::vector<KeySym>& syms,
                                       int* lastLevel) {
  std::vector<int> codes;
  std::vector<int> usedSpares;
  std::vector<std::pair<int, KeySym>> pending;
  for (size_t i = 0; i < syms.size(); i++) {
    int code, level;
    if (!map.Find(syms[i], &code, &level)) {
      double unused;
      code = PickSpare(map, usedSpares, false, &unused);
      if (code <= 0) {
        const char* name = XKeysymToString(syms[i]);
        throw CodedError(c.env(), "X11_NO_SPARE_KEYCODE",
                         std::string("no spare keycode to map keysym ") +
                             (name ? name : std::to_string(syms[i])) +
                             " onto: the keymap is full");
      }
      AssignSpare(map, code, syms[i], &pending);
      level = 0;
    }
    if (IsSpare(code)) usedSpares.push_back(code);
    TouchSpare(code);
    codes.push_back(code);
    if (i + 1 == syms.size()) *lastLevel = level;
  }
  ApplyMappings(pending);
  return codes;
}

Napi::Value XDisplay::Key(const Napi::CallbackInfo& info) {
  Call c(this, info);
  RequireXTest(c);
  const char* fn = "key(keysym, down)";
  KeySym sym = KeysymArg(info, 0, fn);
  bool down = BoolArg(info, 1, fn, "down");
  KeyMap map = LoadKeyMap(c);
  int level;
  std::vector<KeySym> one{sym};
  int code = ResolveKeys(c, map, one, &level)[0];
  Held h{kHeldKey, code};
  if (down) HoldBegin({h});
  XTestFakeKeyEvent(dpy_, code, down ? True : False, CurrentTime);
  if (!down) HoldEnd({h});
  c.Sync();
  return Napi::Number::New(info.Env(), code);
}

Napi::Value XDisplay::SendKeyCode(const Napi::CallbackInfo& info) {
  Call c(this, info);
  RequireXTest(c);
  const char* fn = "keyCode(code, down)";
  int minCode, maxCode;
  XDisplayKeycodes(dpy_, &minCode, &maxCode);
  int code = static_cast<int>(IntArg(info, 0, fn, "code", minCode, maxCode));
  bool down = BoolArg(info, 1, fn, "down");
  Held h{kHeldKey, code};
  if (down) HoldBegin({h});
  XTestFakeKeyEvent(dpy_, code, down ? True : False, CurrentTime);
  if (!down) HoldEnd({h});
  c.Sync();
  return info.Env().Undefined();
}

Napi::Value XDisplay::KeyCombo(const Napi::CallbackInfo& info) {
  Call c(this, info);
  RequireXTest(c);
  Napi::Env env = info.Env();
  const char* fn = "keyCombo(keys)";
  if (!info[0].IsArray() || info[0].As<Napi::Array>().Length() == 0 ||
      info[0].As<Napi::Array>().Length() > 16) {
    throw Napi::TypeError::New(env, std::string(fn) +
                                        ": keys must be an array of 1 to 16 keysyms or key "
                                        "names (modifiers first, the key last)");
  }
  Napi::Array arr = info[0].As<Napi::Array>();
  std::vector<KeySym> syms;
  for (uint32_t i = 0; i < arr.Length(); i++) {
    Napi::Value v = arr.Get(i);
    if (v.IsString()) {
      std::string name = v.As<Napi::String>().Utf8Value();
      KeySym s = KeysymFromName(name);
      if (s == NoSymbol) {
        throw Napi::TypeError::New(env, std::string(fn) + ": unknown key name '" + name + "'");
      }
      syms.push_back(s);
    } else if (v.IsNumber() && v.As<Napi::Number>().DoubleValue() >= 1 &&
               v.As<Napi::Number>().DoubleValue() <= 0x1fffffff) {
      syms.push_back(static_cast<KeySym>(v.As<Napi::Number>().Int64Value()));
    } else {
      throw Napi::TypeError::New(env, std::string(fn) + ": keys[" + std::to_string(i) +
                                          "] must be a keysym number or a key name, got " +
                                          Describe(v));
    }
  }
  KeyMap map = LoadKeyMap(c);
  int keyLevel = 0;
  std::vector<int> codes = ResolveKeys(c, map, syms, &keyLevel);
  bool hasShift = false;
  for (KeySym s : syms) hasShift = hasShift || s == XK_Shift_L || s == XK_Shift_R;
  int shiftCode = 0, shiftLevel = 0;
  // "A" or "exclam" alone means the shifted key: add Shift unless the caller gave it.
  if (keyLevel == 1 && !hasShift && map.Find(XK_Shift_L, &shiftCode, &shiftLevel)) {
    codes.insert(codes.end() - 1, shiftCode);
  }
  std::vector<Held> pressed;
  for (int code : codes) pressed.push_back({kHeldKey, code});
  HoldBegin(pressed);
  for (int code : codes) XTestFakeKeyEvent(dpy_, code, True, CurrentTime);
  for (auto it = codes.rbegin(); it != codes.rend(); ++it) {
    XTestFakeKeyEvent(dpy_, *it, False, CurrentTime);
  }
  HoldEnd(pressed);
  c.Sync();
  return info.Env().Undefined();
}

Napi::Value XDisplay::TypeText(const Napi::CallbackInfo& info) {
  Call c(this, info);
  RequireXTest(c);
  Napi::Env env = info.Env();
  const char* fn = "typeText(text)";
  if (!info[0].IsString()) {
    throw Napi::TypeError::New(env, std::string(fn) + ": text must be a string, got " +
                                        Describe(info[0]));
  }
  std::u16string text = info[0].As<Napi::String>().Utf16Value();
  // Validate everything before sending anything: no half-typed text on bad input.
  struct Item {
    KeySym sym;
    size_t start;  // UTF-16 index where this character starts
  };
  std::vector<Item> items;
  for (size_t i = 0; i < text.size(); i++) {
    size_t start = i;
    uint32_t cp = text[i];
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.size() && text[i + 1] >= 0xdc00 &&
        text[i + 1] <= 0xdfff) {
      cp = 0x10000 + ((cp - 0xd800) << 10) + (text[i + 1] - 0xdc00);
      i++;
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      throw Napi::TypeError::New(env, std::string(fn) + ": lone surrogate at index " +
                                          std::to_string(i));
    }
    if (cp == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;  // CRLF: one Return
    KeySym sym = KeysymForCodepoint(cp);
    if (sym == NoSymbol) {
      char hex[16];
      snprintf(hex, sizeof hex, "U+%04X", cp);
      throw Napi::TypeError::New(env, std::string(fn) + ": cannot type control character " + hex +
                                          " at index " + std::to_string(i) +
                                          " (use pressKey for keys)");
    }
    items.push_back({sym, start});
  }
  KeyMap map = LoadKeyMap(c);
  int shiftCode = 0, shiftLevel = 0;
  bool haveShift = map.Find(XK_Shift_L, &shiftCode, &shiftLevel) && shiftLevel == 0;
  // Plan first (which keycode and level for each character, which spares to remap), then
  // send all keymap changes as one batch, then the key events.
  struct Tap {
    int code;
    int level;
  };
  std::vector<Tap> taps;
  std::vector<int> usedSpares;  // spares this call types with: not to be remapped by it
  std::vector<std::pair<int, KeySym>> pending;
  size_t consumed = text.size();
  double retryAfterMs = 0;
  for (const Item& item : items) {
    int code, level;
    if (!map.Find(item.sym, &code, &level) || (level == 1 && !haveShift)) {
      code = PickSpare(map, usedSpares, true, &retryAfterMs);
      if (code < 0) {
        // Every spare was typed with moments ago: stop here. The caller continues with
        // the rest after retryAfterMs, once clients have translated those keys.
        consumed = item.start;
        break;
      }
      if (code == 0) {
        const char* name = XKeysymToString(item.sym);
        throw CodedError(env, "X11_NO_SPARE_KEYCODE",
                         std::string("no spare keycode to map keysym ") +
                             (name ? name : std::to_string(item.sym)) +
                             " onto: the keymap is full");
      }
      AssignSpare(map, code, item.sym, &pending);
      level = 0;
    }
    if (IsSpare(code)) usedSpares.push_back(code);
    taps.push_back({code, level});
  }
  ApplyMappings(pending);
  // The taps go out in buffer-sized writes: a process killed in between leaves a key down.
  std::vector<Held> pressed;
  for (const Tap& t : taps) {
    Held h{kHeldKey, t.code};
    if (std::find(pressed.begin(), pressed.end(), h) == pressed.end()) pressed.push_back(h);
    Held shift{kHeldKey, shiftCode};
    if (t.level == 1 && std::find(pressed.begin(), pressed.end(), shift) == pressed.end()) {
      pressed.push_back(shift);
    }
  }
  HoldBegin(pressed);
  for (const Tap& t : taps) {
    if (t.level == 1) XTestFakeKeyEvent(dpy_, shiftCode, True, CurrentTime);
    XTestFakeKeyEvent(dpy_, t.code, True, CurrentTime);
    XTestFakeKeyEvent(dpy_, t.code, False, CurrentTime);
    if (t.level == 1) XTestFakeKeyEvent(dpy_, shiftCode, False, CurrentTime);
    TouchSpare(t.code);
  }
  HoldEnd(pressed);
  size_t keys = taps.size();
  int remappedNow = static_cast<int>(pending.size());
  c.Sync();
  Napi::Object o = Napi::Object::New(env);
  o.Set("consumed", Napi::Number::New(env, static_cast<double>(consumed)));
  o.Set("keys", Napi::Number::New(env, static_cast<double>(keys)));
  o.Set("remapped", Napi::Number::New(env, remappedNow));
  o.Set("pendingRestore", Napi::Number::New(env, static_cast<double>(remapped_.size())));
  o.Set("retryAfterMs", Napi::Number::New(env, consumed < text.size() ? retryAfterMs : 0));
  return o;
}

Napi::Value XDisplay::RestoreKeymap(const Napi::CallbackInfo& info) {
  Call c(this, info);
  KeyMap map = LoadKeyMap(c);
  int n = RestoreSpares(&map);
  c.Sync();
  return Napi::Number::New(info.Env(), n);
}

}  // namespace axpage
