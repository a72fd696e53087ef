/* The stepnet CLI's names for the core's run parameters (cli): core messages name concepts
 * ("messages per pair"), and this one table maps the parameter an error is about to the flags
 * that set it, so that every message a user sees names the flag. */
#include <stdio.h>

#include "cli/cli.h"

/* The one table: parameter -> flags and their accepted values. NULL where no flag sets it. */
static const char *const flags[SN_PARAM_COUNT] = {
    [SN_PARAM_NONE] = NULL,
    [SN_PARAM_ROOT] = "--root R",
    [SN_PARAM_MSGS] = "--msgs M",
    [SN_PARAM_FRAGS] = "--frags F",
    [SN_PARAM_SIZE] = "--size BYTES",
    [SN_PARAM_PORT_MODEL] = "--ports single|multi, --rx one|any, --duplex full|half",
    [SN_PARAM_RX] = "--rx one|any with --ports single|multi",
    [SN_PARAM_SOURCES] = "--sources LIST or --m M",
    [SN_PARAM_SLOT_LIMIT] = "--max-slots N",
    [SN_PARAM_OP] = "--op sum|xor|max|min|and|or",
    [SN_PARAM_MEMORY] = "--max-memory SIZE",
};

const char *cli_param_flag(sn_param_t param)
{
    return (unsigned) param < SN_PARAM_COUNT ? flags[param] : NULL;
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

const char *cli_err_text(const sn_err_t *err, char *buf, size_t cap)
{
    char msg[4 * sizeof err->msg + 1];
    escape(err->msg, msg, sizeof msg);
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
