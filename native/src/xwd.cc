// XWD layout: a header of 25 big-endian CARD32 fields (100 bytes) followed by the window
// name up to header_size, then ncolors 12-byte colormap entries, then the pixel rows,
// bytes_per_line apart. `xwd -root` on Xvfb writes packed 24 bpp pixels in 32-bit-padded
// rows, and the -fbdir file is 32 bpp: the pixel step comes from bits_per_pixel and the
// row step from bytes_per_line, never one from the other.
#include "xwd.h"

#include <climits>
#include <cstdint>
#include <string>

#include "args.h"
#include "capture-args.h"
#include "pixels.h"

namespace axpage {
namespace {

enum Field {
  kHeaderSize = 0,
  kFileVersion = 1,
  kPixmapFormat = 2,
  kPixmapDepth = 3,
  kWidth = 4,
  kHeight = 5,
  kByteOrder = 7,
  kBitsPerPixel = 11,
  kBytesPerLine = 12,
  kVisualClass = 13,
  kRedMask = 14,
  kGreenMask = 15,
  kBlueMask = 16,
  kNcolors = 19,
  kFieldCount = 25,
};

struct Xwd {
  uint32_t f[kFieldCount];
  std::string name;
  uint64_t dataOffset = 0;
  PixelLayout layout;
  const uint8_t* data = nullptr;
};

uint32_t Be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Validates everything a decode relies on; the error says what is wrong.
bool Parse(const uint8_t* buf, size_t len, Xwd* x, std::string* err) {
  const size_t kHeaderBytes = kFieldCount * 4;
  if (len < kHeaderBytes) {
    *err = "XWD buffer is " + std::to_string(len) + " bytes: too short for the " +
           std::to_string(kHeaderBytes) + "-byte header";
    return false;
  }
  for (int i = 0; i < kFieldCount; i++) x->f[i] = Be32(buf + 4 * i);
  const uint32_t* f = x->f;
  if (f[kFileVersion] != 7) {
    *err = "not an XWD version 7 image (file_version " + std::to_string(f[kFileVersion]) + ")";
    return false;
  }
  if (f[kHeaderSize] < kHeaderBytes || f[kHeaderSize] > len) {
    *err = "XWD header_size " + std::to_string(f[kHeaderSize]) + " is invalid (buffer " +
           std::to_string(len) + " bytes)";
    return false;
  }
  if (f[kPixmapFormat] != 2) {
    *err = "XWD pixmap_format " + std::to_string(f[kPixmapFormat]) + " is not ZPixmap (2)";
    return false;
  }
  if (f[kWidth] == 0 || f[kHeight] == 0 || f[kWidth] > 65535 || f[kHeight] > 65535) {
    *err = "XWD size " + std::to_string(f[kWidth]) + "x" + std::to_string(f[kHeight]) +
           " is invalid";
    return false;
  }
  if ((f[kVisualClass] != 4 && f[kVisualClass] != 5) ||
      !LayoutFromMasks(static_cast<int>(f[kBitsPerPixel]), f[kByteOrder] == 1, f[kRedMask],
                       f[kGreenMask], f[kBlueMask], &x->layout)) {
    char buf2[160];
    snprintf(buf2, sizeof buf2,
             "unsupported XWD pixel format: visual class %u, bits_per_pixel %u, masks "
             "0x%x/0x%x/0x%x (need TrueColor, 24 or 32 bpp, 8-bit channels)",
             f[kVisualClass], f[kBitsPerPixel], f[kRedMask], f[kGreenMask], f[kBlueMask]);
    *err = buf2;
    return false;
  }
  uint64_t rowBytes = uint64_t{f[kWidth]} * x->layout.bytesPerPixel;
  if (f[kBytesPerLine] < rowBytes) {
    *err = "XWD bytes_per_line " + std::to_string(f[kBytesPerLine]) + " is less than width × " +
           std::to_string(x->layout.bytesPerPixel) + " bytes";
    return false;
  }
  if (f[kNcolors] > 65536) {
    *err = "XWD ncolors " + std::to_string(f[kNcolors]) + " is invalid";
    return false;
  }
  x->dataOffset = uint64_t{f[kHeaderSize]} + uint64_t{f[kNcolors]} * 12;
  uint64_t need = x->dataOffset + uint64_t{f[kBytesPerLine]} * (f[kHeight] - 1) + rowBytes;
  if (need > len) {
    *err = "XWD buffer is truncated: the " + std::to_string(f[kWidth]) + "x" +
           std::to_string(f[kHeight]) + " image needs " + std::to_string(need) +
           " bytes, the buffer has " + std::to_string(len);
    return false;
  }
  const char* name = reinterpret_cast<const char*>(buf + kHeaderBytes);
  size_t maxName = f[kHeaderSize] - kHeaderBytes;
  size_t n = 0;
  while (n < maxName && name[n] != '\0') n++;
  x->name.assign(name, n);
  x->data = buf + x->dataOffset;
  return true;
}

Xwd ParseArg(const Napi::CallbackInfo& info, const char* fn) {
  Napi::Value v = info[0];
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    throw Napi::TypeError::New(info.Env(), std::string(fn) +
                                               ": buffer must be a Buffer or Uint8Array, got " +
                                               Describe(v));
  }
  Napi::Uint8Array arr = v.As<Napi::Uint8Array>();
  Xwd x;
  std::string err;
  if (!Parse(arr.Data(), arr.ByteLength(), &x, &err)) {
    Napi::Error e = CodedError(info.Env(), "XWD_INVALID", std::string(fn) + ": " + err);
    throw e;
  }
  return x;
}

}  // namespace

