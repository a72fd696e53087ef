#!/usr/bin/env python3
"""Checks a stepnet --trace file against the Chrome trace-event format (JSON Object Format) and
against the run's transmissions.

usage: trace_check.py TRACE REPORT_JSON [--truncated] [--slots] [--same-sends OTHER_TRACE]
                      [--clock one|offsets] [--dataflow SIM_TRACE]

REPORT_JSON is the --json report of the same sim or run: the number of `send` events must equal
its packets + control_packets (fewer, with --truncated, when the file says it is truncated).
--slots: a run trace; every node has one `slot` event per slot it played.
--same-sends OTHER: the (node, slot, port, packet) of every send equal those of OTHER (run vs sim).
--clock KIND: a run trace whose otherData says its times are on one clock, or aligned by
estimated offsets, with the offset and uncertainty of every node; a frame may then seem to arrive
before it left by no more than the sum of its two nodes' uncertainties.
--dataflow SIM: a run trace of --sync dataflow (otherData.sync "dataflow"), whose slots are the
logical slots the nodes played: each node's `slot` events increase, lie within the run's steps and
include every slot in which it sent; a `frame in` for exactly the frames SIM's transmissions bring
(none on a port and slot without one), the last of a slot being the neighbour it waited for.
Prints one line per failure and exits 1, or prints a summary and exits 0."""
import json
import sys

fails = []


def fail(msg):
    fails.append(msg)


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_format(d):
    if not isinstance(d, dict) or not isinstance(d.get("traceEvents"), list):
        fail("not the JSON Object Format: no traceEvents array")
        return []
    if d.get("displayTimeUnit") not in (None, "ms", "ns"):
        fail("displayTimeUnit must be ms or ns, is %r" % d.get("displayTimeUnit"))
    named_proc, named_thread = set(), set()
    used = set()
    for i, e in enumerate(d["traceEvents"]):
        where = "event %d (%s)" % (i, json.dumps(e)[:120])
        if not isinstance(e, dict):
            fail(where + ": not an object")
            continue
        ph = e.get("ph")
        if ph not in ("X", "i", "M"):
            fail(where + ": ph %r is not X, i or M" % ph)
        if not isinstance(e.get("name"), str) or not e["name"]:
            fail(where + ": no name")
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            fail(where + ": pid and tid must be integers")
        if "args" in e and not isinstance(e["args"], dict):
            fail(where + ": args is not an object")
        if ph == "M":
            args = e.get("args", {})
            if e["name"] in ("process_name", "thread_name"):
                if not isinstance(args.get("name"), str):
                    fail(where + ": metadata without args.name")
                (named_proc if e["name"] == "process_name" else named_thread).add(
                    (e["pid"], e["tid"]) if e["name"] == "thread_name" else e["pid"])
            elif e["name"] in ("process_sort_index", "thread_sort_index"):
                if not isinstance(args.get("sort_index"), int):
                    fail(where + ": sort index without args.sort_index")
            else:
                fail(where + ": unknown metadata event")
            continue
        if not number(e.get("ts")) or e["ts"] < 0:
            fail(where + ": ts must be a number >= 0 (microseconds)")
        if ph == "X" and (not number(e.get("dur")) or e["dur"] < 0):
            fail(where + ": an X event needs dur >= 0")
        if ph == "i" and e.get("s") not in ("g", "p", "t"):
            fail(where + ": an instant event needs s = g, p or t")
        if ph == "X" or (ph == "i" and e.get("s") == "t"):
            used.add((e["pid"], e["tid"]))
    for pid, tid in sorted(used):
        if pid not in named_proc:
            fail("pid %d has events but no process_name" % pid)
        if (pid, tid) not in named_thread:
            fail("pid %d tid %d has events but no thread_name" % (pid, tid))
    return d["traceEvents"]


