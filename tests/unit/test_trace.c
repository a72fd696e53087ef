/* Unit tests of the trace writer of stepnet run (cli/run_trace.c, cli/trace.c):
 * the nodes' records, including records that do not fit the topology, become trace events with
 * the times aligned on the earliest Start; each node's estimated clock offset is taken off its
 * times and stated with its uncertainty; a run without a record says so. The end-to-end checks
 * (format, transmissions of real runs) are the integration test `trace`. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"
#include "cli/trace.h"
#include "tests/support/testutil.h"

typedef struct {
    cli_ctx_t ctx;
    cli_run_t run;
    sn_coord_result_t res;
} fx_t;

static void fx_init(fx_t *f, const char *topo)
{
    cli_opts_t co;
    cli_opts_init(&co, "run");
    co.topo = topo;
    co.coll = "bcast";
    sn_err_t err = {0};
    assert_int_equal(cli_ctx_build(&co, &f->ctx, &err), 0);
    memset(&f->run, 0, sizeof f->run);
    sn_coord_opts_default(&f->run.coord);
    f->run.ctx = &f->ctx;
    cli_run_job(&f->ctx, &f->run.coord.job);
    f->run.coord.trace_slots = 2;
    f->run.coord.trace_rep = 1;
    memset(&f->res, 0, sizeof f->res);
}

static void fx_free(fx_t *f)
{
    sn_coord_result_free(&f->res);
    cli_ctx_free(&f->ctx);
}

/* The trace as one NUL-terminated string (caller frees), checked to be one JSON object. */
static char *write_trace(const fx_t *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    cli_run_trace_write(m, &f->run, &f->res);
    assert_int_equal(fclose(m), 0);
    const char *end = tu_json_skip(buf);
    assert_non_null(end);
    assert_int_equal(*tu_json_ws(end), '\0');
    return buf;
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Node i's record: nslots slots and the given sends (4 values each). */
static void set_node(sn_coord_trace_node_t *tn, uint64_t t0, const uint64_t *slots, size_t nslots,
                     const uint64_t *sends, size_t nsends, uint64_t stop, uint64_t tx)
{
    tn->t0_ns = t0;
    tn->nslots = 3 * nslots;
    tn->slots = malloc((tn->nslots + 1) * sizeof *tn->slots);
    memcpy(tn->slots, slots, tn->nslots * sizeof *slots);
    tn->nsends = 4 * nsends;
    tn->sends = malloc((tn->nsends + 1) * sizeof *tn->sends);
    if (nsends)
        memcpy(tn->sends, sends, tn->nsends * sizeof *sends);
    tn->stop_slot = stop;
    tn->transmissions = tx;
}

static void test_records_become_events(void **state)
{
    (void) state;
    fx_t f;
    fx_init(&f, "ring:4");
    sn_coord_trace_t *tr = calloc(1, sizeof *tr);
    tr->cid = 2;
    tr->n = 4;
    tr->nodes = calloc(4, sizeof *tr->nodes);
    /* per slot: sent, then the arrival on each port (ns after the node's Start; 0: before it).
     * node 0 starts 1 us after node 1; slot 1: frames left at 2 us, the last (port 1) at 5 us;
     * slot 2: every frame was there before its own left (arrivals 3 and 2.5 us < sent 6 us) */
    const uint64_t s0[] = {2000, 4000, 5000, 6000, 3000, 2500};
    /* one send that fits, one on port 7 (ring nodes have 2), one in slot 0, one past slot 2 */
    const uint64_t x0[] = {1, 0, 0 | (uint64_t) 0xffffffffu << 32, 0, 1, 7, 0, 0, 0, 1, 0, 0, 3, 1,
                           0, 0};
    set_node(&tr->nodes[0], 1001000, s0, 2, x0, 4, 2, 4);
    const uint64_t s1[] = {1000, 4000, 4500, 5000, 7000, 6000};
    const uint64_t x1[] = {1, 1 | (uint64_t) 1 << 32, 1 | (uint64_t) 2 << 32,
                           3 | (uint64_t) 1 << 32};
    set_node(&tr->nodes[1], 1000000, s1, 2, x1, 1, 2, 1);
    const uint64_t s2[] = {1000, 4000, 0, 5000, 7000, 6000}; /* port 1's slot 1 before Start */
    set_node(&tr->nodes[2], 1000500, s2, 2, NULL, 0, 2, 0);
    set_node(&tr->nodes[3], 1000500, s2, 2, NULL, 0, 2, 0);
    f.res.trace = tr;
    char *out = write_trace(&f);
    /* ids: pid = node + 1; a port's thread n + 1 + its directed link; node u's slots thread
     * n + 1 + 2 edges + u (ring:4: n = 4, 4 edges) */
    const sn_topo_t *t = f.ctx.topo;
    const uint32_t tid00 = 5 + sn_topo_link_id(t, 0, 0), tid11 = 5 + sn_topo_link_id(t, 1, 1);
    const uint32_t tid01 = 5 + sn_topo_link_id(t, 0, 1), slots0 = 13;
    char want[256];
    /* two sends fit: node 0's broadcast packet on port 0, node 1's control packet on port 1 */
    assert_int_equal(count(out, "\"name\":\"send\""), 2);
    snprintf(want, sizeof want,
             "\"name\":\"send\",\"cat\":\"data\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":3.000,"
             "\"dur\":3.000,\"args\":{\"slot\":1,\"node\":0,\"port\":0,",
             tid00);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "\"packet\":{\"src\":0,\"dst\":\"all\",\"seq\":0,\"frag\":0,"
                                "\"kind\":\"data\"}"));
    snprintf(want, sizeof want,
             "\"cat\":\"control\",\"ph\":\"X\",\"pid\":2,\"tid\":%u,\"ts\":1.000,\"dur\":3.500,",
             tid11);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "\"packet\":{\"src\":1,\"dst\":2,\"seq\":3,\"frag\":1,"
                                "\"kind\":\"control\"}"));
    /* slots: 4 nodes x 2, node 0 waited for its port 1 in slot 1 and for nobody in slot 2 */
    assert_int_equal(count(out, "\"cat\":\"slot\",\"ph\":\"X\""), 8);
    const uint32_t peer = sn_topo_port(t, 0, 1)->peer;
    snprintf(want, sizeof want,
             "\"name\":\"slot 1\",\"cat\":\"slot\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,"
             "\"ts\":3.000,\"dur\":3.000,\"args\":{\"slot\":1,\"node\":0,\"waited_for\":%u,"
             "\"waited_port\":1,",
             slots0, peer);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want,
             "\"name\":\"frame in\",\"cat\":\"slot\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,"
             "\"tid\":%u,\"ts\":6.000,\"args\":{\"slot\":1,\"node\":0,\"port\":1,\"from\":%u,"
             "\"last\":true,\"before_start\":false}",
             tid01, peer);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want,
             "\"name\":\"slot 2\",\"cat\":\"slot\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,"
             "\"ts\":7.000,\"dur\":0.000,\"args\":{\"slot\":2,\"node\":0,\"waited_for\":null}",
             slots0);
    assert_non_null(strstr(out, want));
    /* a frame in per node, slot and port; node 2's port 1 frame of slot 1 came before its Start,
     * drawn at its Start (0.5 us) */
    assert_int_equal(count(out, "\"name\":\"frame in\""), 16);
    assert_int_equal(count(out, "\"last\":true"), 7); /* slot 2 of node 0 waited for nobody */
    snprintf(want, sizeof want,
             "\"pid\":3,\"tid\":%u,\"ts\":0.500,\"args\":{\"slot\":1,\"node\":2,\"port\":1,",
             5 + sn_topo_link_id(t, 2, 1));
    assert_non_null(strstr(out, want));
    assert_int_equal(count(out, "\"before_start\":true"), 2);
    /* node 0's send on port 0 in slot 1 reached the neighbour when the neighbour's record says */
    const sn_port_t *p00 = sn_topo_port(t, 0, 0);
    const uint64_t *rec = p00->peer == 1 ? s1 : s2, t0p = p00->peer == 1 ? 1000000 : 1000500;
    double arrived = (double) (t0p - 1000000 + rec[1 + p00->rport]) / 1000;
    snprintf(want, sizeof want, "\"to\":%u,\"arrived_us\":%.3f,\"in_flight_us\":%.3f,", p00->peer,
             arrived, arrived - 3.0);
    assert_non_null(strstr(out, want));
    /* metadata: every node named, every port used named */
    assert_int_equal(count(out, "\"process_name\""), 4);
    snprintf(want, sizeof want, "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":%u,",
             tid11);
    assert_non_null(strstr(out, want));
    /* no pid 0 and no tid 0 (Perfetto reserves them) */
    assert_null(strstr(out, "\"pid\":0,"));
    assert_null(strstr(out, "\"tid\":0,"));
    /* the three records that do not fit are counted, and the trace says it is truncated */
    const char *other = tu_json_need(out, "otherData");
    assert_true(tu_json_bool(other, "truncated"));
    assert_int_equal(tu_json_int(other, "send_events"), 2);
    assert_int_equal(tu_json_int(other, "traced_repetition"), 1);
    assert_int_equal(tu_json_int(other, "slots_recorded"), 2);
    char note[256];
    tu_json_str(other, "truncation", note, sizeof note);
    assert_non_null(strstr(note, "3 records did not fit the topology"));
    assert_int_equal(count(out, "\"name\":\"trace truncated\""), 1);
    free(out);
    fx_free(&f);
}

