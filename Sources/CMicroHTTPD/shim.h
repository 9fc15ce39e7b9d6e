#ifndef LASTSET_CMICROHTTPD_SHIM_H
#define LASTSET_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts an MHD daemon on an already-listening socket, one thread per connection
/// (so a slow handler blocks only its own connection). MHD_start_daemon is variadic
/// and cannot be called from Swift; this wrapper fixes the option list.
/// `per_ip_limit` bounds the connections one client address may hold (0: no bound; TCP only);
/// `uri_logger` sees the raw request target before it is unescaped (its result becomes `*con_cls`);
/// `notify_connection` hears every connection start and close (its `*socket_context` is the application's).
/// `handler_cls` is also the closure of `uri_logger`, `completed` and `notify_connection`.
/// With `tls_key_pem` and `tls_cert_pem` (PEM text, not paths) the listener speaks HTTPS through GnuTLS.
/// Returns NULL on failure; the caller then still owns `listen_fd`.
static inline struct MHD_Daemon *lastset_mhd_start(int listen_fd,
                                                   unsigned int connection_timeout_seconds,
                                                   unsigned int connection_limit,
                                                   unsigned int per_ip_limit,
                                                   void *(*uri_logger)(void *cls, const char *uri,
                                                                       struct MHD_Connection *connection),
                                                   MHD_AccessHandlerCallback handler,
                                                   void *handler_cls,
                                                   MHD_RequestCompletedCallback completed,
                                                   MHD_NotifyConnectionCallback notify_connection,
                                                   const char *tls_key_pem,
                                                   const char *tls_cert_pem) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
    struct MHD_OptionItem tls[] = {
        { MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)tls_key_pem },
        { MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls_cert_pem },
        { MHD_OPTION_END, 0, NULL },
    };
    int use_tls = tls_key_pem != NULL && tls_cert_pem != NULL;
    if (use_tls) flags |= MHD_USE_TLS;
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, use_tls ? tls : tls + 2,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_logger, handler_cls,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, handler_cls,
                            MHD_OPTION_NOTIFY_CONNECTION, notify_connection, handler_cls,
                            MHD_OPTION_END);
}

/// Whether this libmicrohttpd was built with TLS (GnuTLS) support.
static inline int lastset_mhd_supports_tls(void) {
    return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

/// The socket of a connection, or -1 when MHD cannot tell.
static inline int lastset_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

/// The application's pointer for a connection, set in the MHD_CONNECTION_NOTIFY_STARTED notification.
static inline void *lastset_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

#endif
