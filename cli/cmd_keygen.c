/* stepnet keygen FILE (cli): creates a cluster key file for join-mode runs (net/secure.h,
 * docs/security.md). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "net/secure.h"

static const char usage[] =
    "usage: stepnet keygen FILE\n"
    "\n"
    "Creates FILE with a fresh random 32-byte cluster key (64 hex digits), mode 0600. Every node\n"
    "and the coordinator of a join-mode run need the same key: `stepnet run --nodes join --key\n"
    "FILE` and `stepnet-node --join HOST:PORT --key FILE`. Copy it over a secure channel (scp);\n"
    "stepnet refuses a key file that group or others can read. An existing FILE is never\n"
    "overwritten. Local runs need no key file: they make a fresh key per run.\n"
    "\n"
    "Exit status: 0 created, 1 the file could not be created, 2 bad arguments.\n";

int cli_cmd_keygen(int argc, char **argv)
{
    if (argc == 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    sn_err_t err = {0};
    if (argc != 1 || argv[0][0] == '-') {
        sn_err_inval(&err, "expected exactly one argument, the key file to create; see stepnet "
                           "keygen --help");
        cli_err_print("stepnet keygen", &err);
        return EXIT_BADINPUT;
    }
    sn_sec_init();
    char why[512];
    if (sn_key_generate(argv[0], why, sizeof why) != 0) {
        sn_err_set(&err, SN_EIO, "%s", why);
        cli_err_print("stepnet keygen", &err);
        return EXIT_FAILED;
    }
    fprintf(stderr, "stepnet keygen: wrote a new cluster key to %s (mode 0600)\n", argv[0]);
    return EXIT_OK;
}
