// CCurlFetch: one HTTP(S) GET over libcurl, its body handed over as it is decoded.
//
// ImgToolKit's HTTPFetcher drives it. libcurl decodes the body's content coding (gzip, deflate,
// brotli, zstd: whatever it was built with) and hands each decoded piece, at most 16 KiB, to the
// `body` callback before it reads more from the network, so a caller that stops at a byte limit
// never holds more than the limit and one piece: a 1 MiB gzip body that inflates to 1 GiB is
// stopped after the limit, not after the gigabyte (URLSession queued decoded data on its delegate
// queue faster than a delegate could cancel).
//
// libcurl is loaded with dlopen on the first fetch (as CCurlLoader does for FoundationNetworking),
// never linked, and its types are declared here rather than taken from <curl/curl.h>, which a
// debug build does not need installed: only libcurl.so.4 is needed, at run time.
#ifndef CCURLFETCH_H
#define CCURLFETCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One transfer: made by imgtool_fetch_create, run once by imgtool_fetch_perform, freed by
/// imgtool_fetch_destroy.
typedef struct imgtool_fetch imgtool_fetch;

/// What ended a transfer.
typedef enum imgtool_fetch_outcome {
    /// The whole body arrived.
    IMGTOOL_FETCH_DONE = 0,
    /// A callback returned nonzero.
    IMGTOOL_FETCH_STOPPED,
    /// imgtool_fetch_cancel was called.
    IMGTOOL_FETCH_CANCELLED,
    /// The timeout given to imgtool_fetch_create passed (connecting, waiting or receiving).
    IMGTOOL_FETCH_TIMED_OUT,
    /// No connection could be made; `os_error` says why (ECONNREFUSED ...).
    IMGTOOL_FETCH_CANNOT_CONNECT,
    /// The host name did not resolve.
    IMGTOOL_FETCH_HOST_NOT_FOUND,
    /// The TLS handshake failed (not a TLS server, a protocol or cipher mismatch).
    IMGTOOL_FETCH_TLS_FAILED,
    /// The server's certificate was not trusted (expired, self-signed, another host's).
    IMGTOOL_FETCH_CERTIFICATE_REFUSED,
    /// More redirects than the limit given to imgtool_fetch_create.
    IMGTOOL_FETCH_TOO_MANY_REDIRECTS,
    /// A redirect to a scheme other than http or https; `redirect_status` and
    /// imgtool_fetch_redirect_location say which.
    IMGTOOL_FETCH_REDIRECT_REFUSED,
    /// The body ended before its Content-Length.
    IMGTOOL_FETCH_TRUNCATED,
    /// The connection broke after the request was sent.
    IMGTOOL_FETCH_CONNECTION_LOST,
    /// The server closed the connection without a response.
    IMGTOOL_FETCH_EMPTY_REPLY,
    /// The body's content coding could not be decoded.
    IMGTOOL_FETCH_BAD_ENCODING,
    /// The server's answer was not HTTP.
    IMGTOOL_FETCH_BAD_RESPONSE,
    /// Anything else; imgtool_fetch_message says what.
    IMGTOOL_FETCH_FAILED,
} imgtool_fetch_outcome;

/// The calls a transfer makes, on the thread running imgtool_fetch_perform.
typedef struct imgtool_fetch_callbacks {
    /// Passed to both callbacks.
    void *context;
    /// The final response's status line and headers, once, before any of its body (redirects
    /// being followed and interim responses are not reported). `content_length` is -1 when the
    /// response has none, `content_encoding` NULL when it has none (valid during the call only).
    /// Return 0 to go on, nonzero to stop the transfer (IMGTOOL_FETCH_STOPPED).
    int (*head)(void *context, long status, int64_t content_length, const char *content_encoding);
    /// The next piece of the decoded body (at most 16 KiB). Return 0 to go on, nonzero to stop.
    int (*body)(void *context, const uint8_t *bytes, size_t count);
} imgtool_fetch_callbacks;

/// How a transfer ended.
typedef struct imgtool_fetch_result {
    imgtool_fetch_outcome outcome;
    /// The last response's status, 0 when there was none.
    long status;
    /// Body bytes received as sent (before decoding).
    int64_t received;
    /// The last response's Content-Length, -1 when it had none.
    int64_t content_length;
    /// The system's error number when a connection failed, else 0.
    int os_error;
    /// The status of a refused redirect.
    long redirect_status;
} imgtool_fetch_result;

/// Loads libcurl (once; later calls return the first result). Returns 1 when it and every
/// function used here were found, 0 otherwise, with `*error` (if given) pointing at a static
/// message naming the library and what went wrong.
int imgtool_fetch_load(const char **error);

/// Makes a transfer of `url` (http or https only, redirects too, at most `max_redirects`), that
/// asks for every content coding libcurl can decode, and ends after `timeout_ms` in all. NULL
/// when libcurl is not loaded or out of memory.
imgtool_fetch *imgtool_fetch_create(const char *url, int64_t timeout_ms, long max_redirects,
                                    imgtool_fetch_callbacks callbacks);

/// Runs the transfer to its end on the calling thread, filling `result`. Once per transfer.
void imgtool_fetch_perform(imgtool_fetch *fetch, imgtool_fetch_result *result);

/// Stops the transfer from any thread: imgtool_fetch_perform returns promptly with
/// IMGTOOL_FETCH_CANCELLED (at once when it is waiting for the network). Call it only before
/// imgtool_fetch_destroy.
void imgtool_fetch_cancel(imgtool_fetch *fetch);

/// libcurl's own words on how the transfer failed (one line), or "" when it did not.
const char *imgtool_fetch_message(const imgtool_fetch *fetch);

/// The Location of the last redirect response, "" when there was none.
const char *imgtool_fetch_redirect_location(const imgtool_fetch *fetch);

/// Frees the transfer.
void imgtool_fetch_destroy(imgtool_fetch *fetch);

#ifdef __cplusplus
}
#endif

#endif
