#!/usr/bin/env python3
"""Every option of `stepnet sim` and `stepnet model` against every collective: honoured or refused,
never silently ignored.

For each collective (its sources given where it is partial) and each option with a value other
than its default, the command runs with and without the option. The option is

  * refused: exit 2, and the message names the option (its flag); or
  * honoured: exit 0, and what the run did changed: the transmissions (trace_hash, steps, packets),
    the bytes it checked, the deliveries, the time units or, for model, the prediction and the
    bounds; or
  * exempt, for the few options whose effect no field of the report can show, each with the reason
    (a payload's values, the combining operator's results, the ranking of auto, a budget).

An option accepted with nothing changed is a silent ignore: the test fails naming the option and
the collective. Exit 0 when every pair is honoured, refused or exempt.
"""
import json
import os
import subprocess
import sys

STEPNET = os.environ.get("STEPNET", "build/stepnet")
TOPO = "hypercube:3"
COLLS = ["bcast", "scatter", "gather", "mnb", "te", "pmnb", "pexchange", "pmna", "sna",
         "allreduce", "barrier", "mna"]
PARTIAL = {"pmnb", "pexchange", "pmna"}
# option -> (value, the fields whose change shows it honoured)
RUN_FIELDS = ("trace_hash", "steps", "packets", "deliveries", "expected_deliveries")
# the port model and the sources are the instance, which the simulator enforces (every send
# checked against the port model) and the deliveries follow (every source's packets expected)
# whatever the algorithm: their echo in the report is their effect
OPTIONS = {
    "--root": ("3", RUN_FIELDS),
    "--msgs": ("2", RUN_FIELDS),
    "--frags": ("2", RUN_FIELDS),
    "--ports": ("single", ("ports",) + RUN_FIELDS),
    "--duplex": ("half", ("duplex",) + RUN_FIELDS),
    "--algo": (None, ("algorithm",)),  # the collective's own second algorithm, found below
    "--sources": ("1,6", ("sources",) + RUN_FIELDS),
    "--m": ("2", ("sources",) + RUN_FIELDS),
}
# honoured in ways no field of the report shows; refused where they do not apply
EXEMPT = {
    "--seed": ("5", "the payload values only: every delivered byte is verified against them"),
    "--size": ("64", "the payload's bytes, in its digest, verified at every delivery"),
    "--op": ("max", "the combined values only, verified at every destination"),
    "--tp": ("0.5", "the ranking of auto by time units and the time_units field's control part"),
    "--max-memory": ("8G", "a budget: the run fits it or is refused"),
    "--threads": ("2", "the simulator's own parallelism: the same result by design"),
}


def run(args):
    p = subprocess.run([STEPNET] + args, capture_output=True, text=True, timeout=120)
    doc = None
    if p.returncode == 0 and "--json" in args:
        doc = json.loads(p.stdout.splitlines()[0])
    return p.returncode, doc, p.stderr


def base_args(cmd, coll):
    a = [cmd, "--topo", TOPO, "--coll", coll, "--json"]
    if coll in PARTIAL:
        a += ["--sources", "0,3"]
    return a


def with_option(args, opt, value):
    a = list(args)
    if opt in ("--sources", "--m") and "--sources" in a:  # replace the base's sources
        i = a.index("--sources")
        del a[i:i + 2]
    if opt == "--rx":
        a += ["--ports", "single"]
    return a + [opt, value]


def second_algorithm(coll, base_algo):
    p = subprocess.run([STEPNET, "algos", "--coll", coll, "--json"], capture_output=True,
                       text=True, timeout=60)
    names = []
    for line in p.stdout.splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        for a in d if isinstance(d, list) else d.get("algorithms", [d]):
            if isinstance(a, dict) and a.get("name") and a.get("name") != base_algo:
                names.append(a["name"])
    return names


def main():
    failures, checked = [], 0
    for cmd in ("sim", "model"):
        for coll in COLLS:
            base = base_args(cmd, coll)
            rc, doc0, err0 = run(base)
            if rc != 0:
                failures.append("%s %s: the base run failed: %s" % (cmd, coll, err0.strip()))
                continue
            for opt, (value, fields) in OPTIONS.items():
                if cmd == "model":
                    fields = ("predicted_steps", "lower_bound", "bounds", "algorithm") + tuple(
                        f for f in fields if f in ("ports", "duplex", "sources"))
                values = [value]
                if opt == "--algo":
                    values = []
                    for name in second_algorithm(coll, doc0.get("algorithm")):
                        rcx, docx, _ = run(with_option(base, "--algo", name))
                        if rcx == 0:
                            values = [name]
                            break
                    if not values:
                        continue  # one algorithm applies: nothing else to name
                for v in values:
                    rc, doc, err = run(with_option(base, opt, v))
                    checked += 1
                    if rc == 2:
                        if opt not in err and opt.lstrip("-") not in err:
                            failures.append("%s %s %s %s: refused without naming it: %s"
                                            % (cmd, coll, opt, v, err.strip()))
                        continue
                    if rc != 0:
                        failures.append("%s %s %s %s: exit %d: %s" % (cmd, coll, opt, v, rc,
                                                                     err.strip()))
                        continue
                    if all(doc.get(f) == doc0.get(f) for f in fields):
                        failures.append("%s %s %s %s: accepted and ignored (%s unchanged)"
                                        % (cmd, coll, opt, v, ", ".join(fields)))
            for opt, (value, why) in EXEMPT.items():
                rc, _, err = run(with_option(base, opt, value))
                checked += 1
                if rc not in (0, 2) or (rc == 2 and opt not in err):
                    failures.append("%s %s %s %s: exit %d: %s" % (cmd, coll, opt, value, rc,
                                                                 err.strip()))
    for f in failures:
        print("FAIL " + f)
    if failures:
        sys.exit(1)
    print("PASS options_matrix: %d option-collective pairs of sim and model honoured, refused "
          "or exempt (%s: no field shows them)" % (checked, ", ".join(EXEMPT)))


main()
