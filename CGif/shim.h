// giflib reports errors by return code (GIF_ERROR, then GifFileType.Error), so Swift can call it
// directly; this header only brings its declarations into the CGif module.
#include <gif_lib.h>
