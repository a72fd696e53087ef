/* Chrome trace-event writer (cli): the events of `stepnet sim --trace` and `stepnet run
 * --trace` in the JSON Object Format, streamed to the file as they come, with the metadata that
 * names each node (process) and port (thread) written before its first event. */
#include <stdlib.h>

#include "cli/report.h"
#include "cli/trace.h"
#include "stepnet/util.h"

/* Trace ids: Perfetto treats pid 0 and tid 0 as the kernel's, and a tid equal to its pid as the
 * process's main thread; so pid = node + 1, and every thread id is unique in the trace and above
 * every pid: the port of directed link L is thread n + 1 + L, the slots of node u thread
 * n + 1 + 2 * edges + u. */
static uint64_t pid_of(uint32_t node)
{
    return (uint64_t) node + 1;
}

static uint64_t tid_of_port(const sn_topo_t *t, uint32_t node, uint32_t port)
{
    return (uint64_t) t->n + 1 + sn_topo_link_id(t, node, port);
}

static uint64_t tid_of_slots(const sn_topo_t *t, uint32_t node)
{
    return (uint64_t) t->n + 1 + 2 * (uint64_t) t->nedges + node;
}

static void put_us(cli_trace_t *tr, const char *key, double us)
{
    cli_json_key(&tr->j, key);
    fprintf(tr->j.f, "%.3f", us);
}

/* otherData's clock fields (docs/trace.md, "Time"): which clock the times are on, the largest
 * uncertainty of a node's offset, and per node its offset and uncertainty (microseconds). */
static void put_clock(cli_trace_t *tr, const sn_coord_trace_t *ct, int offsets)
{
    cli_json_t *j = &tr->j;
    uint64_t worst = 0;
    for (uint32_t i = 0; i < ct->n; i++)
        if (ct->nodes[i].clock_uncertainty_ns > worst)
            worst = ct->nodes[i].clock_uncertainty_ns;
    cli_json_str(j, "clock", offsets ? "offsets" : "one");
    put_us(tr, "clock_uncertainty_us", (double) worst / 1e3);
    cli_json_open(j, "clock_offsets_us", '[');
    for (uint32_t i = 0; i < ct->n; i++)
        put_us(tr, NULL, (double) ct->nodes[i].clock_offset_ns / 1e3);
    cli_json_close(j, ']');
    cli_json_open(j, "clock_uncertainties_us", '[');
    for (uint32_t i = 0; i < ct->n; i++)
        put_us(tr, NULL, (double) ct->nodes[i].clock_uncertainty_ns / 1e3);
    cli_json_close(j, ']');
}

/* {"name":NAME,"ph":"M","pid":pid,"tid":tid,"args":{KEY:...}} with a string or a number. */
static void meta(cli_trace_t *tr, const char *name, uint64_t pid, uint64_t tid, const char *key,
                 const char *sval, int64_t ival)
{
    cli_json_open(&tr->j, NULL, '{');
    cli_json_str(&tr->j, "name", name);
    cli_json_str(&tr->j, "ph", "M");
    cli_json_uint(&tr->j, "pid", pid);
    cli_json_uint(&tr->j, "tid", tid);
    cli_json_open(&tr->j, "args", '{');
    if (sval)
        cli_json_str(&tr->j, key, sval);
    else
        cli_json_int(&tr->j, key, ival);
    cli_json_close(&tr->j, '}');
    cli_json_close(&tr->j, '}');
}

static void see_node(cli_trace_t *tr, uint32_t node)
{
    if (tr->seen_node[node])
        return;
    tr->seen_node[node] = 1;
    char label[SN_TOPO_MAX_LABEL], name[SN_TOPO_MAX_LABEL + 64];
    sn_topo_label(tr->t, node, label, sizeof label);
    int32_t rank = sn_topo_rank(tr->t, node);
    if (rank >= 0)
        snprintf(name, sizeof name, "node %u %s (rank %d)", node, label, rank);
    else
        snprintf(name, sizeof name, "node %u %s (router)", node, label);
    meta(tr, "process_name", pid_of(node), tid_of_slots(tr->t, node), "name", name, 0);
    meta(tr, "process_sort_index", pid_of(node), tid_of_slots(tr->t, node), "sort_index", NULL,
         node);
}

