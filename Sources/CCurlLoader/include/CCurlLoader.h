// CCurlLoader: libcurl, loaded the first time a URL is fetched rather than when imgtool starts.
//
// FoundationNetworking (URLSession) is built on libcurl, and Debian's libcurl brings some thirty
// shared libraries (TLS, Kerberos, LDAP, SSH, IDN ...). Linked the usual way, the dynamic loader
// maps and relocates all of them before `main`, for every command, though only URL inputs use
// them: about half of imgtool's start-up time. The `imgtool` executable links this target
// instead: it defines the libcurl functions FoundationNetworking calls, hidden from other
// libraries, and each one loads libcurl.so.4 with dlopen on first use and forwards to it. The
// executable is linked with --as-needed, so libcurl drops out of its dependencies. It is the
// Linux counterpart of a delay-loaded DLL.
#ifndef CCURLLOADER_H
#define CCURLLOADER_H

#ifdef __cplusplus
extern "C" {
#endif

/// Loads libcurl (once; later calls return the first result). Returns 1 when every function
/// FoundationNetworking needs was found, 0 otherwise, with `*error` (if given) pointing at a
/// static message naming the library and what went wrong.
int imgtool_curl_load(const char **error);

/// 1 when libcurl has been loaded into this process (by imgtool_curl_load or by a forwarded call).
int imgtool_curl_is_loaded(void);

#ifdef __cplusplus
}
#endif

#endif
