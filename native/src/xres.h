// X-Resource, spoken raw (libxcb-res is not a build dependency): QueryClientIds (minor 4,
// version 1.2) with the PID mask answers the pid of the client that created a window, as
// the server learnt it from the local socket. Shared by the window listings and the
// capture that lists the stack under a server grab.
#pragma once

#include <xcb/xcb.h>

#include <cstdint>

namespace axpage {

// Whether the server has X-Resource 1.2 (client pids): one round trip.
bool HasClientPids(xcb_connection_t* c);
// Sends QueryClientIds for the client that created `window`; its sequence number.
unsigned int AskClientPid(xcb_connection_t* c, uint32_t window);
// The pid in the reply to AskClientPid; false when the server does not know it.
bool TakeClientPid(xcb_connection_t* c, unsigned int seq, uint32_t* pid);

}  // namespace axpage
