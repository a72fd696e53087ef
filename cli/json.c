/* Minimal JSON writer (cli): keys and strings are escaped, numbers printed exactly. */
#include "json.h"

static void sep(json_t *j)
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

void json_key(json_t *j, const char *key)
{
    sep(j);
    if (key) {
        put_string(j->f, key);
        fputc(':', j->f);
    }
}

void json_begin(json_t *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->first[0] = 1;
    fputc('{', f);
}

void json_end(json_t *j)
{
    fputs("}\n", j->f);
    fflush(j->f);
}

void json_str(json_t *j, const char *key, const char *value)
{
    json_key(j, key);
    if (value)
        put_string(j->f, value);
    else
        fputs("null", j->f);
}

void json_int(json_t *j, const char *key, int64_t value)
{
    json_key(j, key);
    fprintf(j->f, "%lld", (long long) value);
}

void json_uint(json_t *j, const char *key, uint64_t value)
{
    json_key(j, key);
    fprintf(j->f, "%llu", (unsigned long long) value);
}

void json_null(json_t *j, const char *key)
{
    json_key(j, key);
    fputs("null", j->f);
}

void json_bool(json_t *j, const char *key, int value)
{
    json_key(j, key);
    fputs(value ? "true" : "false", j->f);
}

void json_double(json_t *j, const char *key, double value)
{
    json_key(j, key);
    fprintf(j->f, "%.6g", value);
}

void json_open(json_t *j, const char *key, char bracket)
{
    json_key(j, key);
    fputc(bracket, j->f);
    j->first[++j->depth] = 1;
}

void json_close(json_t *j, char bracket)
{
    fputc(bracket, j->f);
    j->depth--;
}