def sends_of(events):
    out = []
    tid_of = {}  # (pid, port) -> tid: one thread per port, never shared between two ports
    for e in events:
        if e.get("name") != "send":
            continue
        a = e.get("args", {})
        k = a.get("packet", {})
        for key in ("slot", "port", "link", "edge", "to"):
            if not isinstance(a.get(key), int):
                fail("send event without integer args.%s: %s" % (key, json.dumps(e)[:160]))
        for key in ("src", "dst", "seq", "frag", "kind"):
            if key not in k:
                fail("send event without args.packet.%s: %s" % (key, json.dumps(e)[:160]))
        if e.get("pid") != a.get("node", -2) + 1:
            fail("send event of node %r on pid %r: pid must be node + 1" % (a.get("node"), e.get("pid")))
        key = (e.get("pid"), a.get("port"))
        if tid_of.setdefault(key, e.get("tid")) != e.get("tid"):
            fail("port %r of pid %r on two threads" % (key[1], key[0]))
        out.append((a.get("node"), a.get("slot"), a.get("port"), json.dumps(k, sort_keys=True)))
    if len(set(tid_of.values())) != len(tid_of):
        fail("two ports share a thread id")
    return out


def check_waits(events, unc):
    """The last frame of each slot is the neighbour waited for; every frame arrives after it left
    (on one clock exactly, on aligned clocks within their uncertainty)."""
    waited = {(e["args"]["node"], e["args"]["slot"]): e["args"].get("waited_for")
              for e in events if e.get("cat") == "slot" and e.get("ph") == "X"}
    last = {}
    for e in events:
        if e.get("name") == "frame in":
            a = e["args"]
            if a["last"]:
                if (a["node"], a["slot"]) in last:
                    fail("node %d slot %d: two last frames" % (a["node"], a["slot"]))
                last[(a["node"], a["slot"])] = a["from"]
        if e.get("name") == "send" and "in_flight_us" in e["args"]:
            a = e["args"]
            # on aligned clocks each end's time may be off by its node's uncertainty
            slack = unc.get(a["node"], 0) + unc.get(a["to"], 0)
            if a["in_flight_us"] < -slack - 0.002:  # 0.002: the file's 3 decimals
                fail("a frame arrived %.3f us before it left, beyond the clocks' uncertainty "
                     "%.3f us: %s" % (-a["in_flight_us"], slack, json.dumps(e)[:200]))
    for key in last:
        if key not in waited:
            fail("node %d slot %d: a last frame in a slot without a slot event" % key)
    for key, w in waited.items():
        if last.get(key) != w:
            fail("node %d slot %d: waited_for %r but the last frame came from %r" %
                 (key[0], key[1], w, last.get(key)))
    if not any("in_flight_us" in e.get("args", {}) for e in events if e.get("name") == "send"):
        fail("no send event has its arrival time")


def check_dataflow(events, r, sim_trace):
    """--dataflow SIM: the slot events are the logical slots each node played, and the frames drawn
    are exactly those that SIM's transmissions bring (keyed by receiver, sender and slot)."""
    with open(sim_trace) as f:
        sim = json.load(f)["traceEvents"]
    planned = sorted((e["args"]["to"], e["args"]["node"], e["args"]["slot"])
                     for e in sim if e.get("name") == "send")
    drawn = sorted((e["args"]["node"], e["args"]["from"], e["args"]["slot"])
                   for e in events if e.get("name") == "frame in")
    if drawn != planned:
        extra = sorted(set(drawn) - set(planned))[:5]
        missing = sorted(set(planned) - set(drawn))[:5]
        fail("frame in events (%d) differ from the frames sim's transmissions bring (%d): "
             "(node, from, slot) not planned %r, planned but not drawn %r" %
             (len(drawn), len(planned), extra, missing))
    played = {}
    for e in events:
        if e.get("cat") == "slot" and e.get("ph") == "X":
            played.setdefault(e["args"]["node"], []).append(e["args"]["slot"])
    # a node plays at most the slot after the last step: the one that takes that step's frames in
    for node, slots in played.items():
        if slots != sorted(set(slots)) or slots[0] < 1 or slots[-1] > r["steps"] + 1:
            fail("node %d: slot events %r not increasing within 1..%d" %
                 (node, slots, r["steps"] + 1))
    for e in events:
        a = e.get("args", {})
        if e.get("name") == "send" and a["slot"] not in played.get(a["node"], []):
            fail("node %d sent in slot %d but has no slot event for it" % (a["node"], a["slot"]))
    check_waits(events, {})


