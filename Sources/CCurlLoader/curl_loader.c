// The libcurl functions FoundationNetworking calls (`nm -u lib_CFURLSessionInterface.a | grep curl_`),
// each loading libcurl.so.4 on first use and forwarding to it. See include/CCurlLoader.h.
//
// The types are declared here rather than taken from <curl/curl.h>, which a debug build does not
// need installed: handles are opaque pointers, enums are ints, curl_off_t is 64 bits (LP64), and
// the three variadic setters pass exactly one argument whose type the option number gives, as in
// libcurl's own implementation. Every definition is hidden: it satisfies FoundationNetworking's
// references in this executable and is never offered to libcurl or any other library.
#include "CCurlLoader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#define HIDDEN __attribute__((visibility("hidden")))

typedef void CURL;
typedef void CURLM;
typedef void CURLU;
typedef int CURLcode;
typedef int CURLMcode;
typedef int CURLUcode;
typedef int curl_socket_t;
typedef int64_t curl_off_t;
typedef void (*curl_function)(void);

// What the stubs return when libcurl cannot be loaded.
enum { CURLE_FAILED_INIT = 2, CURLM_INTERNAL_ERROR = 4, CURLUE_BAD_HANDLE = 1 };

// The option number's range says what type its one argument has (curl.h's CURLOPTTYPE_* and
// CURLMOPTTYPE_*: long, object pointer, function pointer, curl_off_t, blob pointer).
enum { OPTION_OBJECT = 10000, OPTION_FUNCTION = 20000, OPTION_OFF_T = 30000, OPTION_BLOB = 40000 };

// X(name, return type, parameters): every function forwarded, variadic ones with their fixed part.
#define CURL_FUNCTIONS(X)                                                                        \
    X(curl_global_init, CURLcode, (long flags))                                                  \
    X(curl_easy_init, CURL *, (void))                                                            \
    X(curl_easy_cleanup, void, (CURL * handle))                                                  \
    X(curl_easy_setopt, CURLcode, (CURL * handle, int option, ...))                              \
    X(curl_easy_getinfo, CURLcode, (CURL * handle, int info, ...))                               \
    X(curl_easy_pause, CURLcode, (CURL * handle, int bitmask))                                   \
    X(curl_easy_strerror, const char *, (CURLcode code))                                         \
    X(curl_free, void, (void *pointer))                                                          \
    X(curl_multi_init, CURLM *, (void))                                                          \
    X(curl_multi_cleanup, CURLMcode, (CURLM * multi))                                            \
    X(curl_multi_add_handle, CURLMcode, (CURLM * multi, CURL *handle))                           \
    X(curl_multi_remove_handle, CURLMcode, (CURLM * multi, CURL *handle))                        \
    X(curl_multi_assign, CURLMcode, (CURLM * multi, curl_socket_t socket, void *pointer))        \
    X(curl_multi_info_read, void *, (CURLM * multi, int *queued))                                \
    X(curl_multi_setopt, CURLMcode, (CURLM * multi, int option, ...))                            \
    X(curl_multi_socket_action, CURLMcode, (CURLM * multi, curl_socket_t socket, int events, int *running)) \
    X(curl_slist_append, void *, (void *list, const char *text))                                 \
    X(curl_slist_free_all, void, (void *list))                                                   \
    X(curl_url, CURLU *, (void))                                                                 \
    X(curl_url_get, CURLUcode, (const CURLU *url, int part, char **value, unsigned int flags))  \
    X(curl_url_set, CURLUcode, (CURLU * url, int part, const char *value, unsigned int flags))  \
    X(curl_version, char *, (void))                                                              \
    X(curl_version_info, void *, (int age))

#define DECLARE_POINTER(name, result, parameters) result(*name) parameters;
static struct {
    CURL_FUNCTIONS(DECLARE_POINTER)
} real;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_succeeded;
static char load_error[512];

static void load_library(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libcurl.so.4 (install libcurl4): %s",
                 reason ? reason : "unknown error");
        return;
    }