static void see_port(cli_trace_t *tr, uint32_t node, uint32_t port)
{
    see_node(tr, node);
    uint32_t i = tr->t->port_off[node] + port;
    if (tr->seen_port[i])
        return;
    tr->seen_port[i] = 1;
    const sn_port_t *pp = sn_topo_port(tr->t, node, port);
    char name[112];
    snprintf(name, sizeof name, "port %u -> node %u (edge %u, link %u)", port, pp->peer, pp->edge,
             sn_topo_link_id(tr->t, node, port));
    uint64_t tid = tid_of_port(tr->t, node, port);
    meta(tr, "thread_name", pid_of(node), tid, "name", name, 0);
    meta(tr, "thread_sort_index", pid_of(node), tid, "sort_index", NULL, port + 1);
}

void cli_trace_begin(cli_trace_t *tr, FILE *f, const sn_topo_t *t)
{
    tr->t = t;
    tr->seen_node = sn_xcalloc((size_t) t->n + 1, 1);
    tr->seen_port = sn_xcalloc((size_t) t->port_off[t->n] + 1, 1);
    tr->seen_slots = sn_xcalloc((size_t) t->n + 1, 1);
    tr->sends = 0;
    tr->clock = NULL;
    tr->clock_offsets = 0;
    tr->sync = NULL;
    cli_json_begin(&tr->j, f);
    cli_json_str(&tr->j, "displayTimeUnit", "ms");
    cli_json_open(&tr->j, "traceEvents", '[');
}

void cli_trace_send(cli_trace_t *tr, uint32_t node, uint32_t port, uint64_t slot,
                    const sn_packet_t *pkt, double ts_us, double dur_us, double arrived_us)
{
    see_port(tr, node, port);
    const sn_port_t *pp = sn_topo_port(tr->t, node, port);
    int control = pkt->kind == SN_PKT_CONTROL;
    cli_json_t *j = &tr->j;
    cli_json_open(j, NULL, '{');
    cli_json_str(j, "name", "send");
    cli_json_str(j, "cat", control ? "control" : "data");
    cli_json_str(j, "ph", "X");
    cli_json_uint(j, "pid", pid_of(node));
    cli_json_uint(j, "tid", tid_of_port(tr->t, node, port));
    put_us(tr, "ts", ts_us);
    put_us(tr, "dur", dur_us);
    cli_json_open(j, "args", '{');
    cli_json_uint(j, "slot", slot);
    cli_json_uint(j, "node", node);
    cli_json_uint(j, "port", port);
    cli_json_uint(j, "link", sn_topo_link_id(tr->t, node, port));
    cli_json_uint(j, "edge", pp->edge);
    cli_json_uint(j, "to", pp->peer);
    if (arrived_us >= 0) {
        put_us(tr, "arrived_us", arrived_us);
        put_us(tr, "in_flight_us", arrived_us - ts_us);
    }
    cli_json_open(j, "packet", '{');
    cli_json_uint(j, "src", pkt->src);
    if (pkt->dst == SN_NODE_ALL)
        cli_json_str(j, "dst", "all");
    else
        cli_json_uint(j, "dst", pkt->dst);
    cli_json_uint(j, "seq", pkt->seq);
    cli_json_uint(j, "frag", pkt->frag);
    cli_json_str(j, "kind", control ? "control" : "data");
    cli_json_close(j, '}');
    cli_json_close(j, '}');
    cli_json_close(j, '}');
    tr->sends++;
}

