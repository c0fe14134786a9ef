// One HTTP(S) GET over libcurl's multi interface, on the calling thread. See include/CCurlFetch.h.
//
// The option, info and error numbers are libcurl's (curl.h, stable across versions); handles are
// opaque pointers, and the variadic setters get exactly one argument of the type the option
// number's range gives (long below 10000, a pointer below 20000, a function pointer below 30000).
#include "CCurlFetch.h"

#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef void CURL;
typedef void CURLM;
typedef int CURLcode;
typedef int CURLMcode;
typedef int64_t curl_off_t;
typedef size_t (*curl_write_callback)(char *data, size_t size, size_t count, void *pointer);

// libcurl's CURLMsg.
typedef struct {
    int msg;
    CURL *easy_handle;
    union {
        void *whatever;
        CURLcode result;
    } data;
} curl_message;

enum {
    CURL_GLOBAL_ALL = 3,
    CURL_ERROR_SIZE = 256,
    CURLMSG_DONE = 1,
    CURLPROTO_HTTP = 1,
    CURLPROTO_HTTPS = 2,
};

enum {
    CURLOPT_WRITEDATA = 10001,
    CURLOPT_URL = 10002,
    CURLOPT_ERRORBUFFER = 10010,
    CURLOPT_USERAGENT = 10018,
    CURLOPT_HEADERDATA = 10029,
    CURLOPT_ACCEPT_ENCODING = 10102,
    CURLOPT_PROTOCOLS_STR = 10318,
    CURLOPT_REDIR_PROTOCOLS_STR = 10319,
    CURLOPT_WRITEFUNCTION = 20011,
    CURLOPT_HEADERFUNCTION = 20079,
    CURLOPT_FOLLOWLOCATION = 52,
    CURLOPT_MAXREDIRS = 68,
    CURLOPT_NOSIGNAL = 99,
    CURLOPT_TIMEOUT_MS = 155,
    CURLOPT_PROTOCOLS = 181,
    CURLOPT_REDIR_PROTOCOLS = 182,
};

enum {
    CURLINFO_RESPONSE_CODE = 0x200000 + 2,
    CURLINFO_OS_ERRNO = 0x200000 + 25,
    CURLINFO_SIZE_DOWNLOAD_T = 0x600000 + 8,
};

enum {
    CURLE_OK = 0,
    CURLE_UNSUPPORTED_PROTOCOL = 1,
    CURLE_COULDNT_RESOLVE_PROXY = 5,
    CURLE_COULDNT_RESOLVE_HOST = 6,
    CURLE_COULDNT_CONNECT = 7,
    CURLE_WEIRD_SERVER_REPLY = 8,
    CURLE_HTTP2 = 16,
    CURLE_PARTIAL_FILE = 18,
    CURLE_WRITE_ERROR = 23,
    CURLE_OPERATION_TIMEDOUT = 28,
    CURLE_SSL_CONNECT_ERROR = 35,
    CURLE_ABORTED_BY_CALLBACK = 42,
    CURLE_TOO_MANY_REDIRECTS = 47,
    CURLE_GOT_NOTHING = 52,
    CURLE_SSL_ENGINE_NOTFOUND = 53,
    CURLE_SSL_ENGINE_SETFAILED = 54,
    CURLE_SEND_ERROR = 55,
    CURLE_RECV_ERROR = 56,
    CURLE_SSL_CERTPROBLEM = 58,
    CURLE_SSL_CIPHER = 59,
    CURLE_PEER_FAILED_VERIFICATION = 60,
    CURLE_BAD_CONTENT_ENCODING = 61,
    CURLE_USE_SSL_FAILED = 64,
    CURLE_SSL_ENGINE_INITFAILED = 66,
    CURLE_SSL_CACERT_BADFILE = 77,
    CURLE_SSL_SHUTDOWN_FAILED = 80,
    CURLE_SSL_CRL_BADFILE = 82,
    CURLE_SSL_ISSUER_ERROR = 83,
    CURLE_SSL_PINNEDPUBKEYNOTMATCH = 90,
    CURLE_SSL_INVALIDCERTSTATUS = 91,
    CURLE_HTTP2_STREAM = 92,
    CURLE_SSL_CLIENTCERT = 98,
};