Napi::Value DecodeXwd(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* fn = "decodeXwd(buffer, x, y, w, h)";
  Xwd x = ParseArg(info, fn);
  int width = static_cast<int>(x.f[kWidth]), height = static_cast<int>(x.f[kHeight]);
  CaptureRect want{0, 0, width, height};
  if (info.Length() > 1 && !info[1].IsUndefined()) want = RectArgs(info, 1, fn);
  ClippedRect r;
  if (!ClipToBounds(want.x, want.y, want.w, want.h, width, height, &r)) {
    throw Napi::RangeError::New(env, OutsideMessage("decodeXwd", want, width, height, "image"));
  }
  Napi::Buffer<uint8_t> data =
      Napi::Buffer<uint8_t>::New(env, static_cast<size_t>(r.w) * static_cast<size_t>(r.h) * 3);
  ConvertToRgb(x.data, x.f[kBytesPerLine], x.layout, r.x, r.y, r.w, r.h, data.Data());
  Napi::Object o = Napi::Object::New(env);
  o.Set("x", Napi::Number::New(env, r.x));
  o.Set("y", Napi::Number::New(env, r.y));
  o.Set("width", Napi::Number::New(env, r.w));
  o.Set("height", Napi::Number::New(env, r.h));
  o.Set("data", data);
  return o;
}

Napi::Value XwdInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Xwd x = ParseArg(info, "xwdInfo(buffer)");
  Napi::Object o = Napi::Object::New(env);
  o.Set("width", Napi::Number::New(env, x.f[kWidth]));
  o.Set("height", Napi::Number::New(env, x.f[kHeight]));
  o.Set("depth", Napi::Number::New(env, x.f[kPixmapDepth]));
  o.Set("bitsPerPixel", Napi::Number::New(env, x.f[kBitsPerPixel]));
  o.Set("bytesPerLine", Napi::Number::New(env, x.f[kBytesPerLine]));
  o.Set("dataOffset", Napi::Number::New(env, static_cast<double>(x.dataOffset)));
  o.Set("byteLength", Napi::Number::New(env, static_cast<double>(x.dataOffset) +
                                                 static_cast<double>(x.f[kBytesPerLine]) * x.f[kHeight]));
  o.Set("name", Napi::String::New(env, x.name));
  return o;
}

}  // namespace axpage
