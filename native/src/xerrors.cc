#include "xerrors.h"

#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace axpage {
namespace {

// Keyed by Display*: several displays (or worker threads) may be open at once, and the
// handler is process-wide.
std::mutex g_mutex;
std::unordered_map<Display*, XErrorRecord>& Records() {
  static auto* records = new std::unordered_map<Display*, XErrorRecord>();
  return *records;
}

int OnError(Display* dpy, XErrorEvent* ev) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = Records().find(dpy);
  if (it == Records().end()) return 0;  // not ours: ignore rather than exit
  XErrorRecord& rec = it->second;
  if (rec.count++ == 0) {
    rec.errorCode = ev->error_code;
    rec.requestCode = ev->request_code;
    rec.minorCode = ev->minor_code;
    rec.resourceId = ev->resourceid;
  }
  return 0;
}

// Called first on an IO error; Xlib then calls the display's IO exit handler, which is
// where the display gets marked dead. Returning here is what keeps the process alive.
int OnIOError(Display*) { return 0; }

}  // namespace

void InstallErrorHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    XSetErrorHandler(OnError);
    XSetIOErrorHandler(OnIOError);
  });
}

void TrackDisplay(Display* dpy) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Records()[dpy] = XErrorRecord{};
}

void UntrackDisplay(Display* dpy) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Records().erase(dpy);
}

void ClearErrors(Display* dpy) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = Records().find(dpy);
  if (it != Records().end()) it->second = XErrorRecord{};
}

bool TakeError(Display* dpy, XErrorRecord* out) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = Records().find(dpy);
  if (it == Records().end() || it->second.count == 0) return false;
  *out = it->second;
  it->second = XErrorRecord{};
  return true;
}

std::string DescribeError(Display* dpy, const XErrorRecord& rec) {
  char text[256] = {0};
  XGetErrorText(dpy, rec.errorCode, text, sizeof text);
  char request[128] = {0};
  if (rec.requestCode < 128) {
    char key[16];
    std::snprintf(key, sizeof key, "%u", rec.requestCode);
    XGetErrorDatabaseText(dpy, "XRequest", key, "", request, sizeof request);
  }
  char buf[512];
  if (request[0] != '\0') {
    std::snprintf(buf, sizeof buf, "%s in %s, resource 0x%lx", text, request, rec.resourceId);
  } else {
    std::snprintf(buf, sizeof buf, "%s in request %u.%u, resource 0x%lx", text, rec.requestCode,
                  rec.minorCode, rec.resourceId);
  }
  std::string out(buf);
  if (rec.count > 1) out += " (+" + std::to_string(rec.count - 1) + " more)";
  return out;
}

}  // namespace axpage
