"""verdict.py -- the metrics `lsim compare --json` (on standard input) found
outside their tolerance, one `name (difference > tolerance)` a line; nothing
when every judged metric is within.  Used by run_live.sh."""
import json
import sys

text = sys.stdin.read()
if not text.strip():
    sys.exit(0)
doc = json.loads(text)
for name, m in doc["metrics"].items():
    if m.get("verdict") == "outside":
        print("%s (%.4g > %.4g)" % (name, m["difference"], m["tolerance"]))