#define CURL_FUNCTIONS(X)                                                                        \
    X(curl_global_init, CURLcode, (long flags))                                                  \
    X(curl_easy_init, CURL *, (void))                                                            \
    X(curl_easy_cleanup, void, (CURL * handle))                                                  \
    X(curl_easy_setopt, CURLcode, (CURL * handle, int option, ...))                              \
    X(curl_easy_getinfo, CURLcode, (CURL * handle, int info, ...))                               \
    X(curl_easy_strerror, const char *, (CURLcode code))                                         \
    X(curl_multi_init, CURLM *, (void))                                                          \
    X(curl_multi_cleanup, CURLMcode, (CURLM * multi))                                            \
    X(curl_multi_add_handle, CURLMcode, (CURLM * multi, CURL *handle))                           \
    X(curl_multi_remove_handle, CURLMcode, (CURLM * multi, CURL *handle))                        \
    X(curl_multi_perform, CURLMcode, (CURLM * multi, int *running))                              \
    X(curl_multi_poll, CURLMcode, (CURLM * multi, void *extra, unsigned count, int timeout, int *ready)) \
    X(curl_multi_wakeup, CURLMcode, (CURLM * multi))                                             \
    X(curl_multi_info_read, curl_message *, (CURLM * multi, int *queued))

#define DECLARE_POINTER(name, result, parameters) result(*name) parameters;
static struct {
    CURL_FUNCTIONS(DECLARE_POINTER)
} curl;

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
    *(void **)&curl.name = dlsym(library, #name);                                                \
    if (curl.name == NULL) {                                                                     \
        snprintf(load_error, sizeof load_error, "libcurl.so.4 has no %s (libcurl older than 7.68?)", #name); \
        return;                                                                                  \
    }
    CURL_FUNCTIONS(RESOLVE)
#undef RESOLVE
    if (curl.curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "libcurl.so.4 failed to initialise");
        return;
    }
    load_succeeded = 1;
}

int imgtool_fetch_load(const char **error) {
    pthread_once(&load_once, load_library);
    if (!load_succeeded && error) *error = load_error;
    return load_succeeded;
}

struct imgtool_fetch {
    CURL *easy;
    CURLM *multi;
    imgtool_fetch_callbacks callbacks;
    atomic_int cancelled;
    // Set when a callback asked to stop.
    int stopped;
    int head_delivered;
    // The response being received: its headers so far.
    int64_t content_length;
    char content_encoding[64];
    char location[1024];
    int has_location;
    // The last redirect response that had a Location.
    long redirect_status;
    char redirect_location[1024];
    char error[CURL_ERROR_SIZE];
    char message[CURL_ERROR_SIZE + 64];
};

// Copies `value` (length `length`) into `target` of `size` bytes, without the surrounding blanks
// and line end; cut to fit.
static void copy_trimmed(char *target, size_t size, const char *value, size_t length) {
    while (length > 0 && isspace((unsigned char)*value)) value++, length--;
    while (length > 0 && isspace((unsigned char)value[length - 1])) length--;
    if (length >= size) length = size - 1;
    memcpy(target, value, length);
    target[length] = 0;
}

// If `line` (`length` bytes) is the header `name`, the start of its value, else NULL.
static const char *header_value(const char *line, size_t length, const char *name) {
    size_t name_length = strlen(name);
    if (length <= name_length || line[name_length] != ':' || strncasecmp(line, name, name_length) != 0) return NULL;
    return line + name_length + 1;
}