static void test_complete_record_is_not_truncated(void **state)
{
    (void) state;
    fx_t f;
    fx_init(&f, "ring:3");
    sn_coord_trace_t *tr = calloc(1, sizeof *tr);
    tr->n = 3;
    tr->nodes = calloc(3, sizeof *tr->nodes);
    const uint64_t s[] = {1000, 2000, 1500};
    for (uint32_t i = 0; i < 3; i++)
        set_node(&tr->nodes[i], 500, s, 1, NULL, 0, 1, 0);
    f.res.trace = tr;
    char *out = write_trace(&f);
    const char *other = tu_json_need(out, "otherData");
    assert_false(tu_json_bool(other, "truncated"));
    assert_null(tu_json_get(other, "truncation"));
    free(out);
    /* a node that played past the slots recorded makes it truncated */
    tr->nodes[2].stop_slot = 3;
    out = write_trace(&f);
    assert_true(tu_json_bool(tu_json_need(out, "otherData"), "truncated"));
    free(out);
    fx_free(&f);
}

/* A node's Start on the coordinator's clock: its reading minus its offset, either sign. */
static void test_aligned_start_takes_offset_off(void **state)
{
    (void) state;
    sn_coord_trace_node_t tn = {.t0_ns = 1000000, .clock_offset_ns = 250000};
    assert_int_equal(cli_trace_aligned_t0_ns(&tn), 750000);
    tn.clock_offset_ns = -40000; /* the node's clock is behind the coordinator's */
    assert_int_equal(cli_trace_aligned_t0_ns(&tn), 1040000);
    tn.clock_offset_ns = 0;
    assert_int_equal(cli_trace_aligned_t0_ns(&tn), 1000000);
    tn.clock_offset_ns = 1500000; /* a reading below the offset: before the coordinator's zero */
    assert_int_equal(cli_trace_aligned_t0_ns(&tn), -500000);
}

