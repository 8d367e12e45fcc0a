#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

// libjpeg reports a fatal error by calling `error_exit`, which must not return: this one keeps
// the library's message and jumps back to the decoder, which lives here in C because Swift
// cannot be unwound by longjmp.
struct geopipe_jpeg_error {
  struct jpeg_error_mgr base;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

static inline void geopipe_jpeg_error_exit(j_common_ptr info) {
  struct geopipe_jpeg_error *error = (struct geopipe_jpeg_error *)info->err;
  (*info->err->format_message)(info, error->message);
  longjmp(error->jump, 1);
}

static inline void geopipe_jpeg_emit_message(j_common_ptr info, int level) {
  (void)info;
  (void)level;
}

// Decodes a JPEG into 8-bit B, G, R, A pixels (A = 255), rows of 4 * width bytes, in a buffer
// the caller frees with free(). Returns NULL with libjpeg's message in `message` when the data
// is not a JPEG it can decode, or when a side is larger than `max_side`.
static inline unsigned char *geopipe_jpeg_decode(
    const unsigned char *data, unsigned long size, int max_side, int *width, int *height,
    char *message, size_t message_size) {
  struct jpeg_decompress_struct info;
  struct geopipe_jpeg_error error;
  unsigned char *volatile pixels = NULL;
  memset(&info, 0, sizeof info);
  info.err = jpeg_std_error(&error.base);
  error.base.error_exit = geopipe_jpeg_error_exit;
  error.base.emit_message = geopipe_jpeg_emit_message;
  error.message[0] = 0;
  if (setjmp(error.jump)) {
    jpeg_destroy_decompress(&info);
    free(pixels);
    snprintf(message, message_size, "%s", error.message);
    return NULL;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, data, size);
  jpeg_read_header(&info, TRUE);
  info.out_color_space = JCS_EXT_BGRA;
  jpeg_start_decompress(&info);
  if ((int)info.output_width > max_side || (int)info.output_height > max_side) {
    snprintf(message, message_size, "the image is %ux%u pixels, larger than %dx%d",
             info.output_width, info.output_height, max_side, max_side);
    jpeg_destroy_decompress(&info);
    return NULL;
  }
  size_t stride = (size_t)info.output_width * 4;
  pixels = malloc(stride * info.output_height);
  if (pixels == NULL) {
    snprintf(message, message_size, "out of memory");
    jpeg_destroy_decompress(&info);
    return NULL;
  }
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = pixels + stride * info.output_scanline;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  *width = (int)info.output_width;
  *height = (int)info.output_height;
  jpeg_destroy_decompress(&info);
  return pixels;
}
