"""verdict.py -- the metrics `lsim compare --json` (on standard input) found
outside their tolerance, one `name (difference > tolerance)` a line; nothing
when every judged metric is within.  A comparison that judged nothing
(no metric with a verdict) is a miss too, `no-judged-metric`: a scenario
must not pass because nothing was compared.  Used by run_live.sh."""
import json
import sys


def figure(x):
    """A metric's difference or tolerance; compare gives none (null) where
    one side lacks what the metric measures (a stop the other run has not)."""
    return "none" if x is None else "%.4g" % x


text = sys.stdin.read()
if not text.strip():
    sys.exit(0)
doc = json.loads(text)
judged = [m for m in doc["metrics"].values() if m.get("verdict") in ("ok", "outside", "band")]
if not judged:
    print("no-judged-metric (compare judged none of its metrics)")
for name, m in doc["metrics"].items():
    if m.get("verdict") == "outside":
        print("%s (%s > %s)" % (name, figure(m.get("difference")), figure(m.get("tolerance"))))
