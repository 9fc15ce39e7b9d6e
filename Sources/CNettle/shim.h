// Nettle's SHA-256 (Debian's nettle-dev; GnuTLS's own crypto library, already on every host that has
// libmicrohttpd with TLS). Wrapped by LastsetCore's SHA256 only.
#include <nettle/sha2.h>
