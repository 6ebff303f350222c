// Whether another client holds the keyboard or the pointer grabbed. X has no request that
// tells; a grab attempt does: AlreadyGrabbed (or GrabFrozen) means someone else holds the
// device, and while they do every key or click we send goes to them, whatever window is
// in front (a password prompt grabs the keyboard so that its passphrase reaches it alone).
// A grab that succeeds is released at once. Each is attempted on the window that already
// has the device (the keyboard focus, the deepest window under the pointer): the server
// sends focus and crossing events only when a grab moves the device to another window,
// so the check is seen by no client. A grab held while the topmost window is an app's popup
// (its open menu) is that app's own: reported with the popup's pid.
#include "grab.h"

#include <X11/Xatom.h>
#include <X11/Xlib.h>

#include <string>

#include "display.h"
#include "xerrors.h"

namespace axpage {
namespace {

bool Held(int status) { return status == AlreadyGrabbed || status == GrabFrozen; }

// Where an attempt falls back to when the window it tried failed (gone, unmapped).
Window Root(Display* dpy) { return DefaultRootWindow(dpy); }

// True when another client holds the keyboard.
bool KeyboardHeld(Display* dpy) {
  Window focus = None;
  int revert = 0;
  XGetInputFocus(dpy, &focus, &revert);
  // None and PointerRoot are no windows: grab on the root then.
  Window first = focus == None || focus == PointerRoot ? Root(dpy) : focus;
  for (Window w : {first, Root(dpy)}) {
    ClearErrors(dpy);
    int status = XGrabKeyboard(dpy, w, False, GrabModeAsync, GrabModeAsync, CurrentTime);
    XErrorRecord rec;
    // Xlib answers GrabSuccess when the request failed with an error (the focus window gone).
    bool failed = TakeError(dpy, &rec);
    if (!failed && Held(status)) return true;
    if (!failed && status == GrabSuccess) {
      XUngrabKeyboard(dpy, CurrentTime);
      XSync(dpy, False);
      return false;
    }
  }
  return false;
}

// The deepest window under the pointer: where the server's pointer is.
Window WindowUnderPointer(Display* dpy) {
  Window w = Root(dpy);
  for (int depth = 0; depth < 64; depth++) {
    Window root, child = None;
    int rx, ry, wx, wy;
    unsigned mask;
    if (!XQueryPointer(dpy, w, &root, &child, &rx, &ry, &wx, &wy, &mask) || child == None) break;
    w = child;
  }
  return w;
}

bool PointerHeld(Display* dpy) {
  for (Window w : {WindowUnderPointer(dpy), Root(dpy)}) {
    ClearErrors(dpy);
    int status = XGrabPointer(dpy, w, False, 0, GrabModeAsync, GrabModeAsync, None, None,
                              CurrentTime);
    XErrorRecord rec;
    bool failed = TakeError(dpy, &rec);
    if (!failed && Held(status)) return true;
    if (!failed && status == GrabSuccess) {
      XUngrabPointer(dpy, CurrentTime);
      XSync(dpy, False);
      return false;
    }
  }
  return false;
}

// The _NET_WM_PID of the topmost viewable window when it is a popup (override-redirect):
// a menu open in an app holds the keyboard and pointer itself; 0 when the top is no popup
// or says no pid.
long TopPopupPid(Display* dpy) {
  Window root, parent, *children = nullptr;
  unsigned n = 0;
  if (!XQueryTree(dpy, Root(dpy), &root, &parent, &children, &n)) return 0;
  long pid = 0;
  for (unsigned i = n; i-- > 0;) {  // bottom to top: the last viewable one is on top
    XWindowAttributes wa;
    ClearErrors(dpy);
    if (!XGetWindowAttributes(dpy, children[i], &wa) || wa.map_state != IsViewable) continue;
    if (!wa.override_redirect) break;
    Atom type;
    int format;
    unsigned long count, after;
    unsigned char* data = nullptr;
    Atom prop = XInternAtom(dpy, "_NET_WM_PID", False);
    if (XGetWindowProperty(dpy, children[i], prop, 0, 1, False, XA_CARDINAL, &type, &format,
                           &count, &after, &data) == Success &&
        data && format == 32 && count == 1) {
      pid = static_cast<long>(*reinterpret_cast<unsigned long*>(data));
    }
    if (data) XFree(data);
    break;
  }
  if (children) XFree(children);
  XErrorRecord rec;
  TakeError(dpy, &rec);  // a window gone meanwhile
  return pid;
}

}  // namespace

Napi::Value InputGrabs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string name;
  Display* dpy = OpenNamedDisplay(info, "inputGrabs", &name);
  bool keyboard = KeyboardHeld(dpy);
  bool pointer = PointerHeld(dpy);
  long popupPid = keyboard || pointer ? TopPopupPid(dpy) : 0;
  UntrackDisplay(dpy);
  XCloseDisplay(dpy);
  Napi::Object o = Napi::Object::New(env);
  o.Set("keyboard", Napi::Boolean::New(env, keyboard));
  o.Set("pointer", Napi::Boolean::New(env, pointer));
  if (popupPid > 0) o.Set("popupPid", Napi::Number::New(env, static_cast<double>(popupPid)));
  else o.Set("popupPid", env.Null());
  return o;
}

}  // namespace axpage
