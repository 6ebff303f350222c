/*
 * axpage-wl-input: real pointer and keyboard input on a wlroots compositor (sway), for
 * axpage's Wayland session. One virtual pointer (zwlr_virtual_pointer_v1) and one virtual
 * keyboard (zwp_virtual_keyboard_v1) on the default seat, created once and kept for the
 * helper's life: a keyboard created just before a key loses keys after a focus change,
 * and the seat has no pointer at all (sway's own `seat cursor` commands do nothing) unless
 * some pointer device exists.
 *
 * The keyboard carries the evdev/pc105/us keymap, built by xkbcommon: keys are named by
 * keysym and found on it, whatever layout the host has. A keysym the keymap lacks (é, ß,
 * 日) is put on a key the us keymap leaves empty, and the keyboard is given the keymap
 * extended so: the compositor hands a keyboard's new keymap to the focused client before
 * the keys that follow. With every spare key taken, the extra keys start over.
 *
 * Commands, one per line on stdin; each is answered with one line on stdout once the
 * compositor has processed it (a wl_display_roundtrip): "ok" or "err <why>".
 *   size W H             the layout's size: absolute motion is scaled against it
 *   move X Y             pointer to layout point X,Y
 *   button B 1|0         press/release a Linux button code (272 left, 273 right, 274 middle)
 *   click X Y B N        move, then N presses and releases of B
 *   wheel X Y DX DY      move, then DY vertical and DX horizontal wheel steps (down/right > 0)
 *   key NAME MODS        press and release keysym NAME with modifier mask MODS (shift 1,
 *                        ctrl 4, alt 8, super 64) held; shift added where the keymap needs it
 *   knows NAME           ok when keysym NAME is on the keymap
 *   type HEX             type the UTF-8 text given as hex (\n is Return, \t Tab); every
 *                        character is checked to have a keysym before the first is sent
 * It prints "ready" once both devices exist, or "fail <why>" and exits 1.
 *
 * With --hold it reads no commands: it keeps its devices until the compositor goes, so that
 * the seat has a pointer and a keyboard from the start (as a desktop with a mouse has), and
 * clients started after it bind them at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/input-event-codes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

static struct wl_seat *seat;
static struct zwlr_virtual_pointer_manager_v1 *pointer_manager;
static struct zwp_virtual_keyboard_manager_v1 *keyboard_manager;
static struct wl_display *display;
static struct zwlr_virtual_pointer_v1 *pointer;
static struct zwp_virtual_keyboard_v1 *keyboard;
static struct xkb_keymap *keymap;
static struct xkb_context *xkb;
static uint32_t layout_w = 1, layout_h = 1;

/* The us keymap as text, and the keys it leaves empty (below 256, which every client reads). */
static char *base_keymap;
#define MAX_SPARE 64
static xkb_keycode_t spare[MAX_SPARE];
static int spare_count;
/* Keysyms given spare keys so far: extra[i] is on spare[i]. */
static xkb_keysym_t extra[MAX_SPARE];
static int extra_count;

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *iface,
                   uint32_t version) {
  (void)data;
  (void)version;
  if (!seat && strcmp(iface, wl_seat_interface.name) == 0)
    seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
  else if (strcmp(iface, zwlr_virtual_pointer_manager_v1_interface.name) == 0)
    pointer_manager = wl_registry_bind(registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
  else if (strcmp(iface, zwp_virtual_keyboard_manager_v1_interface.name) == 0)
    keyboard_manager =
        wl_registry_bind(registry, name, &zwp_virtual_keyboard_manager_v1_interface, 1);
}

static void global_remove(void *data, struct wl_registry *registry, uint32_t name) {
  (void)data;
  (void)registry;
  (void)name;
}

static const struct wl_registry_listener registry_listener = {global, global_remove};

static uint32_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint32_t)(t.tv_sec * 1000 + t.tv_nsec / 1000000);
}

