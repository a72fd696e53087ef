/* A minimal JSON writer for the one-line --json reports of the stepnet CLI (cli). */
#ifndef STEPNET_CLI_JSON_H
#define STEPNET_CLI_JSON_H

#include <stdint.h>
#include <stdio.h>

typedef struct cli_json_s {
    FILE *f;
    int depth;
    int first[16]; /* per nesting level: no comma needed before the next member */
} cli_json_t;

void cli_json_begin(cli_json_t *j, FILE *f); /* { */
void cli_json_end(cli_json_t *j);            /* }\n */
void cli_json_key(cli_json_t *j, const char *key);
void cli_json_str(cli_json_t *j, const char *key, const char *value); /* value NULL -> null */
void cli_json_int(cli_json_t *j, const char *key, int64_t value);
void cli_json_uint(cli_json_t *j, const char *key, uint64_t value);
void cli_json_null(cli_json_t *j, const char *key);
void cli_json_bool(cli_json_t *j, const char *key, int value);
void cli_json_double(cli_json_t *j, const char *key, double value);
void cli_json_open(cli_json_t *j, const char *key,
                   char bracket); /* key may be NULL inside arrays */
void cli_json_close(cli_json_t *j, char bracket);

#endif
