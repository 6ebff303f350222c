#include "xres.h"

#include <sys/uio.h>
#include <xcb/xcbext.h>

#include <cstdlib>
#include <cstring>

namespace axpage {
namespace {

xcb_extension_t kXRes = {"X-Resource", 0};
constexpr uint8_t kXResQueryVersion = 0;
constexpr uint8_t kXResQueryClientIds = 4;
constexpr uint32_t kXResClientPidMask = 2;

}  // namespace

bool HasClientPids(xcb_connection_t* c) {
  const xcb_query_extension_reply_t* ext = xcb_get_extension_data(c, &kXRes);
  if (!ext || !ext->present) return false;
  struct {
    uint8_t major, minor;
    uint16_t length;
    uint8_t clientMajor, clientMinor, pad[2];
  } req = {0, kXResQueryVersion, 0, 1, 2, {0, 0}};
  static const xcb_protocol_request_t kReq = {2, &kXRes, kXResQueryVersion, 0};
  iovec parts[4] = {};
  parts[2] = {&req, sizeof req};
  parts[3] = {nullptr, 0};
  unsigned int seq = xcb_send_request(c, XCB_REQUEST_CHECKED, parts + 2, &kReq);
  xcb_generic_error_t* err = nullptr;
  auto* reply = static_cast<uint8_t*>(xcb_wait_for_reply(c, seq, &err));
  std::free(err);
  if (!reply) return false;
  uint16_t major, minor;
  std::memcpy(&major, reply + 8, 2);
  std::memcpy(&minor, reply + 10, 2);
  std::free(reply);
  return major > 1 || (major == 1 && minor >= 2);
}

unsigned int AskClientPid(xcb_connection_t* c, uint32_t window) {
  struct {
    uint8_t major, minor;
    uint16_t length;
    uint32_t numSpecs, client, mask;
  } req = {0, kXResQueryClientIds, 0, 1, window, kXResClientPidMask};
  static const xcb_protocol_request_t kReq = {2, &kXRes, kXResQueryClientIds, 0};
  iovec parts[4] = {};
  parts[2] = {&req, sizeof req};
  parts[3] = {nullptr, 0};
  return xcb_send_request(c, XCB_REQUEST_CHECKED, parts + 2, &kReq);
}

// The pid in a QueryClientIds reply (32-byte header, then spec, length, value per id).
bool TakeClientPid(xcb_connection_t* c, unsigned int seq, uint32_t* pid) {
  xcb_generic_error_t* err = nullptr;
  auto* reply = static_cast<uint8_t*>(xcb_wait_for_reply(c, seq, &err));
  std::free(err);  // BadWindow and the like: no pid, as without the property
  if (!reply) return false;
  uint32_t length, count;
  std::memcpy(&length, reply + 4, 4);
  std::memcpy(&count, reply + 8, 4);
  const size_t size = 32 + size_t{length} * 4;
  bool found = false;
  for (size_t at = 32; count > 0 && at + 12 <= size; count--) {
    uint32_t mask, bytes;
    std::memcpy(&mask, reply + at + 4, 4);
    std::memcpy(&bytes, reply + at + 8, 4);
    if ((mask & kXResClientPidMask) && bytes == 4 && at + 16 <= size) {
      std::memcpy(pid, reply + at + 12, 4);
      found = *pid != 0 && *pid != 0xffffffffu;
      break;
    }
    at += 12 + bytes;
  }
  std::free(reply);
  return found;
}

}  // namespace axpage