static void fail(const char *why) {
  printf("fail %s\n", why);
  fflush(stdout);
  exit(1);
}

/* The keycode and modifier mask that give `sym` on the keymap's first layout. */
static int find_key(xkb_keysym_t sym, xkb_keycode_t *code, xkb_mod_mask_t *mask) {
  xkb_keycode_t min = xkb_keymap_min_keycode(keymap), max = xkb_keymap_max_keycode(keymap);
  /* Lowest level first: a key reached without shift beats one reached with it. */
  for (xkb_level_index_t level = 0; level < 4; level++) {
    for (xkb_keycode_t k = min; k <= max; k++) {
      if (level >= xkb_keymap_num_levels_for_key(keymap, k, 0)) continue;
      const xkb_keysym_t *syms;
      int n = xkb_keymap_key_get_syms_by_level(keymap, k, 0, level, &syms);
      if (n != 1 || syms[0] != sym) continue;
      xkb_mod_mask_t masks[4];
      size_t m = xkb_keymap_key_get_mods_for_level(keymap, k, 0, level, masks, 4);
      if (m == 0) continue;
      *code = k;
      *mask = masks[0];
      return 1;
    }
  }
  return 0;
}

static xkb_keysym_t keysym_of_name(const char *name) {
  xkb_keysym_t sym = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS);
  if (sym != XKB_KEY_NoSymbol) return sym;
  /* One UTF-8 character names the key that types it. */
  size_t len = strlen(name);
  if (len == 0 || len > 4) return XKB_KEY_NoSymbol;
  uint32_t cp;
  const unsigned char *s = (const unsigned char *)name;
  if (len == 1 && s[0] < 0x80) cp = s[0];
  else if (len == 2 && (s[0] & 0xe0) == 0xc0) cp = ((s[0] & 0x1f) << 6) | (s[1] & 0x3f);
  else if (len == 3 && (s[0] & 0xf0) == 0xe0)
    cp = ((s[0] & 0x0f) << 12) | ((s[1] & 0x3f) << 6) | (s[2] & 0x3f);
  else if (len == 4 && (s[0] & 0xf8) == 0xf0)
    cp = ((s[0] & 0x07) << 18) | ((s[1] & 0x3f) << 12) | ((s[2] & 0x3f) << 6) | (s[3] & 0x3f);
  else return XKB_KEY_NoSymbol;
  return xkb_utf32_to_keysym(cp);
}

static xkb_keysym_t keysym_of_codepoint(uint32_t cp) {
  if (cp == '\n' || cp == '\r') return XKB_KEY_Return;
  if (cp == '\t') return XKB_KEY_Tab;
  return xkb_utf32_to_keysym(cp);
}

/* Gives the keyboard `text` as its keymap (through a memfd); 0 when that fails. */
static int upload_keymap(const char *text) {
  size_t size = strlen(text) + 1;
  int fd = memfd_create("axpage-keymap", MFD_CLOEXEC);
  if (fd < 0) return 0;
  if (write(fd, text, size) != (ssize_t)size) {
    close(fd);
    return 0;
  }
  zwp_virtual_keyboard_v1_keymap(keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, (uint32_t)size);
  close(fd);
  return 1;
}