/* Three nodes that started at the same moment on three clocks: with their offsets taken off,
 * their slots line up, a frame's arrival is on the receiver's aligned clock, and otherData states
 * every offset and uncertainty. */
static void test_offsets_align_the_nodes(void **state)
{
    (void) state;
    fx_t f;
    fx_init(&f, "ring:3");
    sn_coord_trace_t *tr = calloc(1, sizeof *tr);
    tr->n = 3;
    tr->nodes = calloc(3, sizeof *tr->nodes);
    /* slot 1 left 1 us after the Start; port 0's frame came in at 2 us, port 1's at 1.5 us */
    const uint64_t s[] = {1000, 2000, 1500};
    const int64_t offset[] = {0, 500000, -300000};
    const uint64_t unc[] = {0, 20000, 7000};
    const uint64_t send[] = {1, 0, 0 | (uint64_t) 0xffffffffu << 32, 0};
    for (uint32_t i = 0; i < 3; i++) {
        /* the same coordinator time, 2 ms, read on each node's clock */
        set_node(&tr->nodes[i], (uint64_t) (2000000 + offset[i]), s, 1, i == 1 ? send : NULL,
                 i == 1, 1, i == 1);
        tr->nodes[i].clock_offset_ns = offset[i];
        tr->nodes[i].clock_uncertainty_ns = unc[i];
    }
    f.res.trace = tr;
    f.res.clock_offsets = 1;
    char *out = write_trace(&f);
    /* uncorrected, node 2's slot would be 0.3 ms before node 0's and node 1's 0.5 ms after */
    assert_int_equal(count(out, "\"name\":\"slot 1\",\"cat\""), 3);
    char want[128];
    for (uint32_t i = 0; i < 3; i++) {
        snprintf(want, sizeof want,
                 "\"ts\":1.000,\"dur\":1.000,\"args\":{\"slot\":1,\"node\":%u,\"waited_for\"", i);
        assert_non_null(strstr(out, want));
    }
    /* node 1's send reached its neighbour on port 0 at 2 us or 1.5 us of the aligned axis */
    const sn_port_t *p = sn_topo_port(f.ctx.topo, 1, 0);
    snprintf(want, sizeof want, "\"to\":%u,\"arrived_us\":%.3f,", p->peer,
             (double) s[1 + p->rport] / 1000);
    assert_non_null(strstr(out, want));
    const char *other = tu_json_need(out, "otherData");
    char clock[16];
    assert_string_equal(tu_json_str(other, "clock", clock, sizeof clock), "offsets");
    assert_true(tu_json_num(other, "clock_uncertainty_us") == 20.0);
    double v[4];
    assert_int_equal(tu_json_nums(other, "clock_offsets_us", v, 4), 3);
    assert_true(v[0] == 0.0 && v[1] == 500.0 && v[2] == -300.0);
    assert_int_equal(tu_json_nums(other, "clock_uncertainties_us", v, 4), 3);
    assert_true(v[0] == 0.0 && v[1] == 20.0 && v[2] == 7.0);
    assert_non_null(strstr(out, "clock taken back by its estimated offset"));
    free(out);
    /* one clock (local nodes): stated, with no uncertainty */
    f.res.clock_offsets = 0;
    for (uint32_t i = 0; i < 3; i++) {
        tr->nodes[i].t0_ns = 2000000;
        tr->nodes[i].clock_offset_ns = 0;
        tr->nodes[i].clock_uncertainty_ns = 0;
    }
    out = write_trace(&f);
    other = tu_json_need(out, "otherData");
    assert_string_equal(tu_json_str(other, "clock", clock, sizeof clock), "one");
    assert_true(tu_json_num(other, "clock_uncertainty_us") == 0.0);
    free(out);
    fx_free(&f);
}