static long response_status(imgtool_fetch *fetch) {
    long status = 0;
    curl.curl_easy_getinfo(fetch->easy, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

// Reports the head once; 0 when the callback asked to stop.
static int deliver_head(imgtool_fetch *fetch) {
    if (fetch->head_delivered) return 1;
    fetch->head_delivered = 1;
    const char *encoding = fetch->content_encoding[0] ? fetch->content_encoding : NULL;
    if (fetch->callbacks.head(fetch->callbacks.context, response_status(fetch), fetch->content_length, encoding) != 0) {
        fetch->stopped = 1;
        return 0;
    }
    return 1;
}

static size_t on_header(char *data, size_t size, size_t count, void *pointer) {
    imgtool_fetch *fetch = pointer;
    size_t length = size * count;
    if (atomic_load(&fetch->cancelled)) return 0;
    if (length >= 5 && memcmp(data, "HTTP/", 5) == 0) {
        // A new response (a redirect's, an interim one's, or the final one).
        fetch->content_length = -1;
        fetch->content_encoding[0] = 0;
        fetch->location[0] = 0;
        fetch->has_location = 0;
        return length;
    }
    if (length <= 2 && (data[0] == '\r' || data[0] == '\n')) {
        // The end of a response's head. A status of 0 is a proxy's answer to CONNECT.
        long status = response_status(fetch);
        if (status == 0 || status / 100 == 1) return length;
        if (status / 100 == 3 && fetch->has_location) {
            // A redirect: libcurl follows it (or refuses its scheme); only the last one counts.
            fetch->redirect_status = status;
            memcpy(fetch->redirect_location, fetch->location, sizeof fetch->location);
            return length;
        }
        return deliver_head(fetch) ? length : 0;
    }
    const char *value;
    if ((value = header_value(data, length, "Content-Length"))) {
        char text[32];
        copy_trimmed(text, sizeof text, value, length - (size_t)(value - data));
        char *end;
        long long parsed = strtoll(text, &end, 10);
        fetch->content_length = (*text && !*end && parsed >= 0) ? parsed : -1;
    } else if ((value = header_value(data, length, "Content-Encoding"))) {
        copy_trimmed(fetch->content_encoding, sizeof fetch->content_encoding, value, length - (size_t)(value - data));
    } else if ((value = header_value(data, length, "Location"))) {
        copy_trimmed(fetch->location, sizeof fetch->location, value, length - (size_t)(value - data));
        fetch->has_location = fetch->location[0] != 0;
    }
    return length;
}

static size_t on_body(char *data, size_t size, size_t count, void *pointer) {
    imgtool_fetch *fetch = pointer;
    size_t length = size * count;
    if (atomic_load(&fetch->cancelled) || !deliver_head(fetch)) return 0;
    if (fetch->callbacks.body(fetch->callbacks.context, (const uint8_t *)data, length) != 0) {
        fetch->stopped = 1;
        return 0;
    }
    return length;
}

imgtool_fetch *imgtool_fetch_create(const char *url, int64_t timeout_ms, long max_redirects,
                                    imgtool_fetch_callbacks callbacks) {
    if (!imgtool_fetch_load(NULL)) return NULL;
    imgtool_fetch *fetch = calloc(1, sizeof *fetch);
    if (fetch == NULL) return NULL;
    fetch->callbacks = callbacks;
    fetch->content_length = -1;
    atomic_init(&fetch->cancelled, 0);
    fetch->easy = curl.curl_easy_init();
    fetch->multi = curl.curl_multi_init();
    if (fetch->easy == NULL || fetch->multi == NULL) {
        imgtool_fetch_destroy(fetch);
        return NULL;
    }
    CURL *easy = fetch->easy;
    int ok = curl.curl_easy_setopt(easy, CURLOPT_URL, url) == CURLE_OK;
    ok &= curl.curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, fetch->error) == CURLE_OK;
    ok &= curl.curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
    ok &= curl.curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, (long)(timeout_ms > 0 ? timeout_ms : 1)) == CURLE_OK;
    ok &= curl.curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L) == CURLE_OK;
    ok &= curl.curl_easy_setopt(easy, CURLOPT_MAXREDIRS, max_redirects) == CURLE_OK;
    // "": every coding this libcurl decodes, decoded before the write callback sees it.
    ok &= curl.curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "") == CURLE_OK;
    ok &= curl.curl_easy_setopt(easy, CURLOPT_USERAGENT, "imgtool") == CURLE_OK;
    ok &= curl.curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, (curl_write_callback)on_body) == CURLE_OK;
    ok &= curl.curl_easy_setopt(easy, CURLOPT_WRITEDATA, (void *)fetch) == CURLE_OK;
    ok &= curl.curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, (curl_write_callback)on_header) == CURLE_OK;
    ok &= curl.curl_easy_setopt(easy, CURLOPT_HEADERDATA, (void *)fetch) == CURLE_OK;
    // http and https only, for the URL and every redirect (the _STR options since libcurl 7.85).
    if (curl.curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
        curl.curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK) {
        ok &= curl.curl_easy_setopt(easy, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS)) == CURLE_OK;
        ok &= curl.curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS)) == CURLE_OK;
    }
    if (!ok) {
        imgtool_fetch_destroy(fetch);
        return NULL;
    }
    return fetch;
}

static int is_certificate_error(CURLcode code) {
    switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
        return 1;
    default:
        return 0;
    }
}

static int is_tls_error(CURLcode code) {
    switch (code) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_USE_SSL_FAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_CLIENTCERT:
        return 1;
    default:
        return 0;
    }
}

