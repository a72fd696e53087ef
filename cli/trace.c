/* Chrome trace-event writer (cli): the events of `stepnet sim --trace` and `stepnet run
 * --trace` in the JSON Object Format, streamed to the file as they come, with the metadata that
 * names each node (process) and port (thread) written before its first event. */
#include <stdlib.h>

#include "trace.h"
#include "report.h"
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

static void put_us(trace_t *tr, const char *key, double us)
{
    json_key(&tr->j, key);
    fprintf(tr->j.f, "%.3f", us);
}

/* {"name":NAME,"ph":"M","pid":pid,"tid":tid,"args":{KEY:...}} with a string or a number. */
static void meta(trace_t *tr, const char *name, uint64_t pid, uint64_t tid, const char *key,
                 const char *sval, int64_t ival)
{
    json_open(&tr->j, NULL, '{');
    json_str(&tr->j, "name", name);
    json_str(&tr->j, "ph", "M");
    json_uint(&tr->j, "pid", pid);
    json_uint(&tr->j, "tid", tid);
    json_open(&tr->j, "args", '{');
    if (sval)
        json_str(&tr->j, key, sval);
    else
        json_int(&tr->j, key, ival);
    json_close(&tr->j, '}');
    json_close(&tr->j, '}');
}

static void see_node(trace_t *tr, uint32_t node)
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

static void see_port(trace_t *tr, uint32_t node, uint32_t port)
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

void trace_begin(trace_t *tr, FILE *f, const sn_topo_t *t)
{
    tr->t = t;
    tr->seen_node = sn_xcalloc((size_t) t->n + 1, 1);
    tr->seen_port = sn_xcalloc((size_t) t->port_off[t->n] + 1, 1);
    tr->seen_slots = sn_xcalloc((size_t) t->n + 1, 1);
    tr->sends = 0;
    json_begin(&tr->j, f);
    json_str(&tr->j, "displayTimeUnit", "ms");
    json_open(&tr->j, "traceEvents", '[');
}

void trace_send(trace_t *tr, uint32_t node, uint32_t port, uint64_t slot, const sn_packet_t *pkt,
                double ts_us, double dur_us, double arrived_us)
{
    see_port(tr, node, port);
    const sn_port_t *pp = sn_topo_port(tr->t, node, port);
    int control = pkt->kind == SN_PKT_CONTROL;
    json_t *j = &tr->j;
    json_open(j, NULL, '{');
    json_str(j, "name", "send");
    json_str(j, "cat", control ? "control" : "data");
    json_str(j, "ph", "X");
    json_uint(j, "pid", pid_of(node));
    json_uint(j, "tid", tid_of_port(tr->t, node, port));
    put_us(tr, "ts", ts_us);
    put_us(tr, "dur", dur_us);
    json_open(j, "args", '{');
    json_uint(j, "slot", slot);
    json_uint(j, "node", node);
    json_uint(j, "port", port);
    json_uint(j, "link", sn_topo_link_id(tr->t, node, port));
    json_uint(j, "edge", pp->edge);
    json_uint(j, "to", pp->peer);
    if (arrived_us >= 0) {
        put_us(tr, "arrived_us", arrived_us);
        put_us(tr, "in_flight_us", arrived_us - ts_us);
    }
    json_open(j, "packet", '{');
    json_uint(j, "src", pkt->src);
    if (pkt->dst == SN_NODE_ALL)
        json_str(j, "dst", "all");
    else
        json_uint(j, "dst", pkt->dst);
    json_uint(j, "seq", pkt->seq);
    json_uint(j, "frag", pkt->frag);
    json_str(j, "kind", control ? "control" : "data");
    json_close(j, '}');
    json_close(j, '}');
    json_close(j, '}');
    tr->sends++;
}

