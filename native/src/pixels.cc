#include "pixels.h"

namespace axpage {
namespace {

int ByteIndex(unsigned long mask, int bytesPerPixel, bool msbFirst) {
  for (int k = 0; k < bytesPerPixel; k++) {
    if (mask == (0xffUL << (8 * k))) return msbFirst ? bytesPerPixel - 1 - k : k;
  }
  return -1;
}

// The layouts known at compile time let the compiler unroll and vectorize the inner
// loop: BGRX (Xvfb, every little-endian X server) runs at memory speed.
template <int BPP, int R, int G, int B>
void ConvertFixed(const uint8_t* base, size_t bpl, int x, int y, int w, int h, uint8_t* out) {
  for (int row = 0; row < h; row++) {
    const uint8_t* s = base + static_cast<size_t>(y + row) * bpl + static_cast<size_t>(x) * BPP;
    uint8_t* d = out + static_cast<size_t>(row) * w * 3;
    for (int col = 0; col < w; col++, s += BPP, d += 3) {
      d[0] = s[R];
      d[1] = s[G];
      d[2] = s[B];
    }
  }
}

}  // namespace

bool LayoutFromMasks(int bitsPerPixel, bool msbFirst, unsigned long redMask,
                     unsigned long greenMask, unsigned long blueMask, PixelLayout* out) {
  if (bitsPerPixel != 24 && bitsPerPixel != 32) return false;
  PixelLayout l;
  l.bytesPerPixel = bitsPerPixel / 8;
  l.r = ByteIndex(redMask, l.bytesPerPixel, msbFirst);
  l.g = ByteIndex(greenMask, l.bytesPerPixel, msbFirst);
  l.b = ByteIndex(blueMask, l.bytesPerPixel, msbFirst);
  if (l.r < 0 || l.g < 0 || l.b < 0 || l.r == l.g || l.g == l.b || l.r == l.b) return false;
  *out = l;
  return true;
}

void ConvertToRgb(const uint8_t* base, size_t bpl, const PixelLayout& l, int x, int y, int w,
                  int h, uint8_t* out) {
  if (l.bytesPerPixel == 4 && l.r == 2 && l.g == 1 && l.b == 0) {
    return ConvertFixed<4, 2, 1, 0>(base, bpl, x, y, w, h, out);
  }
  if (l.bytesPerPixel == 3 && l.r == 2 && l.g == 1 && l.b == 0) {
    return ConvertFixed<3, 2, 1, 0>(base, bpl, x, y, w, h, out);
  }
  if (l.bytesPerPixel == 4 && l.r == 1 && l.g == 2 && l.b == 3) {
    return ConvertFixed<4, 1, 2, 3>(base, bpl, x, y, w, h, out);
  }
  const size_t step = static_cast<size_t>(l.bytesPerPixel);
  for (int row = 0; row < h; row++) {
    const uint8_t* s = base + static_cast<size_t>(y + row) * bpl + static_cast<size_t>(x) * step;
    uint8_t* d = out + static_cast<size_t>(row) * w * 3;
    for (int col = 0; col < w; col++, s += step, d += 3) {
      d[0] = s[l.r];
      d[1] = s[l.g];
      d[2] = s[l.b];
    }
  }
}

}  // namespace axpage
