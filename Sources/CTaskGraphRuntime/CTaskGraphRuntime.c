// Header-only: the function is the Swift runtime's own (see include/CTaskGraphRuntime.h).
#include "CTaskGraphRuntime.h"
