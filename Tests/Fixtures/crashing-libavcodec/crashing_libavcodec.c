// A stand-in libavcodec for the video isolation tests (loaded through IMGTOOL_LIBAVCODEC): it is
// linked against the real libavcodec.so.59, so dlsym finds every other function through this
// library's dependency, and its avcodec_receive_frame calls the real one but dies of SIGSEGV on
// the third frame, as a decoder bug would, after two frames have been handed over.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>

struct AVCodecContext;
struct AVFrame;

int avcodec_receive_frame(struct AVCodecContext *context, struct AVFrame *frame) {
    static int (*real)(struct AVCodecContext *, struct AVFrame *);
    static int frames;
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "avcodec_receive_frame");
    if (!real) raise(SIGABRT);
    int status = real(context, frame);
    if (status == 0 && ++frames == 3) raise(SIGSEGV);
    return status;
}
