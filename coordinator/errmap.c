/* The stepnet CLI's names for the core's run parameters (coordinator): core messages name concepts
 * ("messages per pair"), and this one table maps the parameter an error is about to the flags
 * that set it, so that every message a user sees names the flag. */
#include <stdio.h>

#include "cli.h"

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
};

const char *cli_param_flag(sn_param_t param)
{
    return (unsigned) param < SN_PARAM_COUNT ? flags[param] : NULL;
}

const char *cli_err_text(const sn_err_t *err, char *buf, size_t cap)
{
    const char *flag = cli_param_flag(err->param);
    if (flag == NULL)
        snprintf(buf, cap, "%s", err->msg);
    else
        snprintf(buf, cap, "%s (option %s)", err->msg, flag);
    return buf;
}

void cli_err_print(const char *who, const sn_err_t *err)
{
    char text[CLI_ERR_TEXT_MAX];
    fprintf(stderr, "%s: %s\n", who, cli_err_text(err, text, sizeof text));
}