#define RESOLVE(name, result, parameters)                                                        \
    *(void **)&real.name = dlsym(library, #name);                                                \
    if (real.name == NULL) {                                                                     \
        snprintf(load_error, sizeof load_error, "libcurl.so.4 has no %s (libcurl too old?)", #name); \
        return;                                                                                  \
    }
    CURL_FUNCTIONS(RESOLVE)
#undef RESOLVE
    load_succeeded = 1;
}

static int loaded(void) {
    pthread_once(&load_once, load_library);
    return load_succeeded;
}

int imgtool_curl_load(const char **error) {
    int ok = loaded();
    if (!ok && error) *error = load_error;
    return ok;
}

// Non-variadic functions: forward, or return the failure value when libcurl is missing.
#define FORWARD(name, result, parameters, arguments, fallback)                                   \
    HIDDEN result name parameters { return loaded() ? real.name arguments : fallback; }
#define FORWARD_VOID(name, parameters, arguments)                                                \
    HIDDEN void name parameters {                                                                \
        if (loaded()) real.name arguments;                                                       \
    }

FORWARD(curl_global_init, CURLcode, (long flags), (flags), CURLE_FAILED_INIT)
FORWARD(curl_easy_init, CURL *, (void), (), NULL)
FORWARD_VOID(curl_easy_cleanup, (CURL * handle), (handle))
FORWARD(curl_easy_pause, CURLcode, (CURL * handle, int bitmask), (handle, bitmask), CURLE_FAILED_INIT)
FORWARD(curl_easy_strerror, const char *, (CURLcode code), (code), load_error)
FORWARD_VOID(curl_free, (void *pointer), (pointer))
FORWARD(curl_multi_init, CURLM *, (void), (), NULL)
FORWARD(curl_multi_cleanup, CURLMcode, (CURLM * multi), (multi), CURLM_INTERNAL_ERROR)
FORWARD(curl_multi_add_handle, CURLMcode, (CURLM * multi, CURL *handle), (multi, handle), CURLM_INTERNAL_ERROR)
FORWARD(curl_multi_remove_handle, CURLMcode, (CURLM * multi, CURL *handle), (multi, handle),
        CURLM_INTERNAL_ERROR)
FORWARD(curl_multi_assign, CURLMcode, (CURLM * multi, curl_socket_t socket, void *pointer),
        (multi, socket, pointer), CURLM_INTERNAL_ERROR)
FORWARD(curl_multi_info_read, void *, (CURLM * multi, int *queued), (multi, queued), NULL)
FORWARD(curl_multi_socket_action, CURLMcode, (CURLM * multi, curl_socket_t socket, int events, int *running),
        (multi, socket, events, running), CURLM_INTERNAL_ERROR)
FORWARD(curl_slist_append, void *, (void *list, const char *text), (list, text), NULL)
FORWARD_VOID(curl_slist_free_all, (void *list), (list))
FORWARD(curl_url, CURLU *, (void), (), NULL)
FORWARD(curl_url_get, CURLUcode, (const CURLU *url, int part, char **value, unsigned int flags),
        (url, part, value, flags), CURLUE_BAD_HANDLE)
FORWARD(curl_url_set, CURLUcode, (CURLU * url, int part, const char *value, unsigned int flags),
        (url, part, value, flags), CURLUE_BAD_HANDLE)
FORWARD(curl_version, char *, (void), (), load_error)
FORWARD(curl_version_info, void *, (int age), (age), NULL)

// The setters: read the one argument with the type its option number gives and pass it on.
typedef int (*setter)(void *handle, int option, ...);

static int forward_option(setter function, void *handle, int option, va_list *arguments) {
    if (option < OPTION_OBJECT) return function(handle, option, va_arg(*arguments, long));
    if (option < OPTION_FUNCTION) return function(handle, option, va_arg(*arguments, void *));
    if (option < OPTION_OFF_T) return function(handle, option, va_arg(*arguments, curl_function));
    if (option < OPTION_BLOB) return function(handle, option, va_arg(*arguments, curl_off_t));
    return function(handle, option, va_arg(*arguments, void *));
}

HIDDEN CURLcode curl_easy_setopt(CURL *handle, int option, ...) {
    if (!loaded()) return CURLE_FAILED_INIT;
    va_list arguments;
    va_start(arguments, option);
    CURLcode result = forward_option(real.curl_easy_setopt, handle, option, &arguments);
    va_end(arguments);
    return result;
}

HIDDEN CURLMcode curl_multi_setopt(CURLM *multi, int option, ...) {
    if (!loaded()) return CURLM_INTERNAL_ERROR;
    va_list arguments;
    va_start(arguments, option);
    CURLMcode result = forward_option(real.curl_multi_setopt, multi, option, &arguments);
    va_end(arguments);
    return result;
}

// Every CURLINFO_* takes a pointer to where the answer goes.
HIDDEN CURLcode curl_easy_getinfo(CURL *handle, int info, ...) {
    if (!loaded()) return CURLE_FAILED_INIT;
    va_list arguments;
    va_start(arguments, info);
    CURLcode result = real.curl_easy_getinfo(handle, info, va_arg(arguments, void *));
    va_end(arguments);
    return result;
}
