#ifndef NOTIFYBUS_CSQLITE_SHIM_H
#define NOTIFYBUS_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