void cli_trace_slot(cli_trace_t *tr, uint32_t node, uint64_t slot, double ts_us, double dur_us,
                    int64_t last_port)
{
    see_node(tr, node);
    if (!tr->seen_slots[node]) {
        tr->seen_slots[node] = 1;
        meta(tr, "thread_name", pid_of(node), tid_of_slots(tr->t, node), "name", "slots", 0);
        meta(tr, "thread_sort_index", pid_of(node), tid_of_slots(tr->t, node), "sort_index", NULL,
             0);
    }
    cli_json_t *j = &tr->j;
    char name[32];
    snprintf(name, sizeof name, "slot %llu", (unsigned long long) slot);
    cli_json_open(j, NULL, '{');
    cli_json_str(j, "name", name);
    cli_json_str(j, "cat", "slot");
    cli_json_str(j, "ph", "X");
    cli_json_uint(j, "pid", pid_of(node));
    cli_json_uint(j, "tid", tid_of_slots(tr->t, node));
    put_us(tr, "ts", ts_us);
    put_us(tr, "dur", dur_us);
    cli_json_open(j, "args", '{');
    cli_json_uint(j, "slot", slot);
    cli_json_uint(j, "node", node);
    if (last_port >= 0) {
        const sn_port_t *pp = sn_topo_port(tr->t, node, (uint32_t) last_port);
        cli_json_uint(j, "waited_for", pp->peer);
        cli_json_uint(j, "waited_port", (uint64_t) last_port);
        cli_json_uint(j, "waited_edge", pp->edge);
    } else {
        cli_json_null(j, "waited_for");
    }
    cli_json_close(j, '}');
    cli_json_close(j, '}');
}

void cli_trace_frame(cli_trace_t *tr, uint32_t node, uint32_t port, uint64_t slot, double ts_us,
                     int last, int before_start)
{
    see_port(tr, node, port);
    cli_json_t *j = &tr->j;
    cli_json_open(j, NULL, '{');
    cli_json_str(j, "name", "frame in");
    cli_json_str(j, "cat", "slot");
    cli_json_str(j, "ph", "i");
    cli_json_str(j, "s", "t");
    cli_json_uint(j, "pid", pid_of(node));
    cli_json_uint(j, "tid", tid_of_port(tr->t, node, port));
    put_us(tr, "ts", ts_us);
    cli_json_open(j, "args", '{');
    cli_json_uint(j, "slot", slot);
    cli_json_uint(j, "node", node);
    cli_json_uint(j, "port", port);
    cli_json_uint(j, "from", sn_topo_port(tr->t, node, port)->peer);
    cli_json_bool(j, "last", last);
    cli_json_bool(j, "before_start", before_start);
    cli_json_close(j, '}');
    cli_json_close(j, '}');
}

void cli_trace_note(cli_trace_t *tr, const char *name, double ts_us, const char *note)
{
    cli_json_t *j = &tr->j;
    cli_json_open(j, NULL, '{');
    cli_json_str(j, "name", name);
    cli_json_str(j, "ph", "i");
    cli_json_str(j, "s", "g"); /* global: the ids below are node 0's slots, never drawn */
    cli_json_uint(j, "pid", pid_of(0));
    cli_json_uint(j, "tid", tid_of_slots(tr->t, 0));
    put_us(tr, "ts", ts_us);
    cli_json_open(j, "args", '{');
    cli_json_str(j, "note", note);
    cli_json_close(j, '}');
    cli_json_close(j, '}');
}

void cli_trace_end(cli_trace_t *tr, const char *cmd, const cli_ctx_t *c, const char *time_scale,
                   uint32_t rep, uint64_t slots_recorded, const char *truncated)
{
    cli_json_t *j = &tr->j;
    cli_json_close(j, ']');
    cli_json_open(j, "otherData", '{');
    cli_json_str(j, "generator", "stepnet");
    cli_json_str(j, "cmd", cmd);
    cli_json_str(j, "topology", c->topo->spec);
    cli_json_str(j, "collective", sn_coll_name(c->params.coll));
    cli_json_str(j, "algorithm", c->algo->name);
    cli_json_str(j, "ports", cli_ports_name(&c->params));
    cli_json_str(j, "time_scale", time_scale);
    if (tr->sync)
        cli_json_str(j, "sync", tr->sync);
    if (rep)
        cli_json_uint(j, "traced_repetition", rep);
    cli_json_uint(j, "slots_recorded", slots_recorded);
    cli_json_uint(j, "send_events", tr->sends);
    cli_json_bool(j, "truncated", truncated != NULL);
    if (truncated)
        cli_json_str(j, "truncation", truncated);
    if (tr->clock)
        put_clock(tr, tr->clock, tr->clock_offsets);
    cli_json_close(j, '}');
    cli_json_end(j);
    free(tr->seen_node);
    free(tr->seen_port);
    free(tr->seen_slots);
    tr->seen_node = tr->seen_port = tr->seen_slots = NULL;
}
