/* Minimal JSON writer (cli): keys and strings are escaped, numbers printed exactly. */
#include "cli/json.h"

static void sep(cli_json_t *j)
{
    if (!j->first[j->depth])
        fputc(',', j->f);
    j->first[j->depth] = 0;
}

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char) *s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void cli_json_key(cli_json_t *j, const char *key)
{
    sep(j);
    if (key) {
        put_string(j->f, key);
        fputc(':', j->f);
    }
}

void cli_json_begin(cli_json_t *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->first[0] = 1;
    fputc('{', f);
}

void cli_json_end(cli_json_t *j)
{
    fputs("}\n", j->f);
    fflush(j->f);
}

void cli_json_str(cli_json_t *j, const char *key, const char *value)
{
    cli_json_key(j, key);
    if (value)
        put_string(j->f, value);
    else
        fputs("null", j->f);
}

void cli_json_int(cli_json_t *j, const char *key, int64_t value)
{
    cli_json_key(j, key);
    fprintf(j->f, "%lld", (long long) value);
}

void cli_json_uint(cli_json_t *j, const char *key, uint64_t value)
{
    cli_json_key(j, key);
    fprintf(j->f, "%llu", (unsigned long long) value);
}

void cli_json_null(cli_json_t *j, const char *key)
{
    cli_json_key(j, key);
    fputs("null", j->f);
}

void cli_json_bool(cli_json_t *j, const char *key, int value)
{
    cli_json_key(j, key);
    fputs(value ? "true" : "false", j->f);
}

void cli_json_double(cli_json_t *j, const char *key, double value)
{
    cli_json_key(j, key);
    fprintf(j->f, "%.6g", value);
}

void cli_json_open(cli_json_t *j, const char *key, char bracket)
{
    cli_json_key(j, key);
    fputc(bracket, j->f);
    j->first[++j->depth] = 1;
}

void cli_json_close(cli_json_t *j, char bracket)
{
    fputc(bracket, j->f);
    j->depth--;
}
