/* A minimal JSON writer for the one-line --json reports of the stepnet CLI (cli). */
#ifndef STEPNET_CLI_JSON_H
#define STEPNET_CLI_JSON_H

#include <stdint.h>
#include <stdio.h>

typedef struct json_s {
    FILE *f;
    int depth;
    int first[16]; /* per nesting level: no comma needed before the next member */
} json_t;

void json_begin(json_t *j, FILE *f); /* { */
void json_end(json_t *j);            /* }\n */
void json_key(json_t *j, const char *key);
void json_str(json_t *j, const char *key, const char *value); /* value NULL -> null */
void json_int(json_t *j, const char *key, int64_t value);
void json_uint(json_t *j, const char *key, uint64_t value);
void json_null(json_t *j, const char *key);
void json_bool(json_t *j, const char *key, int value);
void json_double(json_t *j, const char *key, double value);
void json_open(json_t *j, const char *key, char bracket); /* key may be NULL inside arrays */
void json_close(json_t *j, char bracket);

#endif