static imgtool_fetch_outcome outcome_of(imgtool_fetch *fetch, CURLcode code) {
    if (atomic_load(&fetch->cancelled)) return IMGTOOL_FETCH_CANCELLED;
    if (fetch->stopped) return IMGTOOL_FETCH_STOPPED;
    if (is_certificate_error(code)) return IMGTOOL_FETCH_CERTIFICATE_REFUSED;
    if (is_tls_error(code)) return IMGTOOL_FETCH_TLS_FAILED;
    switch (code) {
    case CURLE_OK:
        return IMGTOOL_FETCH_DONE;
    case CURLE_ABORTED_BY_CALLBACK:
        return IMGTOOL_FETCH_CANCELLED;
    case CURLE_OPERATION_TIMEDOUT:
        return IMGTOOL_FETCH_TIMED_OUT;
    case CURLE_COULDNT_CONNECT:
        return IMGTOOL_FETCH_CANNOT_CONNECT;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return IMGTOOL_FETCH_HOST_NOT_FOUND;
    case CURLE_TOO_MANY_REDIRECTS:
        return IMGTOOL_FETCH_TOO_MANY_REDIRECTS;
    case CURLE_UNSUPPORTED_PROTOCOL:
        return fetch->redirect_status ? IMGTOOL_FETCH_REDIRECT_REFUSED : IMGTOOL_FETCH_FAILED;
    case CURLE_PARTIAL_FILE:
        return IMGTOOL_FETCH_TRUNCATED;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return IMGTOOL_FETCH_CONNECTION_LOST;
    case CURLE_GOT_NOTHING:
        return IMGTOOL_FETCH_EMPTY_REPLY;
    case CURLE_BAD_CONTENT_ENCODING:
        return IMGTOOL_FETCH_BAD_ENCODING;
    case CURLE_WEIRD_SERVER_REPLY:
        return IMGTOOL_FETCH_BAD_RESPONSE;
    default:
        return IMGTOOL_FETCH_FAILED;
    }
}

void imgtool_fetch_perform(imgtool_fetch *fetch, imgtool_fetch_result *result) {
    memset(result, 0, sizeof *result);
    CURLcode code = CURLE_OK;
    int failed_to_run = curl.curl_multi_add_handle(fetch->multi, fetch->easy) != 0;
    int running = 1;
    while (!failed_to_run && running && !atomic_load(&fetch->cancelled)) {
        if (curl.curl_multi_perform(fetch->multi, &running) != 0) {
            failed_to_run = 1;
            break;
        }
        // Waits for the network, libcurl's next timer (the timeout among them) or a wake-up
        // from imgtool_fetch_cancel, whichever comes first.
        if (running && curl.curl_multi_poll(fetch->multi, NULL, 0, 1000, NULL) != 0) failed_to_run = 1;
    }
    if (!running) {
        int queued;
        curl_message *message;
        while ((message = curl.curl_multi_info_read(fetch->multi, &queued)) != NULL) {
            if (message->msg == CURLMSG_DONE) code = message->data.result;
        }
    }
    curl.curl_multi_remove_handle(fetch->multi, fetch->easy);
    if (code == CURLE_OK && running == 0 && !failed_to_run && !atomic_load(&fetch->cancelled)) {
        // A body-less answer (204, 404 with nothing after the headers...) still has a head.
        deliver_head(fetch);
    }
    result->outcome = failed_to_run && !atomic_load(&fetch->cancelled) ? IMGTOOL_FETCH_FAILED : outcome_of(fetch, code);
    result->status = response_status(fetch);
    curl_off_t received = 0;
    curl.curl_easy_getinfo(fetch->easy, CURLINFO_SIZE_DOWNLOAD_T, &received);
    result->received = received;
    result->content_length = fetch->content_length;
    long os_error = 0;
    curl.curl_easy_getinfo(fetch->easy, CURLINFO_OS_ERRNO, &os_error);
    result->os_error = (int)os_error;
    result->redirect_status = fetch->redirect_status;
    if (result->outcome != IMGTOOL_FETCH_DONE) {
        const char *text = fetch->error[0] ? fetch->error
                           : failed_to_run ? "libcurl's transfer loop failed"
                                           : curl.curl_easy_strerror(code);
        copy_trimmed(fetch->message, sizeof fetch->message, text, strlen(text));
        for (char *character = fetch->message; *character; character++) {
            if (iscntrl((unsigned char)*character)) *character = ' ';
        }
    }
}

void imgtool_fetch_cancel(imgtool_fetch *fetch) {
    atomic_store(&fetch->cancelled, 1);
    curl.curl_multi_wakeup(fetch->multi);
}

const char *imgtool_fetch_message(const imgtool_fetch *fetch) { return fetch->message; }

const char *imgtool_fetch_redirect_location(const imgtool_fetch *fetch) { return fetch->redirect_location; }

void imgtool_fetch_destroy(imgtool_fetch *fetch) {
    if (fetch == NULL) return;
    if (fetch->multi) curl.curl_multi_cleanup(fetch->multi);
    if (fetch->easy) curl.curl_easy_cleanup(fetch->easy);
    free(fetch);
}
