#include "store.h"
#include <stdio.h>

/** The most items. */
#define MAX_ITEMS 8

/* Not a doc. */
typedef struct item { int id; } item_t;

/** A store of items. */
struct store {
    int count;
    item_t items[MAX_ITEMS];
};

enum mode { FAST, SLOW };

static int helper(int n) { return n; }

/** Adds an item. */
int store_add(struct store *s, int id) {
    s->count++;
    return helper(id);
}
