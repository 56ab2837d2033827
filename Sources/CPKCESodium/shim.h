#ifndef CPKCESODIUM_SHIM_H
#define CPKCESODIUM_SHIM_H

#include <sodium.h>

#endif