/* The us keymap with every extra keysym on its spare key, compiled and uploaded. */
static int extend_keymap(void) {
  /* The symbols section ends at the last line-start "};" but one (the last ends the keymap). */
  char *end = NULL, *prev = NULL;
  for (char *p = strstr(base_keymap, "\n};"); p; p = strstr(p + 1, "\n};")) {
    prev = end;
    end = p;
  }
  if (!prev) return 0;
  size_t head = (size_t)(prev - base_keymap);
  size_t cap = strlen(base_keymap) + (size_t)extra_count * 96 + 1;
  char *text = malloc(cap);
  if (!text) return 0;
  memcpy(text, base_keymap, head);
  size_t at = head;
  for (int i = 0; i < extra_count; i++) {
    char sym[64];
    if (xkb_keysym_get_name(extra[i], sym, sizeof sym) < 0) {
      free(text);
      return 0;
    }
    at += (size_t)snprintf(text + at, cap - at, "\n\tkey <%s> { [ %s ] };",
                           xkb_keymap_key_get_name(keymap, spare[i]), sym);
  }
  snprintf(text + at, cap - at, "%s", prev);
  struct xkb_keymap *next = xkb_keymap_new_from_string(xkb, text, XKB_KEYMAP_FORMAT_TEXT_V1,
                                                       XKB_KEYMAP_COMPILE_NO_FLAGS);
  int ok = next && upload_keymap(text);
  free(text);
  if (!ok) {
    if (next) xkb_keymap_unref(next);
    return 0;
  }
  xkb_keymap_unref(keymap);
  keymap = next;
  return 1;
}

/*
 * The key and modifiers for `sym`: on the keymap as it is, else on a spare key the keymap is
 * extended with. 0 when neither can be (no spare key, or the keymap does not compile).
 */
static int key_for(xkb_keysym_t sym, xkb_keycode_t *code, xkb_mod_mask_t *mask) {
  if (find_key(sym, code, mask)) return 1;
  if (spare_count == 0) return 0;
  if (extra_count == spare_count) extra_count = 0; /* every spare key taken: start over */
  extra[extra_count++] = sym;
  if (!extend_keymap()) {
    extra_count--;
    return 0;
  }
  return find_key(sym, code, mask);
}

/* Presses and releases `code` with exactly `mods` held; then no modifier is held. */
static void tap(xkb_keycode_t code, xkb_mod_mask_t mods) {
  zwp_virtual_keyboard_v1_modifiers(keyboard, mods, 0, 0, 0);
  /* The protocol takes evdev codes: xkb keycodes are 8 more. */
  zwp_virtual_keyboard_v1_key(keyboard, now_ms(), code - 8, WL_KEYBOARD_KEY_STATE_PRESSED);
  zwp_virtual_keyboard_v1_key(keyboard, now_ms(), code - 8, WL_KEYBOARD_KEY_STATE_RELEASED);
  zwp_virtual_keyboard_v1_modifiers(keyboard, 0, 0, 0, 0);
}

static void motion(int x, int y) {
  zwlr_virtual_pointer_v1_motion_absolute(pointer, now_ms(), (uint32_t)x, (uint32_t)y, layout_w,
                                          layout_h);
  zwlr_virtual_pointer_v1_frame(pointer);
}

static void wheel(uint32_t axis, int steps) {
  int dir = steps < 0 ? -1 : 1;
  for (int i = 0; i < steps * dir; i++) {
    zwlr_virtual_pointer_v1_axis_source(pointer, WL_POINTER_AXIS_SOURCE_WHEEL);
    /* 15 units per step: what libinput reports for one wheel click. */
    zwlr_virtual_pointer_v1_axis_discrete(pointer, now_ms(), axis, wl_fixed_from_int(15 * dir),
                                          dir);
    zwlr_virtual_pointer_v1_frame(pointer);
  }
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes `hex` (UTF-8 as hex) into code points; returns their count, -1 when malformed. */
static long decode_text(const char *hex, uint32_t *out, size_t cap) {
  size_t n = strlen(hex);
  if (n % 2) return -1;
  unsigned char *bytes = malloc(n / 2 + 1);
  if (!bytes) return -1;
  for (size_t i = 0; i < n / 2; i++) {
    int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      free(bytes);
      return -1;
    }
    bytes[i] = (unsigned char)(hi << 4 | lo);
  }
  size_t count = 0, i = 0, len = n / 2;
  while (i < len && count < cap) {
    unsigned char c = bytes[i];
    int extra = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
    /* A lead byte with its continuation bytes inside the text. */
    if (extra < 0 || i + (size_t)extra >= len) {
      free(bytes);
      return -1;
    }
    uint32_t cp = extra == 0 ? c : extra == 1 ? c & 0x1f : extra == 2 ? c & 0x0f : c & 0x07;
    for (int k = 1; k <= extra; k++) {
      if ((bytes[i + k] & 0xc0) != 0x80) {
        free(bytes);
        return -1;
      }
      cp = cp << 6 | (bytes[i + k] & 0x3f);
    }
    out[count++] = cp;
    i += (size_t)extra + 1;
  }
  free(bytes);
  return i < len ? -1 : (long)count;
}