def main():
    argv = sys.argv[1:]
    if len(argv) < 2:
        sys.exit(__doc__)
    trace, report = argv[0], argv[1]
    truncated = "--truncated" in argv
    with open(trace) as f:
        d = json.load(f)
    with open(report) as f:
        r = json.loads(f.read().strip().splitlines()[-1])
    events = check_format(d)
    sends = sends_of(events)
    other = d.get("otherData", {})
    want = r["packets"] + r["control_packets"]
    if other.get("send_events") != len(sends):
        fail("otherData.send_events %r but %d send events" % (other.get("send_events"), len(sends)))
    if bool(other.get("truncated")) != truncated:
        fail("otherData.truncated is %r, expected %r" % (other.get("truncated"), truncated))
    if truncated:
        if len(sends) >= want:
            fail("truncated trace with %d send events, the run made %d" % (len(sends), want))
        if not any(e.get("name") == "trace truncated" for e in events):
            fail("truncated trace without a 'trace truncated' event")
    elif len(sends) != want:
        fail("%d send events, the report says %d packets + %d control packets" %
             (len(sends), r["packets"], r["control_packets"]))
    if len(set(sends)) != len(sends):
        fail("a transmission appears twice")
    unc = {}
    if "--clock" in argv:
        kind = argv[argv.index("--clock") + 1]
        if other.get("clock") != kind:
            fail("otherData.clock is %r, expected %r" % (other.get("clock"), kind))
        offs, uncs = other.get("clock_offsets_us"), other.get("clock_uncertainties_us")
        worst = other.get("clock_uncertainty_us")
        if not isinstance(offs, list) or not isinstance(uncs, list) or \
                len(offs) != r["nodes"] or len(uncs) != r["nodes"]:
            fail("otherData needs clock_offsets_us and clock_uncertainties_us, one per node")
        elif not number(worst) or any(not number(u) or u < 0 or u > worst for u in uncs) or \
                (uncs and max(uncs) != worst):
            fail("otherData.clock_uncertainty_us %r is not the largest of %r" % (worst, uncs))
        else:
            unc = dict(enumerate(uncs))
            if kind == "one" and (any(offs) or worst != 0):
                fail("one clock with offsets %r or an uncertainty %r" % (offs, worst))
    if "--dataflow" in argv:
        if other.get("sync") != "dataflow":
            fail("otherData.sync is %r, expected 'dataflow'" % other.get("sync"))
        check_dataflow(events, r, argv[argv.index("--dataflow") + 1])
    if "--slots" in argv:
        if other.get("sync") != "slot":
            fail("otherData.sync is %r, expected 'slot'" % other.get("sync"))
        per_node = {}
        for e in events:
            if e.get("cat") == "slot" and e.get("ph") == "X":
                per_node.setdefault(e["args"]["node"], []).append(e["args"]["slot"])
                w = e["args"].get("waited_for", "missing")
                if w != "missing" and w is not None and not isinstance(w, int):
                    fail("slot event with a bad waited_for: %r" % w)
        if len(per_node) != r["nodes"]:
            fail("slot events for %d nodes of %d" % (len(per_node), r["nodes"]))
        check_waits(events, unc)
        for node, slots in per_node.items():
            if slots != list(range(1, len(slots) + 1)):
                fail("node %d: slot events not 1..%d in order" % (node, len(slots)))
            if not truncated and len(slots) < r["steps"]:
                fail("node %d: %d slot events, the run took %d steps" % (node, len(slots), r["steps"]))
    if "--same-sends" in argv:
        with open(argv[argv.index("--same-sends") + 1]) as f:
            o = sends_of(json.load(f)["traceEvents"])
        if sorted(o) != sorted(sends):
            fail("the transmissions differ from those of %s (%d against %d)" %
                 (argv[argv.index("--same-sends") + 1], len(sends), len(o)))
    for m in fails[:20]:
        print("FAIL", trace + ":", m)
    if fails:
        sys.exit(1)
    print("ok %s: %d events, %d send events, truncated %s" % (trace, len(events), len(sends),
                                                              bool(other.get("truncated"))))


main()
