/* A binary max-heap as static functions for one element type (core/algo): the per-port queues of
 * mnb-balanced and the timetable of mnb-cayley. SN_HEAP_DEFINE(NAME, T, ABOVE) defines the type
 * NAME_t (elements v[0 .. n-1], capacity cap; zero-initialised is empty, free v when done),
 * NAME_push(h, &x) and NAME_pop(h), which takes out the element that ABOVE(&a, &b) puts above every
 * other (h must not be empty). ABOVE must be a strict order for a deterministic pop order. */
#ifndef STEPNET_CORE_ALGO_ENGINE_HEAP_H
#define STEPNET_CORE_ALGO_ENGINE_HEAP_H

#include <stddef.h>

#include "stepnet/util.h"

#define SN_HEAP_DEFINE(NAME, T, ABOVE)                                                             \
    typedef struct {                                                                               \
        T *v;                                                                                      \
        size_t n, cap;                                                                             \
    } NAME##_t;                                                                                    \
                                                                                                   \
    static inline void NAME##_push(NAME##_t *h, const T *x)                                        \
    {                                                                                              \
        if (h->n == h->cap)                                                                        \
            sn_grow((void **) &h->v, &h->cap, h->n + 1, sizeof *h->v);                             \
        size_t i = h->n++;                                                                         \
        while (i > 0 && ABOVE(x, &h->v[(i - 1) / 2])) {                                            \
            h->v[i] = h->v[(i - 1) / 2];                                                           \
            i = (i - 1) / 2;                                                                       \
        }                                                                                          \
        h->v[i] = *x;                                                                              \
    }                                                                                              \
                                                                                                   \
    static inline T NAME##_pop(NAME##_t *h)                                                        \
    {                                                                                              \
        T top = h->v[0], last = h->v[--h->n];                                                      \
        size_t i = 0;                                                                              \
        for (;;) {                                                                                 \
            size_t c = 2 * i + 1;                                                                  \
            if (c >= h->n)                                                                         \
                break;                                                                             \
            if (c + 1 < h->n && ABOVE(&h->v[c + 1], &h->v[c]))                                     \
                c++;                                                                               \
            if (!ABOVE(&h->v[c], &last))                                                           \
                break;                                                                             \
            h->v[i] = h->v[c];                                                                     \
            i = c;                                                                                 \
        }                                                                                          \
        if (h->n > 0)                                                                              \
            h->v[i] = last;                                                                        \
        return top;                                                                                \
    }

#endif
