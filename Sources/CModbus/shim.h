#ifndef LASTSET_CMODBUS_SHIM_H
#define LASTSET_CMODBUS_SHIM_H
#include <modbus/modbus.h>
#include <errno.h>

/// errno of the calling thread, read right after a failing libmodbus call.
static inline int cmodbus_errno(void) { return errno; }
/// Sets errno (used before calls whose failure we want to attribute precisely).
static inline void cmodbus_set_errno(int value) { errno = value; }
#endif
