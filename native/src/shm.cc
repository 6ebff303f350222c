#include "shm.h"

#include <sys/ipc.h>
#include <sys/shm.h>

#include "display.h"
#include "xerrors.h"

namespace axpage {

bool ShmSegment::Attach(Display* dpy, size_t bytes) {
  int id = shmget(IPC_PRIVATE, bytes, IPC_CREAT | 0600);
  if (id < 0) return false;
  void* addr = shmat(id, nullptr, 0);
  if (addr == reinterpret_cast<void*>(-1)) {
    shmctl(id, IPC_RMID, nullptr);
    return false;
  }
  shm_.shmid = id;
  shm_.shmaddr = static_cast<char*>(addr);
  shm_.readOnly = False;
  ClearErrors(dpy);
  Status ok = XShmAttach(dpy, &shm_);
  XSync(dpy, False);
  XErrorRecord rec;
  bool failed = !ok || TakeError(dpy, &rec);
  // Marked for removal now: the kernel frees it once both we and the server detach, so
  // no segment outlives the process even if it dies.
  shmctl(id, IPC_RMID, nullptr);
  if (failed) {
    shmdt(addr);
    return false;
  }
  attached_ = true;
  capacity_ = bytes;
  return true;
}

bool ShmSegment::ReadInto(Display* dpy, Window root, XImage* img, int x, int y,
                          uint8_t* out) {
  img->data = shm_.shmaddr;
  Status ok = XShmGetImage(dpy, root, img, x, y, AllPlanes);
  XErrorRecord rec;
  bool failed = !ok || TakeError(dpy, &rec);
  if (!failed) ConvertImage(img, out);
  img->data = nullptr;  // the segment is ours, not the image's
  XDestroyImage(img);
  return !failed;
}

void ShmSegment::Release(Display* dpy, bool dead) {
  if (!attached_) return;
  if (!dead) {
    XShmDetach(dpy, &shm_);
    XSync(dpy, False);
  }
  shmdt(shm_.shmaddr);
  attached_ = false;
  capacity_ = 0;
}

}  // namespace axpage
