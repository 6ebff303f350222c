// Packed-pixel → tightly packed RGB conversion, shared by the X capture paths and the
// XWD (Xvfb -fbdir) decoder.
#pragma once

#include <cstddef>
#include <cstdint>

namespace axpage {

// Where the red, green and blue bytes sit inside one pixel.
struct PixelLayout {
  int bytesPerPixel = 0;
  int r = 0, g = 0, b = 0;
};

// Derives the layout from the visual's masks. Only byte-aligned 8-bit channels in 24 or
// 32 bits per pixel are supported (every TrueColor depth-24 visual in practice); returns
// false otherwise. msbFirst is the image byte order (X's MSBFirst).
bool LayoutFromMasks(int bitsPerPixel, bool msbFirst, unsigned long redMask,
                     unsigned long greenMask, unsigned long blueMask, PixelLayout* out);

// Converts the w×h region at (x, y) of an image whose rows start bytesPerLine apart into
// RGB (3 bytes per pixel, no padding) at out.
void ConvertToRgb(const uint8_t* base, size_t bytesPerLine, const PixelLayout& layout, int x,
                  int y, int w, int h, uint8_t* out);

}  // namespace axpage

namespace axpage {

struct ClippedRect {
  int x = 0, y = 0, w = 0, h = 0;
};

// Intersects the rect with [0, width) × [0, height). False when nothing is left.
inline bool ClipToBounds(long long x, long long y, long long w, long long h, int width,
                         int height, ClippedRect* out) {
  long long x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
  long long x1 = x + w > width ? width : x + w, y1 = y + h > height ? height : y + h;
  if (x1 <= x0 || y1 <= y0) return false;
  out->x = static_cast<int>(x0);
  out->y = static_cast<int>(y0);
  out->w = static_cast<int>(x1 - x0);
  out->h = static_cast<int>(y1 - y0);
  return true;
}

}  // namespace axpage