static int roundtrip(void) { return wl_display_roundtrip(display) >= 0; }

static void reply_ok(void) {
  if (!roundtrip()) fail("the compositor closed the connection");
  printf("ok\n");
  fflush(stdout);
}

static void reply_err(const char *fmt, const char *arg) {
  printf("err ");
  printf(fmt, arg);
  printf("\n");
  fflush(stdout);
}

static void run(char *line) {
  char cmd[16] = {0}, name[256] = {0};
  int a, b, c, d;
  unsigned mods;
  if (sscanf(line, "%15s", cmd) != 1) return reply_err("%sempty command", "");
  if (strcmp(cmd, "size") == 0 && sscanf(line, "size %d %d", &a, &b) == 2 && a > 0 && b > 0) {
    layout_w = (uint32_t)a;
    layout_h = (uint32_t)b;
    return reply_ok();
  }
  if (strcmp(cmd, "move") == 0 && sscanf(line, "move %d %d", &a, &b) == 2) {
    motion(a, b);
    return reply_ok();
  }
  if (strcmp(cmd, "button") == 0 && sscanf(line, "button %d %d", &a, &b) == 2) {
    zwlr_virtual_pointer_v1_button(pointer, now_ms(), (uint32_t)a,
                                   b ? WL_POINTER_BUTTON_STATE_PRESSED
                                     : WL_POINTER_BUTTON_STATE_RELEASED);
    zwlr_virtual_pointer_v1_frame(pointer);
    return reply_ok();
  }
  if (strcmp(cmd, "click") == 0 && sscanf(line, "click %d %d %d %d", &a, &b, &c, &d) == 4) {
    motion(a, b);
    for (int i = 0; i < d; i++) {
      zwlr_virtual_pointer_v1_button(pointer, now_ms(), (uint32_t)c, WL_POINTER_BUTTON_STATE_PRESSED);
      zwlr_virtual_pointer_v1_frame(pointer);
      zwlr_virtual_pointer_v1_button(pointer, now_ms(), (uint32_t)c, WL_POINTER_BUTTON_STATE_RELEASED);
      zwlr_virtual_pointer_v1_frame(pointer);
    }
    return reply_ok();
  }
  if (strcmp(cmd, "wheel") == 0 && sscanf(line, "wheel %d %d %d %d", &a, &b, &c, &d) == 4) {
    motion(a, b);
    wheel(WL_POINTER_AXIS_VERTICAL_SCROLL, d);
    wheel(WL_POINTER_AXIS_HORIZONTAL_SCROLL, c);
    return reply_ok();
  }
  if ((strcmp(cmd, "key") == 0 && sscanf(line, "key %255s %u", name, &mods) == 2) ||
      (strcmp(cmd, "knows") == 0 && sscanf(line, "knows %255s", name) == 1)) {
    xkb_keysym_t sym = keysym_of_name(name);
    if (sym == XKB_KEY_NoSymbol) return reply_err("unknown key name %s", name);
    xkb_keycode_t code;
    xkb_mod_mask_t need;
    if (cmd[1] == 'n') {
      if (!find_key(sym, &code, &need)) return reply_err("%s is not on the keymap", name);
      return reply_ok();
    }
    if (!key_for(sym, &code, &need)) return reply_err("no key can be given %s", name);
    tap(code, mods | need);
    return reply_ok();
  }
  if (strcmp(cmd, "type") == 0 && sscanf(line, "type %*s") == 0) {
    const char *hex = line + 5;
    size_t n = strcspn(hex, "\r\n");
    char *h = strndup(hex, n);
    uint32_t *cps = malloc(sizeof(uint32_t) * (n / 2 + 1));
    xkb_keycode_t *codes = malloc(sizeof(xkb_keycode_t) * (n / 2 + 1));
    xkb_mod_mask_t *masks = malloc(sizeof(xkb_mod_mask_t) * (n / 2 + 1));
    long count = h && cps && codes && masks ? decode_text(h, cps, n / 2 + 1) : -1;
    if (count < 0) {
      reply_err("%stext is not hex-encoded UTF-8", "");
    } else {
      long i;
      for (i = 0; i < count; i++) {
        if (keysym_of_codepoint(cps[i]) == XKB_KEY_NoSymbol) break;
      }
      if (i < count) {
        char at[32];
        snprintf(at, sizeof at, "U+%04X", cps[i]);
        reply_err("character %s has no keysym", at);
      } else {
        /* Each character's key is found (or made) just before it is typed: a keymap
         * extended for a later character keeps the earlier extra keys only while spare
         * keys last. */
        for (i = 0; i < count; i++) {
          if (!key_for(keysym_of_codepoint(cps[i]), &codes[i], &masks[i])) break;
          tap(codes[i], masks[i]);
        }
        if (i < count) {
          char at[32];
          snprintf(at, sizeof at, "U+%04X", cps[i]);
          reply_err("no key can be given character %s", at);
        } else {
          reply_ok();
        }
      }
    }
    free(h);
    free(cps);
    free(codes);
    free(masks);
    return;
  }
  reply_err("bad command: %s", cmd);
}