void trace_slot(trace_t *tr, uint32_t node, uint64_t slot, double ts_us, double dur_us,
                int64_t last_port)
{
    see_node(tr, node);
    if (!tr->seen_slots[node]) {
        tr->seen_slots[node] = 1;
        meta(tr, "thread_name", pid_of(node), tid_of_slots(tr->t, node), "name", "slots", 0);
        meta(tr, "thread_sort_index", pid_of(node), tid_of_slots(tr->t, node), "sort_index", NULL,
             0);
    }
    json_t *j = &tr->j;
    char name[32];
    snprintf(name, sizeof name, "slot %llu", (unsigned long long) slot);
    json_open(j, NULL, '{');
    json_str(j, "name", name);
    json_str(j, "cat", "slot");
    json_str(j, "ph", "X");
    json_uint(j, "pid", pid_of(node));
    json_uint(j, "tid", tid_of_slots(tr->t, node));
    put_us(tr, "ts", ts_us);
    put_us(tr, "dur", dur_us);
    json_open(j, "args", '{');
    json_uint(j, "slot", slot);
    json_uint(j, "node", node);
    if (last_port >= 0) {
        const sn_port_t *pp = sn_topo_port(tr->t, node, (uint32_t) last_port);
        json_uint(j, "waited_for", pp->peer);
        json_uint(j, "waited_port", (uint64_t) last_port);
        json_uint(j, "waited_edge", pp->edge);
    } else {
        json_null(j, "waited_for");
    }
    json_close(j, '}');
    json_close(j, '}');
}

void trace_frame(trace_t *tr, uint32_t node, uint32_t port, uint64_t slot, double ts_us, int last,
                 int before_start)
{
    see_port(tr, node, port);
    json_t *j = &tr->j;
    json_open(j, NULL, '{');
    json_str(j, "name", "frame in");
    json_str(j, "cat", "slot");
    json_str(j, "ph", "i");
    json_str(j, "s", "t");
    json_uint(j, "pid", pid_of(node));
    json_uint(j, "tid", tid_of_port(tr->t, node, port));
    put_us(tr, "ts", ts_us);
    json_open(j, "args", '{');
    json_uint(j, "slot", slot);
    json_uint(j, "node", node);
    json_uint(j, "port", port);
    json_uint(j, "from", sn_topo_port(tr->t, node, port)->peer);
    json_bool(j, "last", last);
    json_bool(j, "before_start", before_start);
    json_close(j, '}');
    json_close(j, '}');
}

void trace_note(trace_t *tr, const char *name, double ts_us, const char *note)
{
    json_t *j = &tr->j;
    json_open(j, NULL, '{');
    json_str(j, "name", name);
    json_str(j, "ph", "i");
    json_str(j, "s", "g"); /* global: the ids below are node 0's slots, never drawn */
    json_uint(j, "pid", pid_of(0));
    json_uint(j, "tid", tid_of_slots(tr->t, 0));
    put_us(tr, "ts", ts_us);
    json_open(j, "args", '{');
    json_str(j, "note", note);
    json_close(j, '}');
    json_close(j, '}');
}

void trace_end(trace_t *tr, const char *cmd, const cli_ctx_t *c, const char *time_scale,
               uint32_t rep, uint64_t slots_recorded, const char *truncated)
{
    json_t *j = &tr->j;
    json_close(j, ']');
    json_open(j, "otherData", '{');
    json_str(j, "generator", "stepnet");
    json_str(j, "cmd", cmd);
    json_str(j, "topology", c->topo->spec);
    json_str(j, "collective", sn_coll_name(c->params.coll));
    json_str(j, "algorithm", c->algo->name);
    json_str(j, "ports", cli_ports_name(&c->params));
    json_str(j, "time_scale", time_scale);
    if (rep)
        json_uint(j, "traced_repetition", rep);
    json_uint(j, "slots_recorded", slots_recorded);
    json_uint(j, "send_events", tr->sends);
    json_bool(j, "truncated", truncated != NULL);
    if (truncated)
        json_str(j, "truncation", truncated);
    json_close(j, '}');
    json_end(j);
    free(tr->seen_node);
    free(tr->seen_port);
    free(tr->seen_slots);
    tr->seen_node = tr->seen_port = tr->seen_slots = NULL;
}
