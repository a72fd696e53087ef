/* The stepnet CLI's names for the run parameters (cli): engine and core messages name concepts
 * ("messages per pair") or refer to a parameter by id (SN_PARAM_REF), and this one table maps each
 * parameter to the flag that sets it, so that every message a user sees names the flag. */
#include <stdio.h>

#include "cli/cli.h"

/* The one table: parameter -> the flag that sets it, as a message writes it inline, and the
 * flags with their accepted values, as " (option ...)" after a message about it. NULL where no
 * flag sets it. A parameter of a node's own command line (its id, the coordinator it dials) has
 * stepnet-node's option. */
static const struct {
    const char *flag, *form;
} flags[SN_PARAM_COUNT] = {
    [SN_PARAM_NONE] = {NULL, NULL},
    [SN_PARAM_ROOT] = {"--root", "--root R"},
    [SN_PARAM_MSGS] = {"--msgs", "--msgs M"},
    [SN_PARAM_FRAGS] = {"--frags", "--frags F"},
    [SN_PARAM_SIZE] = {"--size", "--size BYTES"},
    [SN_PARAM_PORT_MODEL] = {"--ports", "--ports single|multi, --rx one|any, --duplex full|half"},
    [SN_PARAM_RX] = {"--rx", "--rx one|any with --ports single|multi"},
    [SN_PARAM_SOURCES] = {"--sources", "--sources LIST or --m M"},
    [SN_PARAM_SLOT_LIMIT] = {"--max-slots", "--max-slots N"},
    [SN_PARAM_OP] = {"--op", "--op sum|xor|max|min|and|or"},
    [SN_PARAM_MEMORY] = {"--max-memory", "--max-memory SIZE"},
    [SN_PARAM_ALGO] = {"--algo", "--algo NAME|auto"},
    [SN_PARAM_SYNC] = {"--sync", "--sync slot|dataflow"},
    [SN_PARAM_LINK_FILE] = {"--link-file", "--link-file FILE"},
    [SN_PARAM_LISTEN] = {"--listen", "--listen ADDR"},
    [SN_PARAM_PORT_RANGE] = {"--port-range", "--port-range LO-HI"},
    [SN_PARAM_READY_TIMEOUT] = {"--ready-timeout-ms", "--ready-timeout-ms MS"},
    [SN_PARAM_COORD_NICE] = {"--coord-nice", "--coord-nice N"},
    [SN_PARAM_NODES] = {"--nodes", "--nodes local|join|ADDR,ADDR,..."},
    [SN_PARAM_NODE_BIN] = {"--node-bin", "--node-bin PATH"},
    [SN_PARAM_HOSTS] = {"--hosts", "--hosts FILE|LIST"},
    [SN_PARAM_MAP_BY] = {"--map-by", "--map-by slot|node"},
    [SN_PARAM_SSH] = {"--ssh", "--ssh COMMAND"},
    [SN_PARAM_REMOTE_NODE] = {"--remote-node", "--remote-node PATH"},
    [SN_PARAM_KEY] = {"--key", "--key FILE"},
    [SN_PARAM_NODE_ID] = {"--id", "stepnet-node --id N"},
    [SN_PARAM_NODE_JOIN] = {"stepnet-node --join", "stepnet-node --join HOST:PORT"},
    [SN_PARAM_DAEMON] = {"stepnet-node --serve", "stepnet-node --serve --listen HOST:PORT"},
    [SN_PARAM_DAEMON_LISTEN] = {"--listen", "stepnet-node --serve --listen HOST:PORT"},
};

const char *cli_param_flag(sn_param_t param)
{
    return (unsigned) param < SN_PARAM_COUNT ? flags[param].form : NULL;
}

const char *cli_param_name(sn_param_t param)
{
    return (unsigned) param < SN_PARAM_COUNT ? flags[param].flag : NULL;
}

/* Copies s into buf with control bytes and DEL as \xNN: a value the user gave (a --topo with
 * escape sequences) is echoed, never sent raw to the terminal. */
static void escape(const char *s, char *buf, size_t cap)
{
    size_t o = 0;
    for (; *s && o + 5 < cap; s++) {
        unsigned char ch = (unsigned char) *s;
        if (ch < 0x20 || ch == 0x7f)
            o += (size_t) snprintf(buf + o, cap - o, "\\x%02x", ch);
        else
            buf[o++] = (char) ch;
    }
    buf[o] = '\0';
}

const char *cli_text(const char *msg, char *buf, size_t cap)
{
    char named[1024]; /* an engine message: at most 1 KiB (SN_COORD_ERROR_TEXT) */
    sn_err_expand(msg, cli_param_name, named, sizeof named);
    escape(named, buf, cap);
    return buf;
}

const char *cli_err_text(const sn_err_t *err, char *buf, size_t cap)
{
    char msg[CLI_ERR_TEXT_MAX];
    cli_text(err->msg, msg, sizeof msg);
    const char *flag = cli_param_flag(err->param);
    if (flag == NULL)
        snprintf(buf, cap, "%s", msg);
    else
        snprintf(buf, cap, "%s (option %s)", msg, flag);
    return buf;
}

void cli_err_print(const char *who, const sn_err_t *err)
{
    char text[CLI_ERR_TEXT_MAX];
    fprintf(stderr, "%s: %s\n", who, cli_err_text(err, text, sizeof text));
}

int cli_refuse(const sn_err_t *err)
{
    cli_err_print("stepnet", err);
    return EXIT_BADINPUT;
}

int cli_fail(const sn_err_t *err)
{
    cli_err_print("stepnet", err);
    return err->code == SN_EINVAL ? EXIT_BADINPUT : EXIT_FAILED;
}
