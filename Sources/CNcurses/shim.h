#include <ncurses.h>
