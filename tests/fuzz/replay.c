/* The deterministic replay of a fuzz target (tests/fuzz): feeds every regular file of the
 * directories (or files) on the command line to LLVMFuzzerTestOneInput once, in name order, and
 * exits 0 when none crashed. CTest runs it on tests/fuzz/corpus/TARGET/, so the plain and the
 * sanitizer builds replay the corpus. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

#define REPLAY_MAX_INPUT (8u << 20)

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    uint8_t *buf = malloc(REPLAY_MAX_INPUT);
    if (buf == NULL) {
        fclose(f);
        return -1;
    }
    size_t n = fread(buf, 1, REPLAY_MAX_INPUT, f);
    fclose(f);
    /* a copy of exactly n bytes, so that ASan sees reads past the input */
    uint8_t *in = malloc(n ? n : 1);
    if (in == NULL) {
        free(buf);
        return -1;
    }
    memcpy(in, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(in, n);
    free(in);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (replay_file(argv[i]) < 0)
                return 1;
            files++;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[i], &names, NULL, by_name);
        if (n < 0) {
            fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            return 1;
        }
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
            if (names[k]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (replay_file(path) < 0)
                    return 1;
                files++;
            }
            free(names[k]);
        }
        free(names);
    }
    if (files == 0) {
        fprintf(stderr, "replay: no input files (usage: replay DIR|FILE...)\n");
        return 1;
    }
    printf("replayed %d inputs\n", files);
    return 0;
}
