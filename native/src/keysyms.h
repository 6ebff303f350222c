// Keysym lookups that need no connection.
#pragma once

#include <napi.h>

#include <X11/Xlib.h>

#include <cstdint>
#include <string>

namespace axpage {

// The keysym typing this code point produces: Latin-1 keysyms equal their code points,
// the rest use the Unicode keysym range (0x01000000 + code point); \n, \r and \t map to
// Return and Tab. NoSymbol for other control characters.
KeySym KeysymForCodepoint(uint32_t cp);

// XStringToKeysym ("Return", "F5", "eacute", "U20AC"), or else a single character ("é",
// "!", "€"). NoSymbol when neither.
KeySym KeysymFromName(const std::string& utf8);

// A keysym argument: a number, or a name as above. TypeError naming fn when invalid.
KeySym KeysymArg(const Napi::CallbackInfo& info, size_t i, const char* fn);

}  // namespace axpage