static void test_no_record_says_so(void **state)
{
    (void) state;
    fx_t f;
    fx_init(&f, "ring:4");
    f.res.failed = 1;
    char *out = write_trace(&f);
    assert_int_equal(count(out, "\"name\":\"no trace\""), 1);
    assert_int_equal(count(out, "\"name\":\"send\""), 0);
    const char *other = tu_json_need(out, "otherData");
    assert_true(tu_json_bool(other, "truncated"));
    assert_int_equal(tu_json_int(other, "send_events"), 0);
    free(out);
    fx_free(&f);
}

/* --sync dataflow: a slot the node did not play (0 where its frames left) gets no slot event, a
 * port its receive plan holds no frame on (SN_COORD_TRACE_NO_FRAME) gets no frame in and never
 * counts as the frame waited for, a neighbour's unplanned entry gives a send no arrival, a
 * transmission in a slot the node did not play is a record that does not fit, and otherData says
 * which execution ran. */
static void test_dataflow_record(void **state)
{
    (void) state;
    const uint64_t none = SN_COORD_TRACE_NO_FRAME;
    fx_t f;
    fx_init(&f, "ring:3");
    f.run.coord.sync = SN_SYNC_DATAFLOW;
    const sn_topo_t *t = f.ctx.topo;
    /* node 0's port q01 leads to node 1's port q10; node 2 reaches node 0 on port q20, and node 0
     * hears node 2 on port q02 */
    uint32_t q01 = sn_topo_port(t, 0, 0)->peer == 1 ? 0 : 1, q10 = sn_topo_port(t, 0, q01)->rport;
    uint32_t q02 = 1 - q01, q20 = sn_topo_port(t, 0, q02)->rport;
    sn_coord_trace_t *tr = calloc(1, sizeof *tr);
    tr->n = 3;
    tr->nodes = calloc(3, sizeof *tr->nodes);
    /* node 0 plays slot 1 expecting nothing, skips slot 2, in which a frame comes on port 1 */
    uint64_t s0[] = {1000, none, none, 0, none, none};
    s0[4 + q02] = 3000;
    const uint64_t x0[] = {1, q01, 0 | (uint64_t) 0xffffffffu << 32, 0,  /* to node 1 */
                           2, q01, 0 | (uint64_t) 0xffffffffu << 32, 0}; /* slot 2: not played */
    set_node(&tr->nodes[0], 1000000, s0, 2, x0, 2, 2, 2);
    /* node 1 waits 1 us in slot 1 for node 0's frame, plays slot 2 expecting nothing */
    uint64_t s1[] = {1000, none, none, 2500, none, none};
    s1[1 + q10] = 2000;
    set_node(&tr->nodes[1], 1000000, s1, 2, NULL, 0, 2, 0);
    /* node 2 sends to node 0 in slot 1 (node 0's plan holds no such frame), and its frame of
     * slot 2 on port 0 came before its Start */
    uint64_t s2[] = {1000, none, none, 1500, 0, none};
    const uint64_t x2[] = {1, q20, 2, 0};
    set_node(&tr->nodes[2], 1000000, s2, 2, x2, 1, 2, 1);
    f.res.trace = tr;
    char *out = write_trace(&f);
    assert_int_equal(count(out, "\"cat\":\"slot\",\"ph\":\"X\""), 5);
    assert_null(strstr(out, "\"args\":{\"slot\":2,\"node\":0,\"waited_for\""));
    assert_int_equal(count(out, "\"name\":\"frame in\""), 3);
    assert_int_equal(count(out, "\"last\":true"), 1);
    char want[256];
    snprintf(want, sizeof want,
             "\"ts\":1.000,\"dur\":1.000,\"args\":{\"slot\":1,\"node\":1,\"waited_for\":0,"
             "\"waited_port\":%u,",
             q10);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "\"ts\":2.500,\"dur\":0.000,\"args\":{\"slot\":2,\"node\":1,"
                                "\"waited_for\":null}"));
    snprintf(want, sizeof want,
             "\"args\":{\"slot\":2,\"node\":0,\"port\":%u,\"from\":2,\"last\":false,"
             "\"before_start\":false}",
             q02);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "\"args\":{\"slot\":2,\"node\":2,\"port\":0,"));
    assert_int_equal(count(out, "\"before_start\":true"), 1);
    /* two sends drawn; only node 0's has an arrival, 1 us after it left */
    assert_int_equal(count(out, "\"name\":\"send\""), 2);
    assert_int_equal(count(out, "\"arrived_us\""), 1);
    assert_non_null(strstr(out, "\"arrived_us\":2.000,\"in_flight_us\":1.000,"));
    const char *other = tu_json_need(out, "otherData");
    char sync[16];
    tu_json_str(other, "sync", sync, sizeof sync);
    assert_string_equal(sync, "dataflow");
    assert_true(tu_json_bool(other, "truncated"));
    char note[256];
    tu_json_str(other, "truncation", note, sizeof note);
    assert_non_null(strstr(note, "1 records did not fit the topology"));
    free(out);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records_become_events),
        cmocka_unit_test(test_complete_record_is_not_truncated),
        cmocka_unit_test(test_aligned_start_takes_offset_off),
        cmocka_unit_test(test_offsets_align_the_nodes),
        cmocka_unit_test(test_no_record_says_so),
        cmocka_unit_test(test_dataflow_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