int main(int argc, char **argv) {
  int hold = argc > 1 && strcmp(argv[1], "--hold") == 0;
  display = wl_display_connect(NULL);
  if (!display) fail("cannot connect to the Wayland display (WAYLAND_DISPLAY)");
  struct wl_registry *registry = wl_display_get_registry(display);
  wl_registry_add_listener(registry, &registry_listener, NULL);
  if (!roundtrip()) fail("the compositor closed the connection");
  if (!seat) fail("the compositor offers no wl_seat");
  if (!pointer_manager) fail("the compositor offers no zwlr_virtual_pointer_manager_v1");
  if (!keyboard_manager) fail("the compositor offers no zwp_virtual_keyboard_manager_v1");
  xkb = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
  struct xkb_rule_names names = {"evdev", "pc105", "us", "", ""};
  keymap = xkb ? xkb_keymap_new_from_names(xkb, &names, XKB_KEYMAP_COMPILE_NO_FLAGS) : NULL;
  if (!keymap) fail("xkbcommon cannot build the evdev/pc105/us keymap (is xkb-data installed?)");
  base_keymap = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1);
  if (!base_keymap) fail("xkbcommon cannot write the keymap as text");
  for (xkb_keycode_t k = xkb_keymap_min_keycode(keymap);
       k <= xkb_keymap_max_keycode(keymap) && k < 256 && spare_count < MAX_SPARE; k++) {
    if (xkb_keymap_key_get_name(keymap, k) && xkb_keymap_num_layouts_for_key(keymap, k) == 0)
      spare[spare_count++] = k;
  }
  pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(pointer_manager, seat);
  keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(keyboard_manager, seat);
  if (!upload_keymap(base_keymap)) fail("cannot write the keymap to a memfd");
  if (!roundtrip()) fail("the compositor refused the virtual devices");
  printf("ready\n");
  fflush(stdout);
  if (hold) {
    while (wl_display_dispatch(display) != -1) {
    }
    return 0;
  }
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, stdin) > 0) run(line);
  free(line);
  zwlr_virtual_pointer_v1_destroy(pointer);
  zwp_virtual_keyboard_v1_destroy(keyboard);
  roundtrip();
  wl_display_disconnect(display);
  return 0;
}
